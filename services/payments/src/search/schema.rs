//! What a payment search may name: the payments table's fields by their API paths.

use coffer_search::{Field, Kind, Schema, custom_parameter};

pub const PAYMENTS: Schema = Schema {
    table: "payments",
    field,
    never_empty: &[
        "account_uuid",
        "status",
        "payment_method",
        "amount_value",
        "currency",
        "test_mode",
    ],
};

fn field(path: &str) -> Option<Field> {
    let column = |name, kind| Some(Field::Column { name, kind });
    match path {
        "uuid" => column("uuid", Kind::Text),
        "organisation_uuid" => column("organisation_uuid", Kind::Text),
        "account_uuid" => column("account_uuid", Kind::Text),
        "status" => column("status", Kind::Text),
        "payment_method" => column("payment_method", Kind::Text),
        "supporter_uuid" => column("supporter_uuid", Kind::Text),
        "subscription_uuid" => column("subscription_uuid", Kind::Text),
        "amount.value" => column("amount_value", Kind::Int),
        "amount.currency" => column("currency", Kind::Text),
        "created" => column("created", Kind::Int),
        "test_mode" => column("test_mode", Kind::Bool),
        "supporter.email" => Some(Field::Json {
            column: "supporter",
            key: "email".into(),
        }),
        "supporter.first_name" => Some(Field::Json {
            column: "supporter",
            key: "first_name".into(),
        }),
        "supporter.last_name" => Some(Field::Json {
            column: "supporter",
            key: "last_name".into(),
        }),
        _ => custom_parameter(path),
    }
}
