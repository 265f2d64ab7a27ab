//! A file is read only once it stands still, and a file gone from the server before it
//! was read is forgotten (sftp/domain.rs).

use super::*;

/// The source's files waiting to be read, as (uuid, place, version `<mtime>:<size>`).
async fn waiting(w: &World, source: &str) -> Vec<(String, String, String)> {
    let source = source.to_owned();
    w.more[0]
        .query(move |db| coffer_reconciliation::files::store::waiting_of_source(db, &source))
        .await
        .unwrap()
}

/// Waits until the source's waiting files are as `done` wants them.
async fn until_waiting(
    w: &World,
    source: &str,
    done: impl Fn(&[(String, String, String)]) -> bool,
) -> Vec<(String, String, String)> {
    for _ in 0..400 {
        let rows = waiting(w, source).await;
        if done(&rows) {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "the waiting files never became what the test waits for: {:?}",
        waiting(w, source).await
    );
}

/// The size a waiting row's version records.
fn recorded_size(row: &(String, String, String)) -> u64 {
    row.2.rsplit(':').next().unwrap().parse().unwrap()
}

fn append(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    std::fs::File::options()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

coffer_testkit::backend_tests! {
    async fn a_file_still_growing_is_read_only_once_it_stands_still(backend) {
        let Start { s, w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let file = collected(&format!("GROW-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        let (head, rest) = file.split_at(file.len() / 3);
        let (middle, tail) = rest.split_at(rest.len() / 2);
        // Written in place, as a client that does not upload under another name does.
        let path = here.join("growing.xml");
        std::fs::write(&path, head).unwrap();
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.host_key), json!({"password": s.password})).await;
        let one_row_of = |size: usize| {
            move |rows: &[(String, String, String)]| rows.len() == 1 && recorded_size(&rows[0]) == size as u64
        };
        // The first poll only records the file as it finds it.
        until_waiting(&w, &source, one_row_of(head.len())).await;

        // Grown by the next poll: its new size is recorded (the old one forgotten), and
        // nothing is read; nor when it grows again, to its end.
        for (part, size) in [(middle, head.len() + middle.len()), (tail, file.len())] {
            append(&path, part);
            next_poll(&w, &token, &source).await;
            until_waiting(&w, &source, one_row_of(size)).await;
            // The poll before the one that recorded this size is over, and read nothing.
            assert!(reports(&w.app, &token, &account).await.is_empty());
        }

        // Found as it was: read, whole, once.
        next_poll(&w, &token, &source).await;
        let found = until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| !a.is_empty())).await;
        assert_eq!(found[0]["status"], "processed", "{}", found[0]);
        assert_eq!(found[0]["file_name"], "growing.xml");
        until_exists(&here.join("processed").join("growing.xml")).await;
        until(&w, &format!("/payments/{}", debit["uuid"].as_str().unwrap()), &token,
            |p| p["status"] == "succeeded").await;
        let polled = a_whole_poll(&w, &token, &source).await;
        assert!(polled.get("poll_error").is_none(), "{polled}");
        assert_eq!(reports(&w.app, &token, &account).await.len(), 1);
        assert!(waiting(&w, &source).await.is_empty());
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_file_gone_from_the_server_before_it_was_read_is_forgotten(backend) {
        let Start { s, w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let e2e = debit["end_to_end_id"].as_str().unwrap().to_owned();
        drop_file(&here, "kept.xml", &collected(&format!("KEPT-{directory}"), &e2e, "42.00", &today(&w)), None);
        drop_file(&here, "gone.xml", &collected(&format!("GONE-{directory}"), "E2E-GONE", "7.00", &today(&w)), None);
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.host_key), json!({"password": s.password})).await;
        let rows = until_waiting(&w, &source, |rows| rows.len() == 2).await;
        let kept = rows.iter().find(|r| r.1.ends_with("/kept.xml")).unwrap().0.clone();

        // Taken away before a poll found it as the first one had: its row goes; kept.xml,
        // found unchanged, is read.
        std::fs::remove_file(here.join("gone.xml")).unwrap();
        next_poll(&w, &token, &source).await;
        until_exists(&here.join("processed").join("kept.xml")).await;
        until_waiting(&w, &source, <[_]>::is_empty).await;

        // kept.xml is gone from the directory too (to processed/), but its row stays: it
        // is what keeps the file from being read twice.
        let polled = a_whole_poll(&w, &token, &source).await;
        assert!(polled.get("poll_error").is_none(), "{polled}");
        let report = the_one_read(&w, &token, &account, kept).await;
        assert_eq!(report["file_name"], "kept.xml");
        std::fs::remove_dir_all(&here).unwrap();
    }
}
