//! A filter tree as SQL text with its bound values, for either backend. Field names come
//! from the fixed list in `query::field` and JSON keys are checked there, so only values
//! are bound and nothing a caller sends is spliced into the text.

use coffer_model::validation::FieldError;
use coffer_store::Backend;
use serde_json::Value;

use crate::query::{Field, Filter, Kind};

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
        let kind = match field {
            Field::Column { kind, .. } => *kind,
            Field::Json { .. } => Kind::Text,
        };
        let bind = match (kind, value) {
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
            (Kind::Int, _) => {
                return Err(FieldError::not_valid(property, "must be a whole number"));
            }
            (Kind::Bool, _) => {
                return Err(FieldError::not_valid(property, "must be true or false"));
            }
            (Kind::Text, _) => {
                return Err(FieldError::not_valid(property, "must be a single value"));
            }
        };
        Ok(self.placeholder(bind))
    }

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

    /// Rows after `(value, uuid)` in the order `(column, uuid) direction`: the next page after
    /// a hit's `last_sort_values`, however deep.
    pub fn after(
        &mut self,
        column: &str,
        kind: Kind,
        value: &Value,
        uuid: &Value,
        descending: bool,
    ) -> Result<String, FieldError> {
        let field = Field::Column {
            name: "search_after",
            kind,
        };
        let v = self.value(&field, value, "search_after")?;
        let u = match uuid.as_str() {
            Some(u) => self.placeholder(Bind::Text(u.to_owned())),
            None => {
                return Err(FieldError::not_valid(
                    "search_after",
                    "must be [sort value, uuid] from last_sort_values",
                ));
            }
        };
        let op = if descending { "<" } else { ">" };
        Ok(format!("({column}, uuid) {op} ({v}, {u})"))
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

#[cfg(test)]
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
}
