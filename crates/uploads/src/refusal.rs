//! Why the standalone store turns an upload away, in S3's terms: each refusal has the error
//! code and HTTP status S3 answers with, so a client written against S3 reads Coffer's
//! answers the same way.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UploadRefusal {
    #[error("the form has no field named {field:?}")]
    MissingField { field: &'static str },
    #[error("the form field {field:?} is given more than once")]
    DuplicateField { field: String },
    #[error("the signing algorithm {algorithm:?} is not supported; use AWS4-HMAC-SHA256")]
    UnsupportedAlgorithm { algorithm: String },
    #[error("the credential {credential:?} is malformed: {reason}")]
    MalformedCredential {
        credential: String,
        reason: &'static str,
    },
    #[error("the access key {access_key:?} is not known to this store")]
    UnknownAccessKey { access_key: String },
    #[error("the security token is missing, unexpected or wrong")]
    InvalidToken,
    #[error("the signature does not match the policy signed with this store's key")]
    SignatureDoesNotMatch,
    #[error("invalid policy document: {reason}")]
    InvalidPolicyDocument { reason: String },
    #[error("invalid according to policy: the policy expired at {expiration}")]
    Expired { expiration: String },
    #[error("invalid according to policy: the condition {condition} failed")]
    ConditionFailed { condition: String },
    #[error("invalid according to policy: the form field {field:?} is not covered by the policy")]
    ExtraField { field: String },
    #[error("the file has {size} bytes; the policy asks for at least {min}")]
    EntityTooSmall { size: u64, min: u64 },
    #[error("the file has {size} bytes; the policy allows at most {max}")]
    EntityTooLarge { size: u64, max: u64 },
    #[error("the key {key:?} is longer than 1024 bytes")]
    KeyTooLong { key: String },
    #[error("the key {key:?} is not a plain relative path: {reason}")]
    UnsafeKey { key: String, reason: &'static str },
}

impl UploadRefusal {
    /// S3's error code (the `<Code>` of its XML error body).
    pub fn code(&self) -> &'static str {
        match self {
            Self::MissingField { .. }
            | Self::DuplicateField { .. }
            | Self::UnsupportedAlgorithm { .. }
            | Self::MalformedCredential { .. }
            | Self::UnsafeKey { .. } => "InvalidArgument",
            Self::UnknownAccessKey { .. } => "InvalidAccessKeyId",
            Self::InvalidToken => "InvalidToken",
            Self::SignatureDoesNotMatch => "SignatureDoesNotMatch",
            Self::InvalidPolicyDocument { .. } => "InvalidPolicyDocument",
            Self::Expired { .. } | Self::ConditionFailed { .. } | Self::ExtraField { .. } => {
                "AccessDenied"
            }
            Self::EntityTooSmall { .. } => "EntityTooSmall",
            Self::EntityTooLarge { .. } => "EntityTooLarge",
            Self::KeyTooLong { .. } => "KeyTooLongError",
        }
    }

    /// The HTTP status S3 sends with that code.
    pub fn status(&self) -> u16 {
        match self.code() {
            "AccessDenied" | "InvalidAccessKeyId" | "SignatureDoesNotMatch" => 403,
            _ => 400,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorisation_failures_are_403_and_malformed_requests_400() {
        assert_eq!(UploadRefusal::SignatureDoesNotMatch.status(), 403);
        assert_eq!(
            UploadRefusal::Expired {
                expiration: "x".into()
            }
            .code(),
            "AccessDenied"
        );
        assert_eq!(
            UploadRefusal::EntityTooLarge { size: 2, max: 1 }.status(),
            400
        );
        assert_eq!(UploadRefusal::MissingField { field: "key" }.status(), 400);
    }
}
