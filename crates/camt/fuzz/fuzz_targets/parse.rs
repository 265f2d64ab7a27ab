//! Any bytes at all must come back as a Document or a CamtError, never a panic, a hang or
//! a stack overflow: uploads are untrusted.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = coffer_camt::parse(data, &coffer_camt::Limits::default());
});
