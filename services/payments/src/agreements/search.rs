//! What an agreement search may name: the view's columns by their API paths.

use coffer_search::{Field, Kind, Schema, custom_parameter};

pub const AGREEMENTS: Schema = Schema {
    table: "payment_agreements",
    field,
    never_empty: &[],
};

fn field(path: &str) -> Option<Field> {
    let column = |name, kind| Some(Field::Column { name, kind });
    match path {
        "uuid" => column("uuid", Kind::Text),
        "organisation_uuid" => column("organisation_uuid", Kind::Text),
        "account_uuid" => column("account_uuid", Kind::Text),
        "type" => column("agreement_type", Kind::Text),
        "status" => column("status", Kind::Text),
        "amount" => column("amount", Kind::Int),
        "currency" => column("currency", Kind::Text),
        "interval" => column("recurring_interval", Kind::Text),
        "payment_method" => column("payment_method", Kind::Text),
        "payment_source_uuid" => column("payment_source_uuid", Kind::Text),
        "subscription_uuid" => column("subscription_uuid", Kind::Text),
        "mandate_reference" => column("mandate_reference", Kind::Text),
        "supporter_uuid" | "supporter.uuid" => column("supporter_uuid", Kind::Text),
        "supporter.first_name" => column("supporter_first_name", Kind::Text),
        "supporter.last_name" => column("supporter_last_name", Kind::Text),
        "supporter.email" => column("supporter_email", Kind::Text),
        "test_mode" => column("test_mode", Kind::Bool),
        "created" => column("created", Kind::Int),
        _ => custom_parameter(path),
    }
}
