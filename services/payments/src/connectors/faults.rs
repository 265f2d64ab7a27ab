//! Faults the test provider can be told to show, so that tests prove each step of a charge
//! survives a failure there: before the call, after it (before Coffer commits the
//! outcome), and after the commit.

use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The call fails before it reaches the provider: nothing is charged.
    FailBeforeCall,
    /// The provider charges, then never answers: Coffer's timeout decides.
    HangAfterCall,
    /// The provider charges, then the process dies before Coffer commits the outcome.
    AbortAfterCall,
    /// The process dies right after Coffer commits the outcome.
    AbortAfterCommit,
}

impl Fault {
    /// The setting's spelling (`payments.test_psp_fault`).
    pub fn parse(name: &str) -> Option<Fault> {
        match name {
            "fail_before_call" => Some(Fault::FailBeforeCall),
            "hang_after_call" => Some(Fault::HangAfterCall),
            "abort_after_call" => Some(Fault::AbortAfterCall),
            "abort_after_commit" => Some(Fault::AbortAfterCommit),
            _ => None,
        }
    }
}

/// The fault in force, shared between the provider and whoever sets it (a test).
#[derive(Debug, Clone, Default)]
pub struct Faults(Arc<Mutex<Option<Fault>>>);

impl Faults {
    pub fn new(fault: Option<Fault>) -> Self {
        Faults(Arc::new(Mutex::new(fault)))
    }

    pub fn set(&self, fault: Option<Fault>) {
        if let Ok(mut f) = self.0.lock() {
            *f = fault;
        }
    }

    pub fn get(&self) -> Option<Fault> {
        self.0.lock().ok().and_then(|f| *f)
    }
}
