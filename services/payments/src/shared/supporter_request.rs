//! The supporter a payment or payment source request carries, read as a supporter is.

use coffer_http::body::parse_value_at;
use coffer_model::ids::parse_uuid;
use coffer_model::validation::FieldError;
use serde_json::json;

use super::request::Checked;
use super::supporter::{Supporter, SupporterInput};
use crate::error::PaymentsError;

/// The supporter a payment request carries (SPEC.md's PaymentSupporter), read whether or
/// not it is to be created: each field is checked as a supporter's is, every fault named
/// `supporter.<field>`, and the payment keeps its known properties only. What else the
/// request sends there is dropped (API.md: unknown properties are ignored), so nothing put
/// there by mistake, a card number say, is kept or shown.
pub(crate) struct RequestSupporter {
    /// What the payment keeps and shows.
    pub snapshot: Option<serde_json::Value>,
    /// An existing supporter it names by uuid, which must be the organisation's.
    pub named: Option<String>,
    /// The supporter to create with it (`create_supporter`).
    pub created: Option<Supporter>,
}

pub(crate) fn supporter_of(
    checked: &Checked,
    organisation: &str,
    now: i64,
) -> Result<RequestSupporter, PaymentsError> {
    let Some(raw) = checked.supporter.as_ref().and_then(|s| s.as_object()) else {
        if checked.create_supporter {
            return Err(PaymentsError::invalid_all(vec![FieldError::not_null(
                "supporter",
            )]));
        }
        return Ok(RequestSupporter {
            snapshot: None,
            named: None,
            created: None,
        });
    };
    let mut errors = Vec::new();
    // Fields of the payment's supporter that a supporter record does not have.
    let named = match raw.get("uuid") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(text)) => parse_uuid("supporter.uuid", text)
            .map_err(|e| errors.push(e))
            .ok()
            .map(|u| u.to_string()),
        Some(_) => {
            errors.push(FieldError::not_valid("supporter.uuid", "must be a UUID"));
            None
        }
    };
    let permission = match raw.get("email_permission") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Bool(given)) => Some(*given),
        Some(_) => {
            errors.push(FieldError::not_valid(
                "supporter.email_permission",
                "must be true or false",
            ));
            None
        }
    };
    let mut fields = raw.clone();
    for kept_apart in [
        "uuid",
        "email_permission",
        "organisation_uuid",
        "service_parameters",
    ] {
        fields.remove(kept_apart);
    }
    let mut supporter = Supporter {
        uuid: uuid::Uuid::new_v4().to_string(),
        organisation_uuid: organisation.to_owned(),
        created: now,
        service_parameters: json!({}),
        ..Supporter::default()
    };
    let this_year = time::OffsetDateTime::from_unix_timestamp(now)
        .map_err(PaymentsError::internal)?
        .year();
    match parse_value_at::<SupporterInput>("supporter", fields.into()) {
        Ok(input) => {
            if let Err(faults) = supporter.apply(input, this_year) {
                errors.extend(faults.into_iter().map(|mut e| {
                    e.property = format!("supporter.{}", e.property);
                    e
                }));
            }
        }
        Err(faults) => errors.extend(faults),
    }
    if !errors.is_empty() {
        return Err(PaymentsError::invalid_all(errors));
    }
    let mut snapshot = serde_json::to_value(&supporter).map_err(PaymentsError::internal)?;
    if let Some(shown) = snapshot.as_object_mut() {
        for record_only in ["uuid", "organisation_uuid", "created", "service_parameters"] {
            shown.remove(record_only);
        }
        if !raw.contains_key("custom_parameters") {
            shown.remove("custom_parameters");
        }
        // A supporter created with the payment is the one it names, whatever uuid was sent.
        let shown_uuid = if checked.create_supporter {
            Some(&supporter.uuid)
        } else {
            named.as_ref()
        };
        if let Some(uuid) = shown_uuid {
            shown.insert("uuid".into(), json!(uuid));
        }
        if let Some(permission) = permission {
            shown.insert("email_permission".into(), json!(permission));
        }
    }
    let created = checked.create_supporter.then_some(supporter);
    Ok(RequestSupporter {
        snapshot: Some(snapshot),
        // A supporter created with the payment is the one it names.
        named: named.filter(|_| created.is_none()),
        created,
    })
}
