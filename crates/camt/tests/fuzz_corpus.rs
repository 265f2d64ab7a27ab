//! Replays the fuzzer's seeds and any crash it left behind, so inputs that once broke the
//! parser stay covered by the ordinary test run (the fuzzer itself needs cargo-fuzz).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use coffer_camt::{Limits, parse};
use std::path::{Path, PathBuf};

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn corpus_and_artifacts_never_panic() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let corpus = files_in(&fuzz.join("corpus/parse"));
    assert!(
        !corpus.is_empty(),
        "no seeds in {}",
        fuzz.join("corpus/parse").display()
    );
    let artifacts = files_in(&fuzz.join("artifacts/parse"));

    let mut read = 0;
    for path in corpus.iter().chain(&artifacts) {
        let bytes = std::fs::read(path).unwrap();
        // Either answer is fine; returning at all (no panic, no overflow) is the test.
        let outcome = std::panic::catch_unwind(|| parse(&bytes, &Limits::default()));
        match outcome {
            Ok(Ok(_)) => read += 1,
            Ok(Err(err)) => assert!(!err.to_string().is_empty()),
            Err(_) => panic!("parse panicked on {}", path.display()),
        }
    }
    // The hand-written seeds include valid documents; if none reads, the seeds rotted.
    assert!(read >= 4, "only {read} seeds parsed");
}

#[test]
fn seeds_cover_the_refusals() {
    use coffer_camt::CamtError;
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/parse");
    let outcome = |name: &str| {
        parse(
            &std::fs::read(seeds.join(name)).unwrap(),
            &Limits::default(),
        )
    };
    assert_eq!(outcome("dtd-entity.xml"), Err(CamtError::Dtd));
    assert_eq!(
        outcome("deep-nesting.xml"),
        Err(CamtError::TooDeep { limit: 64 })
    );
    assert_eq!(
        outcome("group-header-only.xml"),
        Err(CamtError::NoStatement)
    );
    assert!(matches!(
        outcome("utf16-bom.xml"),
        Err(CamtError::Encoding(_))
    ));
    assert!(matches!(
        outcome("truncated-053.xml"),
        Err(CamtError::Xml(_))
    ));
    assert!(matches!(
        outcome("bad-values.xml"),
        Err(CamtError::BadAmount { .. })
    ));
    let latin1 = outcome("latin1.xml").unwrap();
    assert_eq!(
        latin1.statements[0].account.owner_name.as_deref(),
        Some("Stiftung Zürich")
    );
    for valid in [
        "min-053.xml",
        "min-054-v8.xml",
        "wrapped-apphdr.xml",
        "prefixed-sps.xml",
    ] {
        assert!(outcome(valid).is_ok(), "{valid}: {:?}", outcome(valid));
    }
}
