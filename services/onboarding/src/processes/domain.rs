//! What a process request must hold, its states, and its token.

use coffer_model::email::Email;
use coffer_model::iban::Iban;
use coffer_model::text_enum;
use coffer_model::validation::{FieldError, Violations};
use serde_json::Value;
use uuid::Uuid;

pub const MAX_TEXT_CHARS: usize = 200;

text_enum! {
    /// A process's states. SPEC.md shows `pending`; Coffer adds `completed` (executed or
    /// connected). Expiry is not a state: `expired` is computed against the clock.
    pub enum ProcessStatus {
        Pending => "pending",
        Completed => "completed",
    }
}

impl ProcessStatus {
    /// The record's `label`: the state as a person reads it.
    pub fn label(self) -> &'static str {
        match self {
            ProcessStatus::Pending => "Pending",
            ProcessStatus::Completed => "Completed",
        }
    }
}

/// A create request checked; the request itself is kept as `initialisation_data`.
#[derive(Debug, Clone)]
pub struct CreateRequest {
    pub external_id: String,
    pub configuration_uuid: Uuid,
    pub user_email: Email,
    pub user_locale: Option<String>,
}

fn text<'a>(v: &mut Violations, body: &'a Value, path: &str, required: bool) -> Option<&'a str> {
    let mut at = body;
    for part in path.split('.') {
        at = &at[part];
    }
    match at {
        Value::String(s) if s.trim().is_empty() && required => {
            v.push(FieldError::not_blank(path));
            None
        }
        Value::String(s) if s.chars().count() > MAX_TEXT_CHARS => {
            v.push(FieldError::not_valid(
                path,
                format!("must be at most {MAX_TEXT_CHARS} characters"),
            ));
            None
        }
        Value::String(s) => Some(s),
        Value::Null if required => {
            v.push(FieldError::not_null(path));
            None
        }
        Value::Null => None,
        _ => {
            v.push(FieldError::not_valid(path, "must be a string"));
            None
        }
    }
}

const ADDRESS_FIELDS: [(&str, bool); 5] = [
    ("address_line1", true),
    ("address_line2", false),
    ("postal_code", true),
    ("city", true),
    ("country", true),
];

/// Checks SPEC.md's create request, naming every fault by its path.
pub fn check_create(body: &Value) -> Result<CreateRequest, Vec<FieldError>> {
    let mut v = Violations::new();
    if !body.is_object() {
        return Err(vec![FieldError::not_valid("", "must be a JSON object")]);
    }
    let external_id = text(&mut v, body, "external_id", true).map(str::to_owned);
    let configuration = text(&mut v, body, "onboarding_configuration_uuid", true).and_then(|raw| {
        v.check(coffer_model::ids::parse_uuid(
            "onboarding_configuration_uuid",
            raw,
        ))
    });
    let email = text(&mut v, body, "user.email", true)
        .and_then(|raw| v.check(Email::parse_field("user.email", raw)));
    text(&mut v, body, "user.first_name", true);
    text(&mut v, body, "user.last_name", true);
    let locale = text(&mut v, body, "user.locale", false).map(primary_locale);
    if let Some(Some(bad)) = locale.as_ref().map(|l| l.as_ref().err()) {
        v.push(FieldError::invalid_choice("user.locale", bad.clone()));
    }
    text(&mut v, body, "organisation.name", true);
    if let Some(mcc) = text(&mut v, body, "organisation.merchant_category_code", false)
        && (mcc.len() != 4 || !mcc.bytes().all(|b| b.is_ascii_digit()))
    {
        v.push(FieldError::not_valid(
            "organisation.merchant_category_code",
            "must be four digits",
        ));
    }
    for address in ["main_address", "billing_address"] {
        for (field, required) in ADDRESS_FIELDS {
            let path = format!("organisation.{address}.{field}");
            if let Some(value) = text(&mut v, body, &path, required)
                && field == "country"
            {
                v.check(coffer_model::country::CountryCode::parse_field(
                    &path, value,
                ));
            }
        }
    }
    if !body["organisation"]["billing_information"].is_null() {
        if let Some(iban) = text(&mut v, body, "organisation.billing_information.iban", true) {
            v.check(Iban::parse_field(
                "organisation.billing_information.iban",
                iban,
            ));
        }
        text(
            &mut v,
            body,
            "organisation.billing_information.bank_name",
            false,
        );
        text(
            &mut v,
            body,
            "organisation.billing_information.account_holder",
            true,
        );
    }
    match (external_id, configuration, email) {
        (Some(external_id), Some(configuration_uuid), Some(user_email)) if v.is_empty() => {
            Ok(CreateRequest {
                external_id,
                configuration_uuid,
                user_email,
                user_locale: locale.and_then(Result::ok),
            })
        }
        _ => Err(v.into_vec()),
    }
}

/// `de`, `de-CH` and `de_CH` are German: the login page and users speak by language.
fn primary_locale(raw: &str) -> Result<String, String> {
    let lang = raw
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if crate::configurations::domain::LOCALES.contains(&lang.as_str()) {
        Ok(lang)
    } else {
        Err("must be en, de, fr or it (a territory may follow)".into())
    }
}

/// A new token: 256 random bits, base64url.
pub fn new_token() -> Option<String> {
    coffer_secrets::random_token().ok()
}

/// How a token is looked up.
pub fn token_digest(token: &str) -> String {
    coffer_secrets::sha256_hex(token)
}

/// The uuids an execution makes, chosen once and kept.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Planned {
    pub organisation_uuid: Uuid,
    pub accounts: Vec<(String, Uuid)>,
    pub user_uuid: Uuid,
}

impl Planned {
    pub fn new(labels: &[String]) -> Self {
        Planned {
            organisation_uuid: Uuid::new_v4(),
            accounts: labels.iter().map(|l| (l.clone(), Uuid::new_v4())).collect(),
            user_uuid: Uuid::new_v4(),
        }
    }
}

/// identity's onboarding request for a process's data and plan.
pub fn onboarding_request(
    data: &Value,
    plan: &Planned,
    password: Option<&str>,
    default_locale: &str,
) -> Value {
    let org = &data["organisation"];
    let user = &data["user"];
    let name = format!(
        "{} {}",
        user["first_name"].as_str().unwrap_or("").trim(),
        user["last_name"].as_str().unwrap_or("").trim()
    );
    let locale = user["locale"]
        .as_str()
        .and_then(|l| primary_locale(l).ok())
        .unwrap_or_else(|| default_locale.to_owned());
    let address = |a: &Value| {
        serde_json::json!({
            "address_line1": a["address_line1"],
            "address_line2": a["address_line2"].as_str().unwrap_or(""),
            "postal_code": a["postal_code"],
            "city": a["city"],
            "country": a["country"],
        })
    };
    let billing = &org["billing_information"];
    serde_json::json!({
        "organisation": {
            "uuid": plan.organisation_uuid,
            "name": org["name"],
            "merchant_category_code": org["merchant_category_code"],
            "locale": Value::Null,
            "main_address": address(&org["main_address"]),
            "billing_address": address(&org["billing_address"]),
            "billing_information": if billing.is_null() { Value::Null } else {
                serde_json::json!({
                    "iban": billing["iban"],
                    "bank_name": billing["bank_name"].as_str().unwrap_or(""),
                    "account_holder": billing["account_holder"],
                })
            },
        },
        "accounts": plan.accounts.iter().map(|(label, uuid)| serde_json::json!({"uuid": uuid, "label": label})).collect::<Vec<_>>(),
        "user": {
            "uuid": plan.user_uuid,
            "email": user["email"],
            "name": name,
            "locale": locale,
            "password": password,
        },
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    pub fn request() -> Value {
        let address = json!({"address_line1": "Bahnhofstrasse 1", "address_line2": "", "postal_code": "8001", "city": "Zürich", "country": "CH"});
        json!({
            "external_id": "crm-42",
            "onboarding_configuration_uuid": "6f1c0e8e-2d6b-4c55-9a39-2b8f1e1f0a77",
            "user": {"email": "ann@example.org", "first_name": "Ann", "last_name": "Example", "locale": "de_CH"},
            "organisation": {"name": "Alpine Aid", "merchant_category_code": "8398",
                "main_address": address, "billing_address": address,
                "billing_information": {"iban": "CH93 0076 2011 6238 5295 7", "bank_name": "Bank", "account_holder": "Alpine Aid"}},
        })
    }

    #[test]
    fn a_full_request_passes() {
        let ok = check_create(&request()).unwrap();
        assert_eq!(ok.user_locale.as_deref(), Some("de"));
    }

    #[test]
    fn every_fault_is_named_by_its_path() {
        let mut body = request();
        body["user"]["email"] = json!("nope");
        body["organisation"]["main_address"]["city"] = json!("");
        body["organisation"]["main_address"]["country"] = json!("Atlantis");
        body["organisation"]
            .as_object_mut()
            .unwrap()
            .remove("billing_address");
        body.as_object_mut().unwrap().remove("external_id");
        let errors = check_create(&body).unwrap_err();
        let props: Vec<&str> = errors.iter().map(|e| e.property.as_str()).collect();
        assert!(props.contains(&"external_id"), "{props:?}");
        assert!(props.contains(&"user.email"));
        assert!(props.contains(&"organisation.main_address.city"));
        assert!(props.contains(&"organisation.main_address.country"));
        assert!(props.contains(&"organisation.billing_address.address_line1"));
    }
}
