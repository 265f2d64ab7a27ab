//! Links from what creates an object to what reads, changes and acts on it, so that a
//! client (or schemathesis' stateful phase) can follow the description from `POST /payments`
//! to `GET /payments/{payment_uuid}` without guessing. They follow from the paths alone:
//! an operation under `<created path>/{name}` (with no parameter further down) takes
//! `name` from the new object's `uuid`, and the creating path's own parameters from the
//! creating request.

use std::collections::BTreeMap;

use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::link::Link;
use utoipa::openapi::path::Operation;
use utoipa::openapi::{OpenApi, PathItem, RefOr};

/// Adds to each 201 answer a link to every operation on the object it created.
pub fn link_created(whole: &mut OpenApi) {
    let mut found: BTreeMap<String, Vec<(String, Link)>> = BTreeMap::new();
    for (path, item) in &whole.paths.paths {
        let Some(create) = &item.post else { continue };
        if !create.responses.responses.contains_key("201") {
            continue;
        }
        let own = parameters_of(path);
        for (other, other_item) in &whole.paths.paths {
            let Some(name) = object_parameter(path, other) else {
                continue;
            };
            // Objects nested further down need ids this answer does not give.
            if parameters_of(other).len() != own.len() + 1 {
                continue;
            }
            for target in operations(other_item) {
                let Some(id) = &target.operation_id else {
                    continue;
                };
                let mut link = Link::builder().parameter(name, "$response.body#/uuid");
                for p in &own {
                    link = link.parameter(p.clone(), format!("$request.path.{p}"));
                }
                let mut link = link.build();
                // utoipa 5 writes its `operation_id` field as `operation_id`, which OpenAPI
                // does not know; the extensions map is written as given.
                link.extensions = Some(Extensions::from_iter([("operationId", id.clone())]));
                found
                    .entry(path.clone())
                    .or_default()
                    .push((id.clone(), link));
            }
        }
    }
    for (path, links) in found {
        let Some(created) = whole
            .paths
            .paths
            .get_mut(&path)
            .and_then(|item| item.post.as_mut())
            .and_then(|op| op.responses.responses.get_mut("201"))
        else {
            continue;
        };
        if let RefOr::T(response) = created {
            for (name, link) in links {
                response.links.insert(name, RefOr::T(link));
            }
        }
    }
}

/// `name` when `other` is `created/{name}` or below it.
fn object_parameter<'a>(created: &str, other: &'a str) -> Option<&'a str> {
    let rest = other.strip_prefix(created)?.strip_prefix("/{")?;
    let (name, _) = rest.split_once('}')?;
    Some(name)
}

fn parameters_of(path: &str) -> Vec<String> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .map(str::to_owned)
        .collect()
}

fn operations(item: &PathItem) -> impl Iterator<Item = &Operation> {
    [&item.get, &item.put, &item.patch, &item.post, &item.delete]
        .into_iter()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nested_object_takes_its_own_uuid_and_its_parents_from_the_request() {
        assert_eq!(
            object_parameter("/payments", "/payments/{payment_uuid}/refunds"),
            Some("payment_uuid")
        );
        assert_eq!(object_parameter("/payments", "/payment-sources/{x}"), None);
        assert_eq!(object_parameter("/payments", "/payments"), None);
        assert_eq!(
            parameters_of("/subscriptions/{subscription_uuid}/invoices"),
            ["subscription_uuid"]
        );
    }
}
