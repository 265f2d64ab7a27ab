//! `sort` in either form RaiseNow's clients send (Apteco's plugin both): a list of
//! `{field, field_type, direction}` entries, whose first orders the hits, or an object of
//! one field to its direction, `{"uuid": "desc"}`. Pure.

use coffer_model::validation::FieldError;
use serde_json::Value;
use utoipa::PartialSchema;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};

use crate::query::{self, Field, Kind};
use crate::request::{Sort, SortSpec};

/// The most entries a `sort` list may hold; only the first orders the hits.
pub const MAX_SORT_ENTRIES: usize = 10;

/// `sort` as the description shows it: the list, or the object of one field.
pub(crate) fn sort_schema() -> Schema {
    let entries = ArrayBuilder::new()
        .items(SortSpec::schema())
        .max_items(Some(MAX_SORT_ENTRIES));
    let by_field = ObjectBuilder::new()
        .additional_properties(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(["asc", "desc"])),
        ))
        .min_properties(Some(1))
        .max_properties(Some(1));
    OneOfBuilder::new()
        .item(entries)
        .item(by_field)
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .description(Some(
            "A list of `{field, field_type, direction}` whose first entry orders the hits, \
             or an object of one field to its direction (`{\"uuid\": \"desc\"}`); uuid \
             breaks ties. Newest first by default.",
        ))
        .into()
}

/// The entry that orders the hits, with the properties its parts were read at.
struct Entry {
    field: String,
    direction: Option<String>,
    field_at: String,
    direction_at: String,
}

/// The first entry of `sort`, every entry's shape checked.
fn sort_entry(sent: Option<&Value>, errors: &mut Vec<FieldError>) -> Option<Entry> {
    let string = |v: Option<&Value>| match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(()),
    };
    match sent {
        None | Some(Value::Null) => None,
        Some(Value::Array(entries)) => {
            if entries.len() > MAX_SORT_ENTRIES {
                errors.push(FieldError::not_valid(
                    "sort",
                    format!("must hold at most {MAX_SORT_ENTRIES} entries"),
                ));
                return None;
            }
            let mut first = None;
            for (i, entry) in entries.iter().enumerate() {
                let at = format!("sort[{i}]");
                let Some(entry) = entry.as_object() else {
                    errors.push(FieldError::not_valid(
                        &at,
                        "must be an object of field, field_type and direction",
                    ));
                    continue;
                };
                let field = match entry.get("field") {
                    Some(Value::String(f)) => Some(f.clone()),
                    None | Some(Value::Null) => {
                        errors.push(FieldError::not_null(format!("{at}.field")));
                        None
                    }
                    Some(_) => {
                        errors.push(FieldError::not_valid(
                            format!("{at}.field"),
                            "must be a string",
                        ));
                        None
                    }
                };
                // field_type is RaiseNow's hint (string, numeric, boolean); the field's own
                // kind decides here, so any text is taken.
                if string(entry.get("field_type")).is_err() {
                    errors.push(FieldError::not_valid(
                        format!("{at}.field_type"),
                        "must be a string",
                    ));
                }
                let direction = string(entry.get("direction")).unwrap_or_else(|()| {
                    errors.push(FieldError::not_valid(
                        format!("{at}.direction"),
                        "must be asc or desc",
                    ));
                    None
                });
                if i == 0 {
                    first = field.map(|field| Entry {
                        field,
                        direction,
                        field_at: format!("{at}.field"),
                        direction_at: format!("{at}.direction"),
                    });
                }
            }
            first
        }
        Some(Value::Object(by_field)) => {
            let mut fields = by_field.iter();
            match (fields.next(), fields.next()) {
                // A JSON object's keys have no order (RFC 8259), so one of several cannot be
                // the first.
                (Some((field, direction)), None) => {
                    let at = format!("sort.{field}");
                    match direction {
                        Value::String(d) => Some(Entry {
                            field: field.clone(),
                            direction: Some(d.clone()),
                            field_at: at.clone(),
                            direction_at: at,
                        }),
                        _ => {
                            errors.push(FieldError::not_valid(at, "must be asc or desc"));
                            None
                        }
                    }
                }
                _ => {
                    errors.push(FieldError::not_valid(
                        "sort",
                        "must name exactly one field, or be a list of entries",
                    ));
                    None
                }
            }
        }
        Some(_) => {
            errors.push(FieldError::not_valid(
                "sort",
                "must be a list of {field, direction} or an object of one field to asc or desc",
            ));
            None
        }
    }
}

pub(crate) fn sort(
    schema: &query::Schema,
    sent: Option<&Value>,
    errors: &mut Vec<FieldError>,
) -> Sort {
    let newest = Sort {
        column: "created",
        kind: Kind::Int,
        descending: true,
    };
    let Some(Entry {
        field,
        direction,
        field_at,
        direction_at,
    }) = sort_entry(sent, errors)
    else {
        return newest;
    };
    let descending = match direction.as_deref() {
        None | Some("desc") => true,
        Some("asc") => false,
        Some(_) => {
            errors.push(FieldError::invalid_choice(
                direction_at,
                "must be asc or desc",
            ));
            true
        }
    };
    match schema.field(&field) {
        Some(Field::Column { name, kind }) => Sort {
            column: name,
            kind,
            descending,
        },
        _ => {
            errors.push(FieldError::not_valid(
                field_at,
                format!("cannot sort by {field:?}"),
            ));
            Sort {
                descending,
                ..newest
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::query::tests::SCHEMA;
    use serde_json::json;

    fn read(sent: Value) -> Result<Sort, Vec<String>> {
        let mut errors = Vec::new();
        let sorted = sort(&SCHEMA, Some(&sent), &mut errors);
        if errors.is_empty() {
            Ok(sorted)
        } else {
            Err(errors.into_iter().map(|e| e.property).collect())
        }
    }

    #[test]
    fn a_list_with_field_type_or_an_object_of_one_field() {
        let listed =
            read(json!([{"field": "created", "field_type": "numeric", "direction": "asc"}]))
                .unwrap();
        assert_eq!((listed.column, listed.descending), ("created", false));
        let by_field = read(json!({"amount.value": "asc"})).unwrap();
        assert_eq!(
            (by_field.column, by_field.descending),
            ("amount_value", false)
        );
        let desc = read(json!({"status": "desc"})).unwrap();
        assert_eq!((desc.column, desc.descending), ("status", true));
        assert_eq!(read(json!([])).unwrap().column, "created");
        let mut errors = Vec::new();
        assert_eq!(sort(&SCHEMA, None, &mut errors).column, "created");
    }

    #[test]
    fn every_bad_part_is_named() {
        assert_eq!(read(json!({"status": "up"})).unwrap_err(), ["sort.status"]);
        assert_eq!(read(json!({"status": 1})).unwrap_err(), ["sort.status"]);
        assert_eq!(
            read(json!({"password": "asc"})).unwrap_err(),
            ["sort.password"]
        );
        assert_eq!(
            read(json!({"status": "asc", "created": "desc"})).unwrap_err(),
            ["sort"]
        );
        assert_eq!(read(json!({})).unwrap_err(), ["sort"]);
        assert_eq!(read(json!("created")).unwrap_err(), ["sort"]);
        assert_eq!(
            read(json!([{"field": 5, "field_type": 1}, {"direction": "asc"}, 3])).unwrap_err(),
            [
                "sort[0].field",
                "sort[0].field_type",
                "sort[1].field",
                "sort[2]"
            ]
        );
        assert_eq!(
            read(json!([{"field": "status", "direction": "down"}])).unwrap_err(),
            ["sort[0].direction"]
        );
        let many: Vec<Value> = (0..=MAX_SORT_ENTRIES)
            .map(|_| json!({"field": "created"}))
            .collect();
        assert_eq!(read(json!(many)).unwrap_err(), ["sort"]);
    }
}
