//! How long reading one file may take. roxmltree cannot be interrupted, so the time is
//! checked between the steps of reading and between entries: each step is linear in the
//! part it reads once the pre-scan has bounded attributes and namespaces.

use std::time::{Duration, Instant};

use crate::error::CamtError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Instant,
    allowed: Duration,
}

impl Deadline {
    /// `allowed` from now.
    pub fn after(allowed: Duration) -> Self {
        Self {
            at: Instant::now() + allowed,
            allowed,
        }
    }

    /// [`CamtError::TooSlow`] once the time is up.
    pub fn check(&self) -> Result<(), CamtError> {
        if Instant::now() > self.at {
            Err(CamtError::TooSlow {
                allowed: self.allowed,
            })
        } else {
            Ok(())
        }
    }
}

/// Checks an optional deadline.
pub(crate) fn check(deadline: Option<&Deadline>) -> Result<(), CamtError> {
    deadline.map_or(Ok(()), Deadline::check)
}
