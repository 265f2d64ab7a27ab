//! The entries of `sort` as sent, each with the properties its parts stand at: the list
//! of `{field, field_type, direction}` SPEC.md shows, the object of one field to its
//! direction (Apteco's plugin), and Elasticsearch's `{"created": {"order": "desc"}}`,
//! which RaiseNow's search passes through, alone or in the list. Directions are read
//! without regard to case. Pure.

use coffer_model::validation::FieldError;
use serde_json::{Map, Value};

/// The most entries a `sort` list may hold; only the first orders the hits.
pub const MAX_SORT_ENTRIES: usize = 10;

/// One entry: a field and, when given, whether it runs from the highest down.
pub(super) struct Entry {
    pub field: String,
    pub field_at: String,
    pub descending: Option<bool>,
}

/// `asc` or `desc` in any case, as descending or not.
fn descending(direction: &str) -> Option<bool> {
    match direction.to_ascii_lowercase().as_str() {
        "asc" => Some(false),
        "desc" => Some(true),
        _ => None,
    }
}

/// Every entry of `sent` that could be read, in order; each fault goes onto `errors`.
pub(super) fn entries(sent: Option<&Value>, errors: &mut Vec<FieldError>) -> Vec<Entry> {
    match sent {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) if list.len() > MAX_SORT_ENTRIES => {
            errors.push(FieldError::not_valid(
                "sort",
                format!("must hold at most {MAX_SORT_ENTRIES} entries"),
            ));
            Vec::new()
        }
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .filter_map(|(i, entry)| listed(&format!("sort[{i}]"), entry, errors))
            .collect(),
        Some(Value::Object(by_field)) => {
            by_one_field("sort", by_field, errors).into_iter().collect()
        }
        Some(_) => {
            errors.push(FieldError::not_valid(
                "sort",
                "must be a list of {field, direction} or an object of one field to asc or desc",
            ));
            Vec::new()
        }
    }
}

/// An entry of the list, at `at`: `{field, field_type, direction}`, or one field to its
/// direction as the object form has it.
fn listed(at: &str, entry: &Value, errors: &mut Vec<FieldError>) -> Option<Entry> {
    let Some(entry) = entry.as_object() else {
        errors.push(FieldError::not_valid(
            at,
            "must be an object of field, field_type and direction",
        ));
        return None;
    };
    // One key that is none of the list form's own is a field and its direction.
    let own = ["field", "field_type", "direction"];
    if entry.len() == 1 && !entry.keys().any(|k| own.contains(&k.as_str())) {
        return by_one_field(at, entry, errors);
    }
    let text = |part: &str, errors: &mut Vec<FieldError>| match entry.get(part) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            errors.push(FieldError::not_valid(
                format!("{at}.{part}"),
                "must be a string",
            ));
            None
        }
    };
    let field = text("field", errors);
    if entry.get("field").is_none_or(Value::is_null) {
        errors.push(FieldError::not_null(format!("{at}.field")));
    }
    // field_type is RaiseNow's hint (string, numeric, boolean); the field's own kind
    // decides here, so any text is taken.
    text("field_type", errors);
    let direction_at = format!("{at}.direction");
    let descending = text("direction", errors).and_then(|d| {
        let read = descending(&d);
        if read.is_none() {
            errors.push(FieldError::invalid_choice(
                &direction_at,
                "must be asc or desc",
            ));
        }
        read
    });
    Some(Entry {
        field: field?,
        field_at: format!("{at}.field"),
        descending,
    })
}

/// `{<field>: "asc"}` or `{<field>: {"order": "asc"}}` at `at`: exactly one field, since a
/// JSON object's keys have no order (RFC 8259) and one of several could not be the first.
fn by_one_field(
    at: &str,
    by_field: &Map<String, Value>,
    errors: &mut Vec<FieldError>,
) -> Option<Entry> {
    let mut fields = by_field.iter();
    let (Some((field, direction)), None) = (fields.next(), fields.next()) else {
        errors.push(FieldError::not_valid(
            at,
            "must name exactly one field, or be a list of entries",
        ));
        return None;
    };
    let field_at = format!("{at}.{field}");
    let descending = match direction {
        Value::String(d) => descending(d).ok_or_else(|| {
            FieldError::invalid_choice(&field_at, "must be asc or desc, or {\"order\": \"asc\"}")
        }),
        Value::Object(options) => ordered(&field_at, options, errors),
        _ => Err(FieldError::not_valid(
            &field_at,
            "must be asc or desc, or {\"order\": \"asc\"}",
        )),
    };
    let descending = descending.map_err(|e| errors.push(e)).ok()?;
    Some(Entry {
        field: field.clone(),
        field_at,
        descending: Some(descending),
    })
}

/// Elasticsearch's options of one sort field, at `at`: `order`, and `missing` where it
/// says what Coffer does anyway. Its other options (`unmapped_type`, `mode`) change
/// nothing over single values of known fields, and are ignored.
fn ordered(
    at: &str,
    options: &Map<String, Value>,
    errors: &mut Vec<FieldError>,
) -> Result<bool, FieldError> {
    match options.get("missing") {
        None | Some(Value::Null) => {}
        Some(Value::String(m)) if m == "_last" => {}
        Some(_) => errors.push(FieldError::not_valid(
            format!("{at}.missing"),
            "must be _last: hits without a value come last in either direction",
        )),
    }
    let order_at = format!("{at}.order");
    match options.get("order") {
        None | Some(Value::Null) => Err(FieldError::not_null(order_at)),
        Some(Value::String(d)) => {
            descending(d).ok_or_else(|| FieldError::invalid_choice(order_at, "must be asc or desc"))
        }
        Some(_) => Err(FieldError::invalid_choice(order_at, "must be asc or desc")),
    }
}
