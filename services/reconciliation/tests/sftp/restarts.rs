//! A restart, a crash and a rotation of master keys between polls: each file is still
//! read once, and a source still signs in.

use coffer_model::clock::Clock;

use super::*;

coffer_testkit::backend_tests! {
    async fn a_restart_between_two_polls_reads_each_file_once(backend) {
        let Start { s, secrets, w, org, account, token, debit, blueprint, here, directory } = start(backend).await;
        let e2e = debit["end_to_end_id"].as_str().unwrap().to_owned();
        let a = collected(&format!("A-{directory}"), &e2e, "42.00", &today(&w));
        drop_file(&here, "a.xml", &a, None);
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.host_key), json!({"password": s.password})).await;
        second_poll(&w, &token, &source).await;
        until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| a.len() == 1)).await;
        let moved = here.join("processed").join("a.xml");
        until_exists(&moved).await;

        // A new process on the same databases and master keys. Identity is left out: its
        // signing keys were sealed with keys of the old process, and reconciliation already
        // knows the account; the test's own token signs the requests from here.
        let World { app, admin, payments, more, faults } = w;
        let store = more[0].clone();
        let restarted_secrets = secrets.clone();
        let app = app.restart(move |h| async move {
            vec![reconciliation(&h, &store, restarted_secrets, AddressPolicy::parse("127.0.0.0/8").unwrap())]
        }).await;
        let w = World { app, admin, payments, more, faults };
        let token = w.app.token_for(&[org]);

        // As if a.xml's move had failed before the restart: the same file (name, size and
        // time) is back in the directory. It is moved again, not read again.
        let mtime = std::fs::metadata(&moved).unwrap().modified().unwrap();
        drop_file(&here, "a.xml", &a, Some(mtime));
        let b = collected(&format!("B-{directory}"), "E2E-OTHER", "7.00", &today(&w));
        drop_file(&here, "b.xml", &b, None);
        // The first poll moves a.xml and records b.xml, the second reads b.xml.
        next_poll(&w, &token, &source).await;
        next_poll(&w, &token, &source).await;
        let found = until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| a.len() >= 2)).await;
        until_exists(&here.join("processed").join("b.xml")).await;
        for _ in 0..400 {
            if !here.join("a.xml").exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(!here.join("a.xml").exists(), "a.xml was never moved again");
        // processed/a.xml is taken: the copy goes beside it under its row's uuid.
        let aside: Vec<String> = std::fs::read_dir(here.join("processed")).unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("a.xml."))
            .collect();
        assert_eq!(aside.len(), 1, "{aside:?}");

        // A whole poll more: nothing more read.
        a_whole_poll(&w, &token, &source).await;
        let all = reports(&w.app, &token, &account).await;
        assert_eq!(all.len(), 2, "{found:?}");
        let mut names: Vec<&str> = all.iter().map(|r| r["file_name"].as_str().unwrap()).collect();
        names.sort_unstable();
        assert_eq!(names, ["a.xml", "b.xml"]);
        assert!(all.iter().all(|r| r["status"] == "processed" && r["source_uuid"] == source.as_str()), "{all:?}");
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_file_recorded_before_a_crash_is_read_by_the_next_poll(backend) {
        let s = server();
        let secrets = Secrets::ephemeral().unwrap();
        let w = sftp_world(backend, "127.0.0.0/8", &secrets).await;
        let (org, account, token, debit, blueprint) = direct_debits(&w).await;
        // The directory is made only after the first poll, which fails for want of it: so
        // that poll is over, and reads nothing, before the test records the file.
        let name = uuid::Uuid::new_v4().to_string();
        let (here, directory) = (s.root.join(&name), format!("/{name}"));
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.host_key), json!({"password": s.password})).await;
        let shown = until(&w, &format!("/reconciliation/sources/{source}"), &token,
            |s| s.get("poll_error").is_some()).await;
        assert!(shown["poll_error"].as_str().unwrap().contains(&directory), "{shown}");

        std::fs::create_dir_all(&here).unwrap();
        let file = collected(&format!("C-{name}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "c.xml", &file, None);
        // The row a poll that died between recording the file and reading it leaves.
        use coffer_reconciliation::files::store as files;
        use coffer_reconciliation::sftp::domain::{Listed, file_place, file_uuid, file_version};
        let meta = std::fs::metadata(here.join("c.xml")).unwrap();
        let since_epoch = meta.modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap();
        let listed = Listed {
            name: "c.xml".into(),
            size: meta.len(),
            mtime: u32::try_from(since_epoch.as_secs()).unwrap(),
        };
        let (place, version) = (file_place(&source, &listed), file_version(&listed));
        let row = files::Row {
            uuid: file_uuid(&place, &version),
            source_uuid: Some(source.clone()),
            blueprint_uuid: blueprint.clone(),
            object_key: place,
            object_version: version,
            name: "c.xml".into(),
            size: i64::try_from(listed.size).unwrap(),
            status: coffer_reconciliation::files::domain::FileStatus::Waiting,
            report_uuid: None,
            received: w.app.clock.unix(),
            attempts: 0,
            next_attempt: i64::MAX,
        };
        let uuid = row.uuid.clone();
        let added = w.more[0]
            .write(move |tx| files::receive(tx, &row).map_err(coffer_store::StoreError::from))
            .await
            .unwrap();
        assert!(added);

        // The next poll downloads it again and reads it, once; the error is gone.
        next_poll(&w, &token, &source).await;
        until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| !a.is_empty())).await;
        until_exists(&here.join("processed").join("c.xml")).await;
        let shown = a_whole_poll(&w, &token, &source).await;
        assert!(shown.get("poll_error").is_none(), "{shown}");
        let report = the_one_read(&w, &token, &account, uuid).await;
        assert_eq!(report["status"], "processed");
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_source_signs_in_after_a_rotation_drops_the_master_key_that_sealed_its_password(backend) {
        let s = server();
        // A key id with `_`, which a LIKE pattern would take for any character.
        let w = sftp_world(backend, "127.0.0.0/8", &master_keys(&[("m_1", 1)], "m_1")).await;
        let (org, account, token, debit, blueprint) = direct_debits(&w).await;
        let (here, directory) = own_directory(&s);
        let a = collected(&format!("R1-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "a.xml", &a, None);
        let (source, _) = first_report(&w, &token, (org, &account, &blueprint), &directory).await;
        until_exists(&here.join("processed").join("a.xml")).await;

        // m2 seals from the next start while m_1 still opens; then m_1 goes, and the next
        // file is still read: the source signs in with its password.
        let (w, started) = restarted(w, master_keys(&[("m_1", 1), ("m2", 2)], "m2")).await;
        started.unwrap();
        let (w, started) = restarted(w, master_keys(&[("m2", 2)], "m2")).await;
        started.unwrap();
        let token = w.app.token_for(&[org]);
        let b = collected(&format!("R2-{directory}"), "E2E-OTHER", "7.00", &today(&w));
        drop_file(&here, "b.xml", &b, None);
        // One poll lists b.xml, the next reads it.
        next_poll(&w, &token, &source).await;
        let shown = next_poll(&w, &token, &source).await;
        assert!(shown.get("poll_error").is_none(), "{shown}");
        until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| a.len() == 2)).await;
        until_exists(&here.join("processed").join("b.xml")).await;

        // A password no configured key opens stops the start, naming its source.
        let (_, started) = restarted(w, master_keys(&[("m9", 9)], "m9")).await;
        let refused = started.unwrap_err().to_string();
        for named in ["sources", source.as_str(), "m2", "secrets.keys"] {
            assert!(refused.contains(named), "{named} in {refused}");
        }
        std::fs::remove_dir_all(&here).unwrap();
    }
}
