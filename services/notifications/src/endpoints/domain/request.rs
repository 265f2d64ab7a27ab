//! The bodies of Create, Replace and Update Webhook Endpoint, checked field by field; every
//! problem is named by its property. Pure: the organisation and account are checked
//! against the caller and the directory by the commands.

use coffer_model::fields::FieldReader;
use coffer_model::validation::FieldError;
use serde_json::Value;

use super::{address, key};

/// Alias and username: a label, not a document.
const MAX_LABEL: usize = 255;
const MAX_PASSWORD: usize = 1_024;

/// Every field a body may carry; `None` when it was left out, `Some(None)` when it was
/// sent as null (or blank) to clear it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields {
    pub organisation_uuid: Option<String>,
    pub account_uuid: Option<Option<String>>,
    pub alias: Option<Option<String>>,
    pub endpoint: Option<String>,
    pub username: Option<Option<String>>,
    pub password: Option<Option<String>>,
    pub hmac_key: Option<String>,
    pub enabled: Option<bool>,
}

pub fn read(body: &Value) -> Result<Fields, Vec<FieldError>> {
    let mut r = FieldReader::of(body)?;
    let mut f = Fields {
        organisation_uuid: r.uuid("organisation_uuid").flatten(),
        account_uuid: r.uuid("account_uuid"),
        alias: r.text("alias", MAX_LABEL),
        username: r.text("username", MAX_LABEL),
        password: r.text("password", MAX_PASSWORD),
        enabled: r.flag("enabled"),
        ..Fields::default()
    };
    // Bounded by the body's size; address.rs gives the limit's message.
    let endpoint = r.text("endpoint", usize::MAX);
    let hmac_key = r.text("hmac_key", 1_024);
    let mut errors = r.errors;
    match endpoint {
        None => {}
        Some(None) => errors.push(FieldError::not_blank("endpoint")),
        Some(Some(raw)) => match address::endpoint(&raw) {
            Ok(url) => f.endpoint = Some(url.to_string()),
            Err(e) => errors.push(e),
        },
    }
    // A blank or null key asks for nothing: the endpoint keeps (or is given) one of Coffer's.
    if let Some(Some(raw)) = hmac_key {
        match key::check(&raw) {
            Ok(()) => f.hmac_key = Some(raw),
            Err(e) => errors.push(e),
        }
    }
    // HTTP Basic cannot carry a colon in the user name.
    if let Some(Some(name)) = &f.username
        && name.contains(':')
    {
        errors.push(FieldError::not_valid(
            "username",
            "must not contain a colon",
        ));
    }
    if errors.is_empty() {
        Ok(f)
    } else {
        Err(errors)
    }
}

/// What Create and Replace cannot do without.
pub fn require_endpoint(f: &Fields) -> Result<(), Vec<FieldError>> {
    match f.endpoint {
        Some(_) => Ok(()),
        None => Err(vec![FieldError::not_blank("endpoint")]),
    }
}

// The bodies as the API description shows them; `read` above is what checks them.

/// The body of Create and Replace Webhook Endpoint.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"organisation_uuid": "5a0e9d0c-6f0b-4f0c-9c55-0b9f1d8e3a21", "alias": "CRM", "endpoint": "https://crm.example.org/coffer-hooks", "username": "coffer", "password": "s3cr3t-basic-auth"}))]
#[allow(dead_code)]
pub struct EndpointBody {
    /// On create, left out: the caller's organisation when its token reaches exactly one
    /// (else 400). Cannot change afterwards.
    #[schema(format = Uuid)]
    organisation_uuid: Option<String>,
    /// One of the organisation's accounts, when the endpoint is for one account.
    #[schema(format = Uuid)]
    account_uuid: Option<String>,
    #[schema(max_length = 255)]
    alias: Option<String>,
    /// An https URL with a host, at most 2,048 characters.
    endpoint: String,
    /// With `password`, sent as HTTP Basic authentication; no colon.
    #[schema(max_length = 255)]
    username: Option<String>,
    /// Never shown again; kept encrypted.
    #[schema(max_length = 1024)]
    password: Option<String>,
    /// 16 to 256 printable characters; Coffer makes one (`whsec_...`) when left out, and a
    /// new one rotates the key (both sign for 24 hours).
    hmac_key: Option<String>,
    /// Turns deliveries on or off (true by default).
    enabled: Option<bool>,
}

/// The body of Update Webhook Endpoint: a field left out is kept, and null clears it.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"alias": "CRM (production)"}))]
#[allow(dead_code)]
pub struct EndpointChange {
    #[schema(format = Uuid)]
    account_uuid: Option<String>,
    #[schema(max_length = 255)]
    alias: Option<String>,
    endpoint: Option<String>,
    #[schema(max_length = 255)]
    username: Option<String>,
    #[schema(max_length = 1024)]
    password: Option<String>,
    hmac_key: Option<String>,
    enabled: Option<bool>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_bad_field_is_named_and_blank_clears() {
        let f = read(&json!({"alias": " ", "password": null, "endpoint": "https://x.example"}))
            .unwrap();
        assert_eq!(f.alias, Some(None));
        assert_eq!(f.password, Some(None));
        assert_eq!(f.endpoint.as_deref(), Some("https://x.example/"));
        let errors = read(&json!({
            "organisation_uuid": "nope", "account_uuid": 7, "alias": "a".repeat(256),
            "username": "a:b", "endpoint": "http://x.example", "hmac_key": "short",
            "enabled": "yes"
        }))
        .unwrap_err();
        let properties: Vec<&str> = errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(
            properties,
            [
                "organisation_uuid",
                "account_uuid",
                "alias",
                "enabled",
                "endpoint",
                "hmac_key",
                "username"
            ]
        );
        assert_eq!(
            read(&json!({"endpoint": ""})).unwrap_err()[0].code,
            "error.validation.not_blank"
        );
        assert_eq!(
            require_endpoint(&read(&json!({})).unwrap()).unwrap_err()[0].property,
            "endpoint"
        );
    }
}
