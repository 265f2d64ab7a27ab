//! Checks of a service's part of the API description against what it routes and where the
//! gateway sends it (crates/http/src/openapi, docs/api.md).

use std::collections::BTreeSet;

use coffer_http::openapi::Part;

/// `(METHOD, path)` of every operation the description has.
fn described(part: &Part) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    for (path, item) in &part.doc.paths.paths {
        let methods = [
            ("GET", item.get.is_some()),
            ("POST", item.post.is_some()),
            ("PUT", item.put.is_some()),
            ("PATCH", item.patch.is_some()),
            ("DELETE", item.delete.is_some()),
        ];
        for (method, present) in methods {
            if present {
                found.insert((method.to_owned(), path.clone()));
            }
        }
    }
    found
}

/// A service's whole contract check: described and routed alike, ids of their own, and
/// every path sent to `upstream` by the gateway.
pub fn assert_contract(part: &Part, upstream: &str) {
    assert_described(part);
    assert_operation_ids(part);
    assert_gateway_routes(part, upstream);
}

/// Every routed operation is described, and every described one is routed.
pub fn assert_described(part: &Part) {
    let routed: BTreeSet<(String, String)> = part
        .operations
        .iter()
        .filter(|o| !o.hidden)
        .map(|o| (o.method.to_string(), o.path.to_owned()))
        .collect();
    let described = described(part);
    let undescribed: Vec<_> = routed.difference(&described).collect();
    let unrouted: Vec<_> = described.difference(&routed).collect();
    assert!(
        undescribed.is_empty(),
        "routed but not described (give it #[utoipa::path] and add it with coffer_http::route!): {undescribed:?}"
    );
    assert!(
        unrouted.is_empty(),
        "described but not routed (routes.rs): {unrouted:?}"
    );
}

/// Every operation has an id of its own, which client generators name their methods by.
pub fn assert_operation_ids(part: &Part) {
    let mut seen = BTreeSet::new();
    for (path, item) in &part.doc.paths.paths {
        for op in [&item.get, &item.post, &item.put, &item.patch, &item.delete]
            .into_iter()
            .flatten()
        {
            let id = op.operation_id.clone().unwrap_or_default();
            assert!(
                id.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && id.len() > 3,
                "{path}: give the operation an operation_id such as getThing (got {id:?})"
            );
            assert!(
                seen.insert(id.clone()),
                "{path}: operation_id {id} is used twice"
            );
        }
    }
}

/// One line of the gateway's table (deploy/gateway/routes.conf).
struct GatewayRoute {
    path: String,
    upstream: String,
    /// `~^/$`: the path alone; otherwise the path and everything below it.
    exact: bool,
}

impl GatewayRoute {
    fn matches(&self, path: &str) -> bool {
        path == self.path
            || !self.exact
                && path
                    .strip_prefix(self.path.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
    }
}

fn gateway_routes() -> Vec<GatewayRoute> {
    let conf = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../deploy/gateway/routes.conf"
    );
    let text = std::fs::read_to_string(conf).unwrap_or_else(|e| panic!("reading {conf}: {e}"));
    text.lines()
        .filter_map(|line| {
            // `~^/payments(/|$)   coffer_payments;`, or an exact path: `~^/$   coffer_identity;`
            let rest = line.trim().strip_prefix("~^")?;
            let (pattern, upstream) = rest.split_once(char::is_whitespace)?;
            let (path, exact) = match pattern.strip_suffix("(/|$)") {
                Some(prefix) => (prefix, false),
                None => (pattern.strip_suffix('$')?, true),
            };
            Some(GatewayRoute {
                path: path.replace('\\', ""),
                upstream: upstream.trim().trim_end_matches(';').to_owned(),
                exact,
            })
        })
        .collect()
}

/// Operations between services (identity's `/internal/...`): described, but never
/// reachable through the gateway.
pub const INTERNAL_PREFIX: &str = "/internal/";

/// Every described path reaches `upstream` through the gateway, but the internal ones,
/// which the gateway must not route at all.
pub fn assert_gateway_routes(part: &Part, upstream: &str) {
    let routes = gateway_routes();
    assert!(
        !routes.is_empty(),
        "no routes read from deploy/gateway/routes.conf"
    );
    for path in part.doc.paths.paths.keys() {
        if path.starts_with(INTERNAL_PREFIX) {
            assert!(
                routes.iter().all(|route| !route.matches(path)),
                "the gateway routes {path}, which is for Coffer's services only"
            );
            continue;
        }
        let to = routes
            .iter()
            .find(|route| route.matches(path))
            .map(|route| route.upstream.as_str());
        assert_eq!(
            to,
            Some(upstream),
            "the gateway sends {path} to {to:?}, not to {upstream}"
        );
    }
}
