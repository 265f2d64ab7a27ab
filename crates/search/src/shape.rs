//! What of each hit a search answers: `includes` and `excludes` by dotted path.

use serde_json::{Value, json};

fn at_path<'a>(value: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(value, |v, part| &v[part])
}

/// Keeps only `includes` (when given), then drops `excludes`, by dotted paths.
pub fn shape(hit: Value, includes: Option<&[String]>, excludes: Option<&[String]>) -> Value {
    let mut hit = match includes {
        Some(paths) => {
            let mut kept = json!({});
            for path in paths {
                let value = at_path(&hit, path);
                if value.is_null() {
                    continue;
                }
                insert_at(&mut kept, path, value.clone());
            }
            kept
        }
        None => hit,
    };
    for path in excludes.unwrap_or_default() {
        let (parent, last) = path
            .rsplit_once('.')
            .map_or(("", path.as_str()), |(p, l)| (p, l));
        let target = if parent.is_empty() {
            Some(&mut hit)
        } else {
            hit.pointer_mut(&format!("/{}", parent.replace('.', "/")))
        };
        if let Some(object) = target.and_then(Value::as_object_mut) {
            object.remove(last);
        }
    }
    hit
}

/// Puts `value` at a dotted path, making the objects on the way; a path through something
/// that is not an object is left alone.
fn insert_at(root: &mut Value, path: &str, value: Value) {
    let mut slot = root;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let Some(object) = slot.as_object_mut() else {
            return;
        };
        if parts.peek().is_none() {
            object.insert(part.to_owned(), value);
            return;
        }
        slot = object.entry(part.to_owned()).or_insert_with(|| json!({}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_then_excludes_by_dotted_path() {
        let hit = json!({"uuid": "u", "amount": {"value": "1", "currency": "CHF"}, "status": "s"});
        let paths = ["amount.value".to_owned(), "uuid".to_owned()];
        assert_eq!(
            shape(hit.clone(), Some(&paths), None),
            json!({"uuid": "u", "amount": {"value": "1"}})
        );
        let drop = ["amount.currency".to_owned()];
        assert_eq!(
            shape(hit, None, Some(&drop)),
            json!({"uuid": "u", "amount": {"value": "1"}, "status": "s"})
        );
    }
}
