//! Why a transaction stopped: an answer for the client, or a database error.
//! Transactions return it so a rule broken half-way rolls everything back.

use coffer_error::ApiError;
use coffer_store::StoreError;
use diesel::result::Error as DieselError;

pub enum Failure {
    Api(ApiError),
    Db(DieselError),
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::Api(e)
    }
}

impl From<DieselError> for Failure {
    fn from(e: DieselError) -> Self {
        Failure::Db(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Api(ApiError::from(e))
    }
}

impl From<Failure> for ApiError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Api(e) => e,
            Failure::Db(e) => ApiError::from(StoreError::from(e)),
        }
    }
}

/// For values that cannot fail in practice (a uuid Coffer wrote, JSON of its own types).
pub fn internal(e: impl std::fmt::Display) -> Failure {
    Failure::Api(ApiError::internal(e))
}
