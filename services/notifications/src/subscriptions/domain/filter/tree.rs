//! The tree both forms of a filter are read into, and how it decides an event.

use serde_json::Value;

/// The property every filter problem is named by.
pub const AT: &str = "filter";
/// Bounds on what one event's check may cost.
pub const MAX_DEPTH: usize = 32;
pub const MAX_NODES: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// Always (or never) true: a comparison of two literals.
    Constant(bool),
    Equals(Operand, Operand),
    /// JavaScript's truthiness: not null, false, 0, "" or missing.
    Truthy(Operand),
    All(Vec<Filter>),
    Any(Vec<Filter>),
    Not(Box<Filter>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Path(Vec<String>),
    Literal(Value),
}

impl Operand {
    fn value<'a>(&'a self, event: &'a Value) -> &'a Value {
        match self {
            Operand::Literal(v) => v,
            Operand::Path(keys) => keys
                .iter()
                .try_fold(event, |at, key| match at {
                    Value::Object(map) => map.get(key),
                    Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                    _ => None,
                })
                .unwrap_or(&Value::Null),
        }
    }
}

impl Filter {
    /// All of `each`; one alone is itself.
    pub fn all(mut each: Vec<Filter>) -> Filter {
        if each.len() == 1 {
            each.remove(0)
        } else {
            Filter::All(each)
        }
    }

    /// Any of `each`; one alone is itself.
    pub fn any(mut each: Vec<Filter>) -> Filter {
        if each.len() == 1 {
            each.remove(0)
        } else {
            Filter::Any(each)
        }
    }

    /// Whether `event` (the envelope's `event` object) passes.
    pub fn passes(&self, event: &Value) -> bool {
        match self {
            Filter::Constant(b) => *b,
            Filter::Equals(a, b) => a.value(event) == b.value(event),
            Filter::Truthy(a) => match a.value(event) {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
                Value::String(s) => !s.is_empty(),
                Value::Array(_) | Value::Object(_) => true,
            },
            Filter::All(fs) => fs.iter().all(|f| f.passes(event)),
            Filter::Any(fs) => fs.iter().any(|f| f.passes(event)),
            Filter::Not(f) => !f.passes(event),
        }
    }

    pub(super) fn nodes(&self) -> usize {
        match self {
            Filter::Constant(_) | Filter::Equals(..) | Filter::Truthy(_) => 1,
            Filter::All(fs) | Filter::Any(fs) => 1 + fs.iter().map(Filter::nodes).sum::<usize>(),
            Filter::Not(f) => 1 + f.nodes(),
        }
    }
}
