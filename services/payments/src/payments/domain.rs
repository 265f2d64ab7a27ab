//! A payment's rules that need neither HTTP nor the database.

use serde_json::{Map, Value};

use super::record::PaymentStatus;

/// Why a payment in `status` cannot be cancelled: only a pending one can, and a succeeded
/// one is refunded instead.
pub fn not_cancellable(status: PaymentStatus) -> String {
    let hint = if status == PaymentStatus::Succeeded {
        "; refund it instead"
    } else {
        ""
    };
    format!("Only a pending payment can be cancelled; this one is {status}{hint}")
}

/// The custom parameters after a change: `incoming` replaces `current`, or with `merge`
/// goes over it, a key set to null removing it.
pub fn merged_parameters(current: &Value, incoming: Map<String, Value>, merge: bool) -> Value {
    let mut next = if merge {
        current.as_object().cloned().unwrap_or_default()
    } else {
        Map::new()
    };
    for (key, value) in incoming {
        if merge && value.is_null() {
            next.remove(&key);
        } else {
            next.insert(key, value);
        }
    }
    Value::Object(next)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_merge_keeps_removes_and_adds_a_replace_starts_afresh() {
        let current = json!({"a": 1, "b": 2});
        let incoming = json!({"a": null, "c": 3}).as_object().cloned().unwrap();
        assert_eq!(
            merged_parameters(&current, incoming.clone(), true),
            json!({"b": 2, "c": 3})
        );
        assert_eq!(
            merged_parameters(&current, incoming, false),
            json!({"a": null, "c": 3})
        );
    }

    #[test]
    fn a_succeeded_payment_is_refunded_instead() {
        assert!(not_cancellable(PaymentStatus::Succeeded).ends_with("refund it instead"));
        assert!(!not_cancellable(PaymentStatus::Failed).contains("refund"));
    }
}
