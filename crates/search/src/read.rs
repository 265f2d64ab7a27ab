//! A search body read property by property, so that each wrong one is named in Coffer's
//! words and none hides another: serde stops at the first and speaks its own ("invalid
//! type: string, expected i64"). Properties a search does not know are ignored (API.md).
//! Pure.

use coffer_model::validation::FieldError;
use serde_json::{Map, Value};

use crate::request::{MAX_SIZE, MAX_WINDOW, SearchRequest};

/// The parts of `body` that have the right type; the fault of every other is pushed onto
/// `errors`, and the part is left out as if it had not been sent.
pub(crate) fn request(body: Value, errors: &mut Vec<FieldError>) -> SearchRequest {
    let mut body = match body {
        Value::Object(body) => body,
        _ => {
            errors.push(FieldError::not_valid("", "must be a JSON object"));
            Map::new()
        }
    };
    let mut take = |name: &str| body.remove(name).filter(|v| !v.is_null());
    let (query, aggs, sort) = (take("query"), take("aggs"), take("sort"));
    let (size, from) = (take("size"), take("from"));
    let (includes, excludes, search_after) =
        (take("includes"), take("excludes"), take("search_after"));
    SearchRequest {
        query,
        aggs: aggs.and_then(|aggs| {
            let aggs = if let Value::Object(aggs) = aggs {
                Some(aggs)
            } else {
                None
            };
            or_fault(
                aggs,
                "aggs",
                "must be an object of aggregations by name",
                errors,
            )
        }),
        sort,
        size: size.and_then(|size| whole(&size, "size", MAX_SIZE, "", errors)),
        from: from.and_then(|from| {
            let beyond = "; page further with search_after";
            whole(&from, "from", MAX_WINDOW, beyond, errors)
        }),
        includes: includes.and_then(|paths| paths_at(paths, "includes", errors)),
        excludes: excludes.and_then(|paths| paths_at(paths, "excludes", errors)),
        search_after: search_after.and_then(|after| {
            let after = if let Value::Array(after) = after {
                Some(after)
            } else {
                None
            };
            let message = "must be [sort value, uuid] from last_sort_values";
            or_fault(after, "search_after", message, errors)
        }),
    }
}

/// `read`, or the fault at `property` when there is nothing read.
fn or_fault<T>(
    read: Option<T>,
    property: &str,
    message: &str,
    errors: &mut Vec<FieldError>,
) -> Option<T> {
    if read.is_none() {
        errors.push(FieldError::not_valid(property, message));
    }
    read
}

/// A whole number sent at `property`; its range is checked with the plan.
fn whole(
    sent: &Value,
    property: &str,
    max: i64,
    beyond: &str,
    errors: &mut Vec<FieldError>,
) -> Option<i64> {
    let message = format!("must be a whole number between 0 and {max}{beyond}");
    or_fault(sent.as_i64(), property, &message, errors)
}

/// A list of dotted paths at `property`, each one that is not named.
fn paths_at(sent: Value, property: &str, errors: &mut Vec<FieldError>) -> Option<Vec<String>> {
    let Value::Array(items) = sent else {
        errors.push(FieldError::not_valid(
            property,
            "must be a list of dotted paths such as amount.value",
        ));
        return None;
    };
    let mut paths = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Value::String(path) => paths.push(path),
            _ => errors.push(FieldError::not_valid(
                format!("{property}[{i}]"),
                "must be a dotted path such as amount.value",
            )),
        }
    }
    Some(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn faults(body: Value) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        request(body, &mut errors);
        errors
            .into_iter()
            .map(|e| (e.property, e.message))
            .collect()
    }

    #[test]
    fn each_wrong_property_is_named_in_coffers_words() {
        let named = faults(json!({"query": {}, "size": "x", "from": -1.5, "aggs": [],
            "includes": ["uuid", 3], "excludes": "status", "search_after": 7, "unknown": 1}));
        let properties: Vec<&str> = named.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            properties,
            [
                "aggs",
                "size",
                "from",
                "includes[1]",
                "excludes",
                "search_after"
            ]
        );
        assert_eq!(named[1].1, "must be a whole number between 0 and 10000");
        assert!(faults(json!({"query": {}, "size": null, "sort": null})).is_empty());
        assert_eq!(faults(json!([1]))[0].0, "");
    }
}
