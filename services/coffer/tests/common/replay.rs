//! Replaying a client written for RaiseNow from its requests kept as data
//! (tests/clients/*.json): filling in the values a run makes, sending each request as the
//! client builds it, and reading the answer where the client reads it.

use std::io::Read;

use serde_json::Value;

/// `text` with every `{name}` of `fill` filled in.
pub fn filled(text: &str, fill: &[(String, String)]) -> String {
    fill.iter().fold(text.to_owned(), |t, (name, value)| {
        t.replace(&format!("{{{name}}}"), value)
    })
}

/// Sends one request of a file to `url` as its client builds it: the request's method, its
/// query (values filled in, empty ones sent too), `headers` (filled in) and `body` text
/// (filled in); the answer as [`answer`] reads it.
pub async fn send(
    url: String,
    request: &Value,
    headers: &[(String, String)],
    body: Option<String>,
    fill: &[(String, String)],
) -> (u16, Value) {
    let method =
        reqwest::Method::from_bytes(request["method"].as_str().unwrap().as_bytes()).unwrap();
    let mut req = reqwest::Client::new().request(method, filled(&url, fill));
    let query: Vec<(String, String)> = request["query"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), filled(v.as_str().unwrap(), fill)))
        .collect();
    if !query.is_empty() {
        req = req.query(&query);
    }
    for (name, value) in headers {
        req = req.header(name.as_str(), filled(value, fill));
    }
    if let Some(text) = body {
        req = req.body(filled(&text, fill));
    }
    answer(req.send().await.unwrap()).await
}

/// The answer's status and body, unpacked when the server compressed it (as the clients'
/// HTTP stacks unpack it); a body that is no JSON is kept as text, and no body is `null`.
pub async fn answer(res: reqwest::Response) -> (u16, Value) {
    let status = res.status().as_u16();
    let gzipped = res
        .headers()
        .get("content-encoding")
        .is_some_and(|e| e == "gzip");
    let bytes = res.bytes().await.unwrap();
    if bytes.is_empty() {
        return (status, Value::Null);
    }
    let text = if gzipped {
        let mut out = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut out)
            .unwrap();
        out
    } else {
        String::from_utf8(bytes.to_vec()).unwrap()
    };
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The values at a path of `reads` (`summary.hits`, `hits[].uuid`, `[].name`, `[0].uuid`):
/// one per element where the path goes through `[]`. A value that is missing is `null`.
pub fn at(value: &Value, path: &str) -> Vec<Value> {
    let mut found = vec![value.clone()];
    for part in path.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((name, rest)) => (name, Some(rest.trim_end_matches(']'))),
            None => (part, None),
        };
        found = found
            .into_iter()
            .flat_map(|v| {
                let v = if name.is_empty() { v } else { v[name].clone() };
                match index {
                    None => vec![v],
                    Some("") => v.as_array().cloned().unwrap_or_default(),
                    Some(i) => vec![v[i.parse::<usize>().unwrap()].clone()],
                }
            })
            .collect();
    }
    found
}

/// The first path of `request["reads"]` that `body` lacks (nothing there, or null).
pub fn unread(request: &Value, body: &Value) -> Option<String> {
    request["reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|path| path.as_str().unwrap())
        .find(|path| {
            let values = at(body, path);
            values.is_empty() || values.iter().any(Value::is_null)
        })
        .map(str::to_owned)
}

/// Every path of `request["reads"]` is in `body`, and not null.
pub fn assert_reads(name: &str, request: &Value, body: &Value) {
    if let Some(path) = unread(request, body) {
        panic!("{name}: nothing at {path} in {body}");
    }
}
