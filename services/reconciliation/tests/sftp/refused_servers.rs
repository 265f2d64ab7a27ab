//! Servers a source must not read from: one that shows another host key than the source
//! was given, and one at a private address the settings do not allow.

use super::*;

coffer_testkit::backend_tests! {
    async fn a_server_with_another_host_key_is_refused_before_anything_is_read(backend) {
        let Start { s, w, org, account, token, debit, blueprint, here, directory, .. } = start(backend).await;
        let file = collected(&format!("MITM-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "notice.xml", &file, None);

        // A real ed25519 key, but not the server's.
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            (&s.host, &directory, &s.client_public_key), json!({"password": s.password})).await;
        let shown = until(&w, &format!("/reconciliation/sources/{source}"), &token,
            |s| s.get("poll_error").is_some()).await;
        let error = shown["poll_error"].as_str().unwrap();
        assert!(error.contains("host key") && error.contains("does not match"), "{error}");
        assert!(shown["polled"].is_i64(), "{shown}");
        // Tried again at the next poll, with the same answer; nothing read or moved.
        let again = a_whole_poll(&w, &token, &source).await;
        assert_eq!(again["poll_error"], shown["poll_error"]);
        assert!(here.join("notice.xml").exists());
        assert!(!here.join("processed").exists());
        assert!(reports(&w.app, &token, &account).await.is_empty());
        std::fs::remove_dir_all(&here).unwrap();
    }

    async fn a_private_address_is_refused_unless_allowed(backend) {
        let s = server();
        let secrets = Secrets::ephemeral().unwrap();
        // No subnet allowed: only public addresses.
        let w = sftp_world(backend, "", &secrets).await;
        let (org, account, token, debit, blueprint) = direct_debits(&w).await;
        let (here, directory) = own_directory(&s);
        let file = collected(&format!("G-{directory}"), debit["end_to_end_id"].as_str().unwrap(), "42.00", &today(&w));
        drop_file(&here, "notice.xml", &file, None);
        let source = sftp_source(&w, &token, (org, &account, &blueprint),
            ("127.0.0.1", &directory, &s.host_key), json!({"password": s.password})).await;
        let shown = until(&w, &format!("/reconciliation/sources/{source}"), &token,
            |s| s.get("poll_error").is_some()).await;
        let error = shown["poll_error"].as_str().unwrap();
        assert!(error.contains("127.0.0.1 is not a public address and is not allowed"), "{error}");
        // A name is judged by what it resolves to.
        let named = sftp_source(&w, &token, (org, &account, &blueprint),
            ("localhost", &directory, &s.host_key), json!({"password": s.password})).await;
        let shown = until(&w, &format!("/reconciliation/sources/{named}"), &token,
            |s| s.get("poll_error").is_some()).await;
        assert!(shown["poll_error"].as_str().unwrap().contains("not a public address"), "{shown}");
        assert!(here.join("notice.xml").exists());
        assert!(reports(&w.app, &token, &account).await.is_empty());
        std::fs::remove_dir_all(&here).unwrap();
    }
}
