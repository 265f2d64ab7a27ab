//! Why an idempotent transaction failed, kept apart from the refusal it becomes, so the
//! callers can tell a key taken meanwhile (a unique violation) from any other failure.

use coffer_error::ApiError;
use coffer_store::StoreError;
use diesel::result::Error as DieselError;

/// Why an idempotent transaction failed: the effect itself, or storing its response.
pub(super) enum Failure<E> {
    Effect(E),
    Store(DieselError),
    Pool(StoreError),
    Sealing(ApiError),
}

impl<E> From<DieselError> for Failure<E> {
    fn from(e: DieselError) -> Self {
        Failure::Store(e)
    }
}

impl<E> From<StoreError> for Failure<E> {
    fn from(e: StoreError) -> Self {
        Failure::Pool(e)
    }
}

impl<E: Into<ApiError>> Failure<E> {
    pub(super) fn into_api(self) -> ApiError {
        match self {
            Failure::Effect(e) => e.into(),
            Failure::Store(e) => ApiError::from(StoreError::from(e)),
            Failure::Pool(e) => ApiError::from(e),
            Failure::Sealing(e) => e,
        }
    }
}
