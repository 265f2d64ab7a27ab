//! The query parser's own cases, and the schema every test of the crate searches.
#![allow(clippy::unwrap_used)]

use super::*;
use serde_json::json;

fn field(path: &str) -> Option<Field> {
    let column = |name, kind| Some(Field::Column { name, kind });
    match path {
        "status" => column("status", Kind::Text),
        "payment_method" => column("payment_method", Kind::Text),
        "amount.value" => column("amount_value", Kind::Int),
        "created" => column("created", Kind::Int),
        "test_mode" => column("test_mode", Kind::Bool),
        _ => custom_parameter(path),
    }
}

pub(crate) const SCHEMA: Schema = Schema {
    table: "payments",
    field,
    never_empty: &[],
};

fn parse(property: &str, query: &Value) -> Result<Filter, FieldError> {
    super::parse(&SCHEMA, property, query)
}

#[test]
fn term_is_an_exact_match_and_terms_any_of_several() {
    let term = parse("query", &json!({"$term": {"status": "succeeded"}})).unwrap();
    let matched = parse("query", &json!({"$match": {"status": "succeeded"}})).unwrap();
    assert_eq!(term, matched);
    let terms = parse("query", &json!({"$terms": {"status": ["a", "b"]}})).unwrap();
    assert_eq!(terms.conditions(), 2);
}

#[test]
fn size_and_depth_are_bounded() {
    let many: Vec<Value> = (0..=MAX_CONDITIONS)
        .map(|i| json!({"$match": {"status": i.to_string()}}))
        .collect();
    let e = parse("query", &json!({ "$or": many })).unwrap_err();
    assert_eq!(e.property, "query");
    let mut deep = json!({"$match": {"status": "x"}});
    for _ in 0..MAX_DEPTH {
        deep = json!({ "$not": deep });
    }
    assert_eq!(parse("query", &deep).unwrap_err().property, "query");
    let mut ok = json!({"$match": {"status": "x"}});
    for _ in 0..MAX_DEPTH - 2 {
        ok = json!({ "$and": [ok] });
    }
    assert!(parse("query", &ok).is_ok());
}

#[test]
fn unknown_fields_and_operators_are_named() {
    let e = parse("query", &json!({"$match": {"password": "x"}})).unwrap_err();
    assert_eq!(e.property, "query.$match.password");
    let e = parse(
        "query",
        &json!({"$or": [{"$match": {"status": "x"}}, {"$near": {}}]}),
    )
    .unwrap_err();
    assert_eq!(e.property, "query.$or[1].$near");
    let e = parse("query", &json!({"$range": {"created": {"around": 1}}})).unwrap_err();
    assert_eq!(e.property, "query.$range.created.around");
    assert!(field("custom_parameters.a'b").is_none());
    let e = parse("query", &json!({"$terms": {"status": [{"a": 1}]}})).unwrap_err();
    assert_eq!(e.property, "query.$terms.status[0]");
    assert!(field("custom_parameters.campaign").is_some());
}

/// Every fault of `query`, by property.
fn faults(query: Value) -> Vec<String> {
    check(&SCHEMA, "query", &query)
        .unwrap_err()
        .into_iter()
        .map(|e| e.property)
        .collect()
}

#[test]
fn each_value_is_checked_against_its_field_where_it_stands() {
    assert_eq!(
        faults(json!({"$match": {"amount.value": "abc"}})),
        ["query.$match.amount.value"]
    );
    assert_eq!(
        faults(json!({"$match": {"test_mode": "yes"}})),
        ["query.$match.test_mode"]
    );
    assert_eq!(
        faults(json!({"$match": {"status": null}})),
        ["query.$match.status"]
    );
    assert_eq!(
        faults(json!({"$terms": {"amount.value": [1, "two", null]}})),
        [
            "query.$terms.amount.value[1]",
            "query.$terms.amount.value[2]"
        ]
    );
    assert_eq!(
        faults(json!({"$range": {"status": {"gte": null, "lt": [1]}}})),
        ["query.$range.status.gte", "query.$range.status.lt"]
    );
    assert!(
        check(
            &SCHEMA,
            "query",
            &json!({"$match": {"amount.value": "12", "test_mode": false}})
        )
        .is_ok()
    );
}

#[test]
fn every_fault_is_named_not_only_the_first() {
    assert_eq!(
        faults(json!({"$and": [
            {"$match": {"amount.value": "a"}},
            {"$match": {"test_mode": "x"}},
            {"$match": {"nope": 1}}
        ]})),
        [
            "query.$and[0].$match.amount.value",
            "query.$and[1].$match.test_mode",
            "query.$and[2].$match.nope"
        ]
    );
    assert_eq!(
        faults(
            json!({"$or": [{"$near": 1}, 3], "$not": {"$exists": 5}, "$range": {"created": {"gt": "x", "lt": "y"}}})
        ),
        [
            "query.$not.$exists",
            "query.$or[0].$near",
            "query.$or[1]",
            "query.$range.created.gt",
            "query.$range.created.lt"
        ]
    );
}

#[test]
fn the_faults_named_are_bounded() {
    let many: serde_json::Map<String, Value> = (0..MAX_ERRORS * 3)
        .map(|i| (format!("custom_parameters.k{i}"), json!([i])))
        .collect();
    assert_eq!(faults(json!({ "$match": many })).len(), MAX_ERRORS);
}
