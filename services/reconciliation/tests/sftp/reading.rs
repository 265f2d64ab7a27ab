//! A bank file dropped on the server is read once and settles its direct debit, signing in
//! with a password or a private key, and a listed name is reported without its control
//! characters.

use super::*;

coffer_testkit::backend_tests! {
    async fn a_file_dropped_on_the_server_is_read_once_and_settles_its_direct_debit(backend) {
        let Start { w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let file = collected(&format!("SFTP-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "notice.xml", &file, None);
        // Neither hidden files nor directories are bank files.
        drop_file(&here, ".notes", b"not a bank file", None);
        std::fs::create_dir_all(here.join("archive")).unwrap();

        let (source, report) = first_report(&w, &token, (org, &account, &blueprint), &directory).await;
        assert_eq!(report["status"], "processed", "{report}");
        assert_eq!(report["source_uuid"], source.as_str());
        assert_eq!(report["file_name"], "notice.xml");
        assert_eq!(report["created_count"], 1);
        let settled = until(&w, &format!("/payments/{}", debit["uuid"].as_str().unwrap()), &token,
            |p| p["status"] == "succeeded").await;
        assert_eq!(settled["value_date"], today(&w));

        // Moved to processed/ (made by the poll) once its report was written.
        until_exists(&here.join("processed").join("notice.xml")).await;
        assert!(!here.join("notice.xml").exists());
        assert!(here.join(".notes").exists() && here.join("archive").is_dir());
        let polled = a_whole_poll(&w, &token, &source).await;
        assert!(polled.get("poll_error").is_none(), "{polled}");
        assert_eq!(polled["sftp"]["auth"], "password");
        assert!(polled["sftp"].get("password").is_none());
        assert_eq!(reports(&w.app, &token, &account).await.len(), 1);
        // Left behind only when the test failed, to look at.
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_file_name_listed_with_control_characters_is_reported_without_them(backend) {
        let Start { w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let file = collected(&format!("CTRL-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        // A server may list any name but one with a slash or a NUL: an escape sequence, a
        // bell, a tab and a line break are names too, and no name a report should show.
        let listed = "notice\u{1b}[31m\u{7}\t\r\nday.xml";
        drop_file(&here, listed, &file, None);

        let (source, report) = first_report(&w, &token, (org, &account, &blueprint), &directory).await;
        assert_eq!(report["status"], "processed", "{report}");
        assert_eq!(report["source_uuid"], source.as_str());
        assert_eq!(report["file_name"], "notice[31mday.xml", "{report}");
        let (_, again) = w.get(&format!("/reconciliation/reports/{}", report["uuid"].as_str().unwrap()), &token).await;
        assert_eq!(again["file_name"], "notice[31mday.xml", "{again}");
        // On the server the file keeps its name: it is moved under it.
        until_exists(&here.join("processed").join(listed)).await;
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_source_signs_in_with_its_private_key(backend) {
        let Start { s, w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let file = collected(&format!("KEY-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "camt054.xml", &file, None);

        let key = std::fs::read_to_string(&s.client_key).unwrap();
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.host_key), json!({"private_key": key})).await;
        second_poll(&w, &token, &source).await;
        let found = until(&w, &format!("/reconciliation/reports?account_uuid={account}"), &token,
            |r| r.as_array().is_some_and(|a| !a.is_empty())).await;
        assert_eq!(found[0]["status"], "processed", "{}", found[0]);
        assert_eq!(found[0]["source_uuid"], source.as_str());
        until_exists(&here.join("processed").join("camt054.xml")).await;
        let (_, shown) = w.get(&format!("/reconciliation/sources/{source}"), &token).await;
        assert_eq!(shown["sftp"]["auth"], "private_key");
        assert!(shown.get("poll_error").is_none(), "{shown}");
        std::fs::remove_dir_all(&here).unwrap();
    }
}
