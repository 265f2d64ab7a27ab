//! A SQLite database file is the whole database, secrets included (identity's sealed keys,
//! client digests, donors' data), so it is readable by its owner only, whatever the umask.
//!
//! SQLite creates a new database file with 0644 less the umask, and gives the -wal and -shm
//! files the database file's mode. Creating the file 0600 before SQLite opens it, and
//! tightening files left looser by an earlier version, therefore covers all three.

use std::path::Path;

use crate::StoreError;

/// Creates `path` owner-only if it does not exist, and takes group and other access away
/// from it and its companions if it does.
pub(crate) fn prepare(path: &str) -> Result<(), StoreError> {
    let file = Path::new(path);
    if let Some(parent) = file.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).map_err(|e| failed(path, &e))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(file).map_err(|e| failed(path, &e))?;
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let companion = format!("{path}{suffix}");
        owner_only(Path::new(&companion)).map_err(|e| failed(&companion, &e))?;
    }
    Ok(())
}

#[cfg(unix)]
fn owner_only(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let mode = meta.permissions().mode();
    if meta.is_file() && mode & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o700))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn owner_only(_: &Path) -> std::io::Result<()> {
    Ok(())
}

fn failed(path: &str, e: &std::io::Error) -> StoreError {
    StoreError::File(format!("{path}: {e}"))
}
