//! `sort` in every form RaiseNow's clients send (entries.rs): every entry is checked, and
//! the first orders the hits, uuid breaking ties. Pure.

mod entries;

use coffer_model::validation::FieldError;
use serde::Deserialize;
use serde_json::Value;
use utoipa::PartialSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};

pub use self::entries::MAX_SORT_ENTRIES;
use self::entries::{Entry, entries};
use crate::filter::{Field, Kind};
use crate::query;

// One entry of the list form of `sort`, as the description shows it (entries.rs reads
// every form). A plain comment: utoipa would put a doc comment into the description.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct SortSpec {
    /// A field of the objects searched, as the query names it.
    pub field: String,
    /// Sent by RaiseNow's clients; the field's own kind decides.
    #[allow(dead_code)]
    pub field_type: Option<String>,
    /// `asc` or `desc` (the default), in any case.
    #[schema(pattern = "^([aA][sS][cC]|[dD][eE][sS][cC])$")]
    pub direction: Option<String>,
}

/// The order of hits: a column, then uuid to break ties.
#[derive(Debug, Clone)]
pub struct Sort {
    pub column: &'static str,
    pub kind: Kind,
    pub descending: bool,
    /// The column is never NULL (query::Schema), so no rule for NULLs is written.
    pub never_null: bool,
}

/// `asc` or `desc` in any case, as the description writes it.
pub(crate) const DIRECTION: &str = "^([aA][sS][cC]|[dD][eE][sS][cC])$";

/// One field to its direction: `"asc"`, or Elasticsearch's `{"order": "asc"}`.
fn one_field() -> ObjectBuilder {
    let direction = || {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(DIRECTION))
    };
    let options = ObjectBuilder::new()
        .property("order", direction())
        .required("order")
        .property(
            "missing",
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
                .enum_values(Some([Some("_last"), None])),
        );
    ObjectBuilder::new()
        .additional_properties(Some(RefOr::T(Schema::OneOf(
            OneOfBuilder::new().item(direction()).item(options).build(),
        ))))
        .min_properties(Some(1))
        .max_properties(Some(1))
}

/// `sort` as the description shows it: the list, or the object of one field.
pub(crate) fn sort_schema() -> Schema {
    let entries = ArrayBuilder::new()
        .items(
            OneOfBuilder::new()
                .item(SortSpec::schema())
                .item(one_field()),
        )
        .max_items(Some(MAX_SORT_ENTRIES));
    OneOfBuilder::new()
        .item(entries)
        .item(one_field())
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .description(Some(
            "A list of `{field, field_type, direction}` whose first entry orders the hits \
             (every entry is checked), or an object of one field to its direction \
             (`{\"uuid\": \"desc\"}`), the direction also as Elasticsearch writes it \
             (`{\"created\": {\"order\": \"asc\"}}`, alone or as an entry of the list); \
             `asc` or `desc` in any case. uuid breaks ties, and hits without a value in the \
             field come last either way. Newest first by default.",
        ))
        .into()
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
        never_null: true,
    };
    let mut first = None;
    for Entry {
        field,
        field_at,
        descending,
    } in entries(sent, errors)
    {
        let sorted = match schema.field(&field) {
            Some(Field::Column { name, kind }) => Some(Sort {
                column: name,
                kind,
                descending: descending.unwrap_or(true),
                never_null: matches!(name, "uuid" | "organisation_uuid" | "created")
                    || schema.never_empty.contains(&name),
            }),
            _ => {
                errors.push(FieldError::not_valid(
                    field_at,
                    format!("cannot sort by {field:?}"),
                ));
                None
            }
        };
        first.get_or_insert(sorted);
    }
    first.flatten().unwrap_or(newest)
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
            let mut named: Vec<String> = errors.into_iter().map(|e| e.property).collect();
            named.sort_unstable();
            Err(named)
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

    #[test]
    fn every_entry_is_checked_though_the_first_orders() {
        assert_eq!(
            read(json!([{"field": "created"}, {"field": "nope"}, {"field": "status", "direction": "up"}]))
                .unwrap_err(),
            ["sort[1].field", "sort[2].direction"]
        );
        let sorted =
            read(json!([{"field": "status", "direction": "asc"}, {"field": "created"}])).unwrap();
        assert_eq!((sorted.column, sorted.descending), ("status", false));
    }

    #[test]
    fn directions_in_any_case_and_elasticsearchs_order() {
        for (sent, column, descending) in [
            (
                json!([{"field": "created", "direction": "ASC"}]),
                "created",
                false,
            ),
            (json!({"amount.value": "Desc"}), "amount_value", true),
            (json!({"created": {"order": "asc"}}), "created", false),
            (
                json!([{"created": {"order": "desc", "missing": "_last", "unmapped_type": "long"}}]),
                "created",
                true,
            ),
            (
                json!([{"status": "asc"}, {"created": {"order": "DESC"}}]),
                "status",
                false,
            ),
        ] {
            let sorted = read(sent.clone()).unwrap();
            assert_eq!(
                (sorted.column, sorted.descending),
                (column, descending),
                "{sent}"
            );
        }
        assert_eq!(
            read(json!({"created": {"order": "up", "missing": "_first"}})).unwrap_err(),
            ["sort.created.missing", "sort.created.order"]
        );
        assert_eq!(
            read(json!([{"created": {}}, {"nope": {"order": "asc"}}])).unwrap_err(),
            ["sort[0].created.order", "sort[1].nope"]
        );
    }
}
