//! A SQLite database the Store opens is readable by its owner only (src/sqlite_file.rs),
//! the file SQLite creates beside it included.

#![cfg(unix)]
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;

use diesel::connection::SimpleConnection;

use coffer_store::{PoolOptions, Store, StoreError, db_run};

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn database_files_are_owner_only_new_or_old() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.db");
    let old = dir.path().join("old.db");
    std::fs::write(&old, b"").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o666)).unwrap();
    for path in [&fresh, &old] {
        let store = Store::connect(
            &format!("sqlite://{}", path.display()),
            &PoolOptions::default(),
        )
        .unwrap();
        store
            .run(|db| {
                db_run!(db: { db.batch_execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)") })
                    .map_err(StoreError::from)
            })
            .await
            .unwrap();
        let wal = std::path::PathBuf::from(format!("{}-wal", path.display()));
        let shm = std::path::PathBuf::from(format!("{}-shm", path.display()));
        for file in [path.to_path_buf(), wal, shm] {
            assert!(file.exists(), "{}", file.display());
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
    }
}
