//! What a supporter search may name: every stored personal field, by its API name.

use coffer_search::{Field, Kind, Schema, custom_parameter};

pub const SUPPORTERS: Schema = Schema {
    table: "supporters",
    field,
    never_empty: &[],
};

/// The text columns a supporter search may name; each is also its API name.
const TEXT: [&str; 27] = [
    "uuid",
    "organisation_uuid",
    "raw",
    "raw_name",
    "legal_entity",
    "honorific_prefix",
    "salutation",
    "first_name",
    "middle_name",
    "last_name",
    "care_of",
    "raw_address",
    "street",
    "house_number",
    "address_addendum",
    "post_office_box",
    "postal_code",
    "city",
    "region_level_1",
    "region_level_2",
    "country",
    "email",
    "phone",
    "birth_day",
    "birth_month",
    "birth_year",
    "locale",
];

fn field(path: &str) -> Option<Field> {
    if path == "created" {
        return Some(Field::Column {
            name: "created",
            kind: Kind::Int,
        });
    }
    match TEXT.iter().find(|name| **name == path) {
        Some(name) => Some(Field::Column {
            name,
            kind: Kind::Text,
        }),
        None => custom_parameter(path),
    }
}
