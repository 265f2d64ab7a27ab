//! The data directory holds every secret of a standalone install: the master keys, the
//! databases with identity's sealed signing keys, the card fingerprint key and the demo
//! client's secret. It is the owner's alone: 0700, and every file in it 0600, also when an
//! earlier version or a loose umask left them open.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// Files made by anything in the process (SQLite's, a library's, a future feature's) are
/// then owner-only too, whatever umask Coffer was started with. The explicit modes below
/// do not rely on it.
pub fn restrict_umask() {
    #[cfg(unix)]
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
}

/// Creates `dir` (owner-only) or tightens it and everything in it; returns its canonical
/// path.
pub fn prepare(dir: &Path) -> anyhow::Result<PathBuf> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .with_context(|| format!("cannot create the data directory {}", dir.display()))?;
    let dir = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve the data directory {}", dir.display()))?;
    tighten(&dir)?;
    Ok(dir)
}

/// Takes group and other access away from `path` and, for a directory, from what is in
/// it. Symbolic links are left alone: what they point to is not Coffer's to change.
#[cfg(unix)]
fn tighten(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mode = meta.permissions().mode() & 0o7777;
    let wanted = if meta.is_dir() {
        0o700
    } else if meta.is_file() {
        mode & 0o600
    } else {
        return Ok(());
    };
    if mode != wanted && (meta.is_dir() || mode & 0o077 != 0) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(wanted))
            .with_context(|| format!("cannot make {} owner-only", path.display()))?;
    }
    if meta.is_dir() {
        for entry in
            std::fs::read_dir(path).with_context(|| format!("cannot list {}", path.display()))?
        {
            tighten(&entry?.path())?;
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn tighten(_: &Path) -> anyhow::Result<()> {
    Ok(())
}

/// Writes `body` to `path` owner-only, by way of a temporary file renamed over it, so a
/// reader never sees half a file and a crash never leaves an empty one.
pub fn write_private(path: &Path, body: &[u8]) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    {
        use std::io::Write;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options
            .open(&tmp)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        file.write_all(body)
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write {}", tmp.display()))?;
    }
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    fn set_mode(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn an_existing_loose_directory_is_tightened() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        std::fs::create_dir_all(dir.join("files")).unwrap();
        for (file, m) in [
            ("identity.db", 0o644),
            ("files/upload.xml", 0o666),
            ("ro", 0o444),
        ] {
            std::fs::write(dir.join(file), b"x").unwrap();
            set_mode(&dir.join(file), m);
        }
        set_mode(&dir, 0o755);
        set_mode(&dir.join("files"), 0o777);
        let outside = root.path().join("outside");
        std::fs::write(&outside, b"x").unwrap();
        set_mode(&outside, 0o644);
        std::os::unix::fs::symlink(&outside, dir.join("link")).unwrap();

        let prepared = prepare(&dir).unwrap();
        assert_eq!(prepared, dir.canonicalize().unwrap());
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("files")), 0o700);
        assert_eq!(mode(&dir.join("identity.db")), 0o600);
        assert_eq!(mode(&dir.join("files/upload.xml")), 0o600);
        assert_eq!(mode(&dir.join("ro")), 0o400, "never loosened");
        assert_eq!(mode(&outside), 0o644, "a link's target is not touched");
    }

    #[test]
    fn private_files_are_owner_only_and_replace_looser_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credentials.json");
        std::fs::write(&path, b"old").unwrap();
        set_mode(&path, 0o644);
        write_private(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(mode(&path), 0o600);
    }
}
