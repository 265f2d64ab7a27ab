//! What a query becomes: a tree of conditions over fields, each field a column of a known
//! kind or a key inside a JSON column. Plain types, below everything that reads a query
//! (query/), bounds it (range.rs) or writes it as SQL (sql.rs), so that those import it
//! and not each other.

use serde_json::Value;

/// What a column holds, which decides what a value sent for it must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Int,
    Bool,
}

/// A searchable field: a column, or a key inside a JSON column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    Column { name: &'static str, kind: Kind },
    Json { column: &'static str, key: String },
}

/// A query read: its conditions, as `$match`, `$and`, `$or`, `$not`, `$range` and
/// `$exists` combine them.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    Match(Field, Value),
    And(Vec<Filter>),
    Or(Vec<Filter>),
    Not(Box<Filter>),
    /// (operator as SQL, value)
    Range(Field, Vec<(&'static str, Value)>),
    Exists(Field),
}
