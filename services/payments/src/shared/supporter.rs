//! A supporter's fields and the rules they follow, free of HTTP and SQL.

use std::collections::BTreeMap;

use coffer_model::email::Email;
use coffer_model::validation::{FieldError, Violations};
use serde::{Deserialize, Deserializer, Serialize};

/// Calls `$m!` with every personal field of a supporter, so the list is written once.
macro_rules! personal_fields {
    ($m:ident) => {
        $m! {
            raw, raw_name, legal_entity, honorific_prefix, salutation, first_name, middle_name,
            last_name, care_of, raw_address, street, house_number, address_addendum,
            post_office_box, postal_code, city, region_level_1, region_level_2, country, email,
            phone, birth_day, birth_month, birth_year, locale
        }
    };
}
pub(crate) use personal_fields;

/// Distinguishes a field left out (`None`) from one sent as null (`Some(None)`).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

macro_rules! define_input {
    ($($f:ident),*) => {
        /// A create or update request. On update a field left out is kept, and one sent as
        /// null is cleared.
        #[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
        pub struct SupporterInput {
            #[serde(default)]
            pub organisation_uuid: Option<String>,
            $(#[serde(default, deserialize_with = "present")] pub $f: Option<Option<String>>,)*
            /// Flat: numbers and booleans are kept as their text.
            #[serde(default, deserialize_with = "present")]
            #[schema(value_type = Option<std::collections::BTreeMap<String, FlatValue>>)]
            pub custom_parameters: Option<Option<serde_json::Value>>,
            #[serde(default, deserialize_with = "present")]
            #[schema(value_type = Option<Object>)]
            pub service_parameters: Option<Option<serde_json::Value>>,
        }

        /// An update request, as the API description shows it: a field left out is kept,
        /// one sent as null is cleared, and the organisation cannot be changed.
        #[derive(utoipa::ToSchema)]
        #[schema(example = json!({"email": "ada@example.org"}))]
        #[allow(dead_code)]
        pub struct SupporterChange {
            $(pub $f: Option<String>,)*
            /// Flat: numbers and booleans are kept as their text.
            #[schema(value_type = Option<std::collections::BTreeMap<String, FlatValue>>)]
            pub custom_parameters: Option<serde_json::Value>,
            #[schema(value_type = Option<Object>)]
            pub service_parameters: Option<serde_json::Value>,
        }

        /// Fields a supporter list can be sorted by.
        #[derive(utoipa::ToSchema)]
        #[allow(non_camel_case_types, dead_code)]
        pub enum SupporterSort {
            created,
            uuid,
            $($f,)*
        }

        /// A supporter as stored and as answered (fields that are not set are left out).
        #[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
        pub struct Supporter {
            pub uuid: String,
            pub organisation_uuid: String,
            pub created: i64,
            $(#[serde(skip_serializing_if = "Option::is_none")] pub $f: Option<String>,)*
            pub custom_parameters: BTreeMap<String, String>,
            #[schema(value_type = Object)]
            pub service_parameters: serde_json::Value,
        }

        impl Supporter {
            /// Applies `input` over this supporter after checking it, in `this_year` (a birth
            /// year cannot be later); every offending property is reported.
            pub fn apply(&mut self, input: SupporterInput, this_year: i32) -> Result<(), Vec<FieldError>> {
                let mut v = Violations::default();
                if let Some(Some(email)) = &input.email {
                    v.check(Email::parse_field("email", email));
                }
                check_birth_date(&mut v, self, &input, this_year);
                let custom = match input.custom_parameters {
                    Some(Some(value)) => v.check_all(flat_parameters(&value)),
                    Some(None) => Some(BTreeMap::new()),
                    None => None,
                };
                if let Some(Some(service)) = &input.service_parameters {
                    if !service.is_object() {
                        v.push(FieldError::not_valid("service_parameters", "must be an object"));
                    }
                }
                if !v.is_empty() {
                    return Err(v.into_vec());
                }
                $(if let Some(value) = input.$f { self.$f = value.filter(|s| !s.is_empty()); })*
                if let Some(custom) = custom {
                    self.custom_parameters = custom;
                }
                match input.service_parameters {
                    Some(Some(service)) => self.service_parameters = service,
                    Some(None) => self.service_parameters = serde_json::json!({}),
                    None => {}
                }
                Ok(())
            }
        }
    };
}
personal_fields!(define_input);

/// The earliest birth year a supporter may be given (docs/payments.md, "Supporters"): an
/// earlier one is a typing mistake, not a donor.
pub const EARLIEST_BIRTH_YEAR: i32 = 1900;

/// The parts of a birth date `input` sends (SPEC.md: strings), each checked alone, since a
/// supporter may give some without the others (a birthday without its year). A part sent
/// as `stored` has it is not checked again: a supporter stored before these checks reads
/// back as it was, and can be sent back whole.
fn check_birth_date(
    v: &mut Violations,
    stored: &Supporter,
    input: &SupporterInput,
    this_year: i32,
) {
    let parts = [
        (
            "birth_day",
            &input.birth_day,
            &stored.birth_day,
            1..=2,
            1..=31,
            "must be a day of the month, 1 to 31 (`7` or `07`)".to_owned(),
        ),
        (
            "birth_month",
            &input.birth_month,
            &stored.birth_month,
            1..=2,
            1..=12,
            "must be a month, 1 to 12 (`7` or `07`)".to_owned(),
        ),
        (
            "birth_year",
            &input.birth_year,
            &stored.birth_year,
            4..=4,
            EARLIEST_BIRTH_YEAR..=this_year,
            format!("must be a year of four digits, {EARLIEST_BIRTH_YEAR} to {this_year}"),
        ),
    ];
    for (property, sent, stored, digits, values, message) in parts {
        // An empty text clears the part, as it does any personal field.
        let Some(Some(raw)) = sent else { continue };
        if raw.is_empty() || stored.as_deref() == Some(raw.as_str()) {
            continue;
        }
        let holds = digits.contains(&raw.len())
            && raw.bytes().all(|b| b.is_ascii_digit())
            && raw.parse::<i32>().is_ok_and(|n| values.contains(&n));
        if !holds {
            v.push(FieldError::not_valid(property, message));
        }
    }
}

/// A custom parameter's value as a request may send it. Only its schema is used.
pub struct FlatValue;

impl utoipa::PartialSchema for FlatValue {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::String))
            .item(ObjectBuilder::new().schema_type(Type::Number))
            .item(ObjectBuilder::new().schema_type(Type::Boolean))
            .into()
    }
}

impl utoipa::ToSchema for FlatValue {}

/// Custom parameters are flat: string keys, string values (numbers and booleans are taken
/// as their text), nothing nested.
pub fn flat_parameters(
    value: &serde_json::Value,
) -> Result<BTreeMap<String, String>, Vec<FieldError>> {
    let Some(object) = value.as_object() else {
        return Err(vec![FieldError::not_valid(
            "custom_parameters",
            "must be an object",
        )]);
    };
    let mut v = Violations::default();
    let mut flat = BTreeMap::new();
    for (key, item) in object {
        let property = format!("custom_parameters.{key}");
        match item {
            serde_json::Value::String(s) => {
                flat.insert(key.clone(), s.clone());
            }
            serde_json::Value::Number(n) => {
                flat.insert(key.clone(), n.to_string());
            }
            serde_json::Value::Bool(b) => {
                flat.insert(key.clone(), b.to_string());
            }
            _ => v.push(FieldError::not_valid(
                &property,
                "must be a string; nesting is not allowed",
            )),
        }
    }
    v.finish(flat)
}

/// Fields a supporter list can be sorted by.
pub fn sortable(field: &str) -> bool {
    macro_rules! check {
        ($($f:ident),*) => { matches!(field, "created" | "uuid" $(| stringify!($f))*) };
    }
    personal_fields!(check)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn input(json: serde_json::Value) -> SupporterInput {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn absent_keeps_null_clears() {
        let mut s = Supporter {
            first_name: Some("Ada".into()),
            last_name: Some("L".into()),
            ..Default::default()
        };
        s.apply(
            input(serde_json::json!({"last_name": null, "city": "Bern"})),
            2026,
        )
        .unwrap();
        assert_eq!(s.first_name.as_deref(), Some("Ada"));
        assert_eq!(s.last_name, None);
        assert_eq!(s.city.as_deref(), Some("Bern"));
    }

    #[test]
    fn bad_email_and_nested_parameters_are_named() {
        let mut s = Supporter::default();
        let errors = s
            .apply(input(serde_json::json!({"email": "nope", "custom_parameters": {"a": {"b": 1}, "c": "ok"}})), 2026)
            .unwrap_err();
        let props: Vec<_> = errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(props, ["email", "custom_parameters.a"]);
        assert_eq!(s, Supporter::default(), "nothing applied on error");
    }

    #[test]
    fn birth_date_parts_are_a_day_a_month_and_a_year_gone_by() {
        let refused = |json: serde_json::Value| {
            let errors = Supporter::default().apply(input(json), 2026).unwrap_err();
            errors.into_iter().map(|e| e.property).collect::<Vec<_>>()
        };
        let mut s = Supporter::default();
        let fine = serde_json::json!({"birth_day": "7", "birth_month": "07", "birth_year": "2026"});
        s.apply(input(fine), 2026).unwrap();
        assert_eq!(s.birth_day.as_deref(), Some("7"), "kept as written");
        assert_eq!(s.birth_month.as_deref(), Some("07"));
        for (day, month, year) in [
            ("32", "13", "2027"),
            ("0", "0", "1899"),
            ("007", " 1", "99"),
        ] {
            let json =
                serde_json::json!({"birth_day": day, "birth_month": month, "birth_year": year});
            assert_eq!(
                refused(json),
                ["birth_day", "birth_month", "birth_year"],
                "{day} {month} {year}"
            );
        }
        assert_eq!(
            refused(serde_json::json!({"birth_day": "\u{0667}", "birth_year": "+199"})),
            ["birth_day", "birth_year"]
        );
        // Stored before the checks: sent back as it is, it is not checked again.
        let mut old = Supporter {
            birth_day: Some("32".into()),
            ..Supporter::default()
        };
        old.apply(
            input(serde_json::json!({"birth_day": "32", "city": "Bern"})),
            2026,
        )
        .unwrap();
        assert_eq!(old.birth_day.as_deref(), Some("32"));
        let errors = old
            .apply(input(serde_json::json!({"birth_day": "33"})), 2026)
            .unwrap_err();
        assert_eq!(errors[0].property, "birth_day");
        old.apply(input(serde_json::json!({"birth_day": ""})), 2026)
            .unwrap();
        assert_eq!(old.birth_day, None, "an empty text clears");
    }

    #[test]
    fn sortable_fields() {
        assert!(sortable("last_name") && sortable("created") && !sortable("custom_parameters"));
    }
}
