//! What a subscription search may name. RaiseNow documents `$term` on `status`,
//! `organisation_uuid` and `custom_parameters.*`; `subscription_status`, the response's
//! name for the status, works too.

use coffer_search::{Field, Kind, Schema, custom_parameter};

pub const SUBSCRIPTIONS: Schema = Schema {
    table: "subscriptions",
    field,
    never_empty: &[],
};

fn field(path: &str) -> Option<Field> {
    let column = |name, kind| Some(Field::Column { name, kind });
    match path {
        "uuid" => column("uuid", Kind::Text),
        "organisation_uuid" => column("organisation_uuid", Kind::Text),
        "account_uuid" => column("account_uuid", Kind::Text),
        "supporter_uuid" => column("supporter_uuid", Kind::Text),
        "payment_source_uuid" => column("payment_source_uuid", Kind::Text),
        "subscription_plan.uuid" | "subscription_plan_uuid" => column("plan_uuid", Kind::Text),
        "payment_provider" => column("payment_provider", Kind::Text),
        "payment_method" => column("payment_method", Kind::Text),
        "status" | "subscription_status" => column("status", Kind::Text),
        "currency" => column("currency", Kind::Text),
        "amount" => column("amount", Kind::Int),
        "timezone" => column("timezone", Kind::Text),
        "recurring_interval" => column("recurring_interval", Kind::Text),
        "created" => column("created", Kind::Int),
        "next_due_date" => column("next_due_date", Kind::Int),
        "ended_at" => column("ended_at", Kind::Int),
        "test_mode" => column("test_mode", Kind::Bool),
        _ => custom_parameter(path),
    }
}
