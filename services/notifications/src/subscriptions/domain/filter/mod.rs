//! A subscription's filter: which of its events are delivered. It comes in two forms, both
//! read into the same [`Filter`] and never run as code:
//! - an object in the payment search's language over the event (`{"$match":
//!   {"data.payment_method": "card"}}`, with `$term`, `$terms`, `$and`, `$or`, `$not`);
//! - an expression string as clients written for other platforms send it
//!   (`event.data["payment_method"] === "card"`), read by expression.rs.
//!
//! Both are read into the tree of tree.rs; the object form by search_form.rs.
//!
//! Paths are taken from the event (`data.payment_method` is the event's `data` object's
//! `payment_method`). A path that leads nowhere reads as null.

use coffer_model::validation::FieldError;
use serde_json::Value;

mod expression;
mod search_form;
mod tree;

use tree::{AT, MAX_NODES};
pub use tree::{Filter, Operand};

/// Reads a subscription's `filter`: an object, an expression string, or null for none.
pub fn read(raw: &Value) -> Result<Option<Filter>, FieldError> {
    let filter = match raw {
        Value::Null => return Ok(None),
        Value::String(text) => expression::parse(text)?,
        Value::Object(_) => search_form::read(raw, 0)?,
        _ => {
            return Err(FieldError::not_valid(
                AT,
                "must be a search object or an expression string",
            ));
        }
    };
    if filter.nodes() > MAX_NODES {
        return Err(FieldError::not_valid(
            AT,
            format!("must have at most {MAX_NODES} conditions"),
        ));
    }
    Ok(Some(filter))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event() -> Value {
        json!({"name": "coffer.event.payment_gateway.payment.succeeded",
            "data": {"payment_method": "card", "amount": {"value": "1050", "currency": "CHF"},
                "test_mode": false, "custom_parameters": {"campaign": "winter"}}})
    }

    fn passes(filter: Value) -> bool {
        read(&filter).unwrap().unwrap().passes(&event())
    }

    #[test]
    fn the_search_form_matches_paths_of_the_event() {
        assert!(passes(json!({"$match": {"data.payment_method": "card"}})));
        assert!(!passes(json!({"$match": {"data.payment_method": "twint"}})));
        assert!(passes(
            json!({"$terms": {"data.amount.currency": ["EUR", "CHF"]}})
        ));
        assert!(passes(
            json!({"$and": [{"$term": {"data.test_mode": false}},
            {"$not": {"$match": {"data.custom_parameters.campaign": "spring"}}}]})
        ));
        assert!(passes(
            json!({"$or": [{"$match": {"data.missing": "x"}}, {"$match": {"data.missing": null}}]})
        ));
        assert_eq!(read(&Value::Null).unwrap(), None);
    }

    #[test]
    fn an_unknown_operator_a_bad_shape_or_too_much_is_named() {
        let deep = (0..40).fold(json!({"$match": {"a": 1}}), |f, _| json!({"$not": f}));
        let wide =
            json!({"$or": (0..250).map(|i| json!({"$match": {"a": i}})).collect::<Vec<_>>()});
        for bad in [
            json!({"$regex": {"data.a": "."}}),
            json!({"$match": "card"}),
            json!({"$terms": {"data.a": "card"}}),
            json!({"$and": {"$match": {}}}),
            json!({"$match": {"data..a": 1}}),
            json!(7),
            deep,
            wide,
        ] {
            assert_eq!(read(&bad).unwrap_err().property, "filter", "{bad}");
        }
    }
}
