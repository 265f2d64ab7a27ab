//! Reading a browser-POST policy document as S3 accepts it: an `expiration` and a list of
//! conditions, each either `{"field": "value"}` or `["eq" | "starts-with", "$field", "value"]`
//! or `["content-length-range", min, max]`.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Policy {
    pub(crate) expiration: OffsetDateTime,
    pub(crate) conditions: Vec<Condition>,
}

/// Field names are kept lowercase without the `$`: S3 matches them case-insensitively.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Condition {
    Eq { field: String, value: String },
    StartsWith { field: String, prefix: String },
    ContentLengthRange { min: u64, max: u64 },
}

impl Condition {
    /// The form field this condition admits, if it names one.
    pub(crate) fn field(&self) -> Option<&str> {
        match self {
            Self::Eq { field, .. } | Self::StartsWith { field, .. } => Some(field),
            Self::ContentLengthRange { .. } => None,
        }
    }
}

// Written back in the array form, so a refusal quotes the condition that failed.
impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let json = match self {
            Self::Eq { field, value } => serde_json::json!(["eq", format!("${field}"), value]),
            Self::StartsWith { field, prefix } => {
                serde_json::json!(["starts-with", format!("${field}"), prefix])
            }
            Self::ContentLengthRange { min, max } => {
                serde_json::json!(["content-length-range", min, max])
            }
        };
        write!(f, "{json}")
    }
}

#[derive(Deserialize)]
struct Document {
    expiration: String,
    conditions: Vec<Value>,
}

/// Decodes the `Policy` form field; the error says what is wrong with it.
pub(crate) fn decode(policy_base64: &str) -> Result<Policy, String> {
    let json = STANDARD
        .decode(policy_base64.trim())
        .map_err(|err| format!("the policy is not base64: {err}"))?;
    let document: Document = serde_json::from_slice(&json)
        .map_err(|err| format!("the policy is not a JSON policy document: {err}"))?;
    let expiration = OffsetDateTime::parse(&document.expiration, &Rfc3339).map_err(|err| {
        format!(
            "the policy expiration {:?} is not an ISO 8601 date and time: {err}",
            document.expiration
        )
    })?;
    let conditions = document
        .conditions
        .iter()
        .map(condition)
        .collect::<Result<_, _>>()?;
    Ok(Policy {
        expiration,
        conditions,
    })
}

fn condition(value: &Value) -> Result<Condition, String> {
    let invalid = || format!("the policy condition {value} is not one S3 accepts");
    match value {
        Value::Object(map) => {
            let mut entries = map.iter();
            match (entries.next(), entries.next()) {
                (Some((field, Value::String(expected))), None) => Ok(Condition::Eq {
                    field: field.to_ascii_lowercase(),
                    value: expected.clone(),
                }),
                _ => Err(invalid()),
            }
        }
        Value::Array(items) => match items.as_slice() {
            [
                Value::String(op),
                Value::String(field),
                Value::String(operand),
            ] => {
                let field = field
                    .strip_prefix('$')
                    .filter(|name| !name.is_empty())
                    .ok_or_else(invalid)?
                    .to_ascii_lowercase();
                match op.to_ascii_lowercase().as_str() {
                    "eq" => Ok(Condition::Eq {
                        field,
                        value: operand.clone(),
                    }),
                    "starts-with" => Ok(Condition::StartsWith {
                        field,
                        prefix: operand.clone(),
                    }),
                    _ => Err(invalid()),
                }
            }
            [Value::String(op), min, max] if op.eq_ignore_ascii_case("content-length-range") => {
                match (min.as_u64(), max.as_u64()) {
                    (Some(min), Some(max)) if min <= max => {
                        Ok(Condition::ContentLengthRange { min, max })
                    }
                    _ => Err(invalid()),
                }
            }
            _ => Err(invalid()),
        },
        _ => Err(invalid()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use time::macros::datetime;

    fn encode(document: Value) -> String {
        STANDARD.encode(document.to_string())
    }

    #[test]
    fn both_forms_of_conditions_are_read() {
        let policy = decode(&encode(json!({
            "expiration": "2026-11-26T09:20:00.000Z",
            "conditions": [
                {"bucket": "b"},
                ["eq", "$Key", "k/1"],
                ["starts-with", "$Content-Type", "text/"],
                ["content-length-range", 1, 1048576],
                {"X-Amz-Meta-Name": "a.csv"}
            ]
        })))
        .unwrap();
        assert_eq!(policy.expiration, datetime!(2026-11-26 09:20:00 UTC));
        assert_eq!(
            policy.conditions,
            [
                Condition::Eq {
                    field: "bucket".into(),
                    value: "b".into()
                },
                Condition::Eq {
                    field: "key".into(),
                    value: "k/1".into()
                },
                Condition::StartsWith {
                    field: "content-type".into(),
                    prefix: "text/".into()
                },
                Condition::ContentLengthRange {
                    min: 1,
                    max: 1_048_576
                },
                Condition::Eq {
                    field: "x-amz-meta-name".into(),
                    value: "a.csv".into()
                },
            ]
        );
        assert_eq!(
            policy.conditions[2].to_string(),
            r#"["starts-with","$content-type","text/"]"#
        );
    }

    #[test]
    fn malformed_documents_are_refused() {
        for document in [
            json!({"expiration": "tomorrow", "conditions": []}),
            json!({"conditions": []}),
            json!({"expiration": "2026-11-26T09:20:00Z", "conditions": [["eq", "key", "x"]]}),
            json!({"expiration": "2026-11-26T09:20:00Z", "conditions": [["matches", "$key", "x"]]}),
            json!({"expiration": "2026-11-26T09:20:00Z", "conditions": [["content-length-range", 5, 1]]}),
            json!({"expiration": "2026-11-26T09:20:00Z", "conditions": [["content-length-range", "1", 9]]}),
            json!({"expiration": "2026-11-26T09:20:00Z", "conditions": [{"a": "1", "b": "2"}]}),
            json!({"expiration": "2026-11-26T09:20:00Z", "conditions": [{"a": 1}]}),
            json!({"expiration": "2026-11-26T09:20:00Z", "conditions": ["key"]}),
        ] {
            assert!(decode(&encode(document.clone())).is_err(), "{document}");
        }
        assert!(decode("not base64!").is_err());
        assert!(decode(&STANDARD.encode("not json")).is_err());
    }
}
