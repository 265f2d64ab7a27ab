//! A filter tree as SQL text with its bound values, for either backend. Field names come
//! from the fixed list in `query::field` and JSON keys are checked there, so only values
//! are bound and nothing a caller sends is spliced into the text.

use coffer_model::validation::FieldError;
use coffer_store::Backend;
use serde_json::Value;

use crate::filter::{Field, Filter, Kind};

#[derive(Debug, Clone, PartialEq)]
pub enum Bind {
    Text(String),
    Int(i64),
    Bool(bool),
}

pub struct Builder {
    backend: Backend,
    pub binds: Vec<Bind>,
}

impl Builder {
    pub fn new(backend: Backend) -> Self {
        Self {
            backend,
            binds: Vec::new(),
        }
    }

    fn placeholder(&mut self, bind: Bind) -> String {
        self.binds.push(bind);
        match self.backend {
            Backend::Postgres => format!("${}", self.binds.len()),
            Backend::Sqlite => "?".to_owned(),
        }
    }

    /// The SQL expression of a field.
    pub fn expr(&self, field: &Field) -> String {
        match (field, self.backend) {
            (Field::Column { name, .. }, _) => (*name).to_owned(),
            (Field::Json { column, key }, Backend::Postgres) => {
                format!("({column}::jsonb ->> '{key}')")
            }
            (Field::Json { column, key }, Backend::Sqlite) => {
                format!("CAST(json_extract({column}, '$.\"{key}\"') AS TEXT)")
            }
        }
    }

    fn value(
        &mut self,
        field: &Field,
        value: &Value,
        property: &str,
    ) -> Result<String, FieldError> {
        let bind = bind(field, value).map_err(|m| FieldError::not_valid(property, m))?;
        Ok(self.placeholder(bind))
    }

    /// The SQL of `filter`. A filter from `query::check` has every value checked there, at
    /// its own property; one built by hand that holds a wrong value is refused on `query`.
    pub fn filter(&mut self, filter: &Filter) -> Result<String, FieldError> {
        Ok(match filter {
            Filter::Match(field, value) => {
                let expr = self.expr(field);
                format!("{expr} = {}", self.value(field, value, "query")?)
            }
            Filter::And(parts) if parts.is_empty() => "1 = 1".to_owned(),
            Filter::And(parts) | Filter::Or(parts) if parts.len() == 1 => self.filter(&parts[0])?,
            Filter::Or(parts) if parts.is_empty() => "1 = 0".to_owned(),
            Filter::And(parts) | Filter::Or(parts) => {
                let joiner = if matches!(filter, Filter::And(_)) {
                    " AND "
                } else {
                    " OR "
                };
                let sql = parts
                    .iter()
                    .map(|p| self.filter(p))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("({})", sql.join(joiner))
            }
            Filter::Not(inner) => format!("NOT ({})", self.filter(inner)?),
            Filter::Exists(field) => format!("{} IS NOT NULL", self.expr(field)),
            Filter::Range(field, bounds) => {
                let expr = self.expr(field);
                let mut sql = Vec::new();
                for (op, value) in bounds {
                    sql.push(format!(
                        "{expr} {op} {}",
                        self.value(field, value, "query")?
                    ));
                }
                if sql.is_empty() {
                    "1 = 1".to_owned()
                } else {
                    format!("({})", sql.join(" AND "))
                }
            }
        })
    }

    /// Rows after `(value, uuid)` in the order [`order`] writes: the next page after a
    /// hit's `last_sort_values`, however deep. `value` is null when the last hit had none;
    /// rows without a value come last in either direction, so after one only such rows
    /// with a later uuid follow, and after a value every row without one still does.
    pub fn after(
        &mut self,
        (column, kind, never_null): (&str, Kind, bool),
        value: &Value,
        uuid: &Value,
        descending: bool,
    ) -> Result<String, FieldError> {
        let op = if descending { "<" } else { ">" };
        let Some(uuid) = uuid.as_str() else {
            return Err(FieldError::not_valid(
                "search_after[1]",
                "must be the uuid from last_sort_values",
            ));
        };
        if value.is_null() {
            let u = self.placeholder(Bind::Text(uuid.to_owned()));
            return Ok(format!("({column} IS NULL AND uuid {op} {u})"));
        }
        let field = Field::Column {
            name: "search_after",
            kind,
        };
        // Bound in the order they appear in the text: SQLite's `?` are positional.
        let v = self.value(&field, value, "search_after[0]")?;
        let u = self.placeholder(Bind::Text(uuid.to_owned()));
        let later = format!("({column}, uuid) {op} ({v}, {u})");
        Ok(if never_null {
            later
        } else {
            format!("({column} IS NULL OR {later})")
        })
    }

    /// Limits rows to the caller's organisations (none for a platform caller).
    pub fn tenant(&mut self, organisations: Option<&[String]>) -> String {
        match organisations {
            None => "1 = 1".to_owned(),
            Some([]) => "1 = 0".to_owned(),
            Some(list) => {
                let marks: Vec<String> = list
                    .iter()
                    .map(|o| self.placeholder(Bind::Text(o.clone())))
                    .collect();
                format!("organisation_uuid IN ({})", marks.join(", "))
            }
        }
    }
}

/// `value` as `field` compares with it, or why it cannot be.
pub(crate) fn bind(field: &Field, value: &Value) -> Result<Bind, &'static str> {
    let kind = match field {
        Field::Column { kind, .. } => *kind,
        Field::Json { .. } => Kind::Text,
    };
    Ok(match (kind, value) {
        (_, Value::Null) => {
            return Err(
                "must be a value; objects without one are found with {\"$not\": {\"$exists\": field}}",
            );
        }
        (Kind::Text, Value::String(s)) => Bind::Text(s.clone()),
        (Kind::Text, Value::Number(n)) => Bind::Text(n.to_string()),
        (Kind::Text, Value::Bool(b)) => Bind::Text(b.to_string()),
        (Kind::Int, Value::Number(n)) if n.as_i64().is_some() => {
            Bind::Int(n.as_i64().unwrap_or_default())
        }
        (Kind::Int, Value::String(s)) if s.parse::<i64>().is_ok() => {
            Bind::Int(s.parse().unwrap_or_default())
        }
        (Kind::Bool, Value::Bool(b)) => Bind::Bool(*b),
        (Kind::Int, _) => return Err("must be a whole number or a string of digits"),
        (Kind::Bool, _) => return Err("must be true or false"),
        (Kind::Text, _) => return Err("must be a single value"),
    })
}

/// `ORDER BY` for hits sorted by `column`, uuid breaking ties. Rows without a value come
/// last in either direction, written out: SQLite puts NULL first ascending and PostgreSQL
/// last. A column never null is left plain, so an index on it still gives the order.
pub fn order(column: &str, descending: bool, never_null: bool) -> String {
    let direction = if descending { "DESC" } else { "ASC" };
    let nulls = if never_null { "" } else { " NULLS LAST" };
    format!("{column} {direction}{nulls}, uuid {direction}")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::query::tests::SCHEMA;
    use serde_json::json;

    fn parse(property: &str, query: &Value) -> Result<Filter, FieldError> {
        crate::query::parse(&SCHEMA, property, query)
    }

    #[test]
    fn placeholders_follow_the_backend() {
        let f = parse("query", &json!({"$or": [{"$match": {"status": "succeeded"}}, {"$range": {"amount.value": {"gte": "100"}}}]})).unwrap_or(Filter::And(vec![]));
        let mut pg = Builder::new(Backend::Postgres);
        assert_eq!(
            pg.filter(&f).unwrap_or_default(),
            "(status = $1 OR (amount_value >= $2))"
        );
        assert_eq!(pg.binds, [Bind::Text("succeeded".into()), Bind::Int(100)]);
        let mut lite = Builder::new(Backend::Sqlite);
        assert_eq!(
            lite.filter(&f).unwrap_or_default(),
            "(status = ? OR (amount_value >= ?))"
        );
    }

    #[test]
    fn a_null_sort_value_pages_on_among_the_rows_without_one() {
        let mut b = Builder::new(Backend::Postgres);
        let after = b
            .after(
                ("amount", Kind::Int, false),
                &json!(2500),
                &json!("u"),
                true,
            )
            .unwrap();
        assert_eq!(after, "(amount IS NULL OR (amount, uuid) < ($1, $2))");
        assert_eq!(b.binds, [Bind::Int(2500), Bind::Text("u".into())]);
        let mut b = Builder::new(Backend::Sqlite);
        let after = b
            .after(
                ("amount", Kind::Int, false),
                &Value::Null,
                &json!("u"),
                false,
            )
            .unwrap();
        assert_eq!(after, "(amount IS NULL AND uuid > ?)");
        assert_eq!(b.binds, [Bind::Text("u".into())]);
        let mut b = Builder::new(Backend::Sqlite);
        let after = b
            .after(("created", Kind::Int, true), &json!(5), &json!("u"), false)
            .unwrap();
        assert_eq!(after, "(created, uuid) > (?, ?)");
        let e = b
            .after(
                ("amount", Kind::Int, false),
                &json!("x"),
                &json!("u"),
                false,
            )
            .unwrap_err();
        assert_eq!(e.property, "search_after[0]");
        let e = b
            .after(("amount", Kind::Int, false), &json!(1), &json!(2), false)
            .unwrap_err();
        assert_eq!(e.property, "search_after[1]");
    }

    #[test]
    fn rows_without_a_value_come_last_either_way() {
        assert_eq!(
            order("amount", false, false),
            "amount ASC NULLS LAST, uuid ASC"
        );
        assert_eq!(
            order("amount", true, false),
            "amount DESC NULLS LAST, uuid DESC"
        );
        assert_eq!(order("created", true, true), "created DESC, uuid DESC");
    }
}
