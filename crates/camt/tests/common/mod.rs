//! Where the third-party sample files live, shared by the sample and golden tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

/// `shared/testdata/camt` beside the repository, or where `COFFER_TEST_CAMT_SAMPLES` says
/// (`make test` sets it from scripts/testdata.sh, for clones elsewhere). A missing folder
/// fails the test: a suite that silently reads nothing would pass while checking nothing.
pub fn testdata() -> PathBuf {
    let dir = std::env::var_os("COFFER_TEST_CAMT_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata/camt")
        });
    assert!(
        dir.is_dir(),
        "camt test data missing: expected {} (shared/testdata/camt next to the repository)",
        dir.display()
    );
    dir
}

/// Every `*.xml` below `dir`, sorted so failures read the same on every run.
pub fn xml_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "xml") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

pub fn sample(relative: &str) -> coffer_camt::Document {
    let bytes = std::fs::read(testdata().join(relative)).unwrap();
    coffer_camt::parse(&bytes, &coffer_camt::Limits::default())
        .unwrap_or_else(|err| panic!("{relative}: {err}"))
}
