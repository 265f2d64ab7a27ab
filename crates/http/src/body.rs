//! Request bodies, read by Coffer rather than actix's extractors so that every failure
//! (wrong content type, malformed, a field of the wrong type) is a 400 in the operation's
//! error shape, naming the offending property where there is one; a body over the limit
//! is a 413 in the same shape.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{FromRequest, HttpRequest};
use coffer_error::{ApiError, FieldError};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;

/// The largest body a route accepts unless it registers its own `BodyLimit` app data.
pub const DEFAULT_LIMIT: usize = 256 * 1024;

#[derive(Debug, Clone, Copy)]
pub struct BodyLimit(pub usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Json,
    Form,
}

impl Kind {
    fn media_type(self) -> &'static str {
        match self {
            Kind::Json => "application/json",
            Kind::Form => "application/x-www-form-urlencoded",
        }
    }
}

fn kind_of(req: &HttpRequest) -> Option<Kind> {
    let value = req.headers().get(header::CONTENT_TYPE)?.to_str().ok()?;
    let essence = value.split(';').next()?.trim().to_ascii_lowercase();
    match essence.as_str() {
        "application/json" => Some(Kind::Json),
        e if e.starts_with("application/") && e.ends_with("+json") => Some(Kind::Json),
        "application/x-www-form-urlencoded" => Some(Kind::Form),
        _ => None,
    }
}

async fn read(req: &HttpRequest, payload: &mut Payload) -> Result<Bytes, ApiError> {
    let limit = req.app_data::<BodyLimit>().map_or(DEFAULT_LIMIT, |l| l.0);
    let too_large =
        || ApiError::payload_too_large(format!("The request body is larger than {limit} bytes"));
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk =
            chunk.map_err(|_| ApiError::bad_request("The request body could not be read"))?;
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// serde's own messages name a missing field but not where it sits; the path tracker
/// knows where. Together they give the dotted property SPEC.md asks for.
fn property_of(path: &serde_path_to_error::Path, message: &str) -> String {
    let mut property = path.to_string();
    if property == "." {
        property.clear();
    }
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|r| r.split('`').next())
    {
        if !property.is_empty() {
            property.push('.');
        }
        property.push_str(field);
    }
    property
}

fn field_error(property: String, message: String) -> FieldError {
    if message.starts_with("missing field") {
        FieldError::not_null(&property)
    } else {
        FieldError::not_valid(&property, in_own_words(&message))
    }
}

/// serde's own messages quote what they refused (``invalid type: integer `4111111111111111`,
/// expected a string``, ``unknown variant `…` ``): a client's data sent in the wrong place
/// (a card number, a password) is not said back to it, or to whatever logs the answer.
/// What kind of value it was stays; the value goes. Coffer's own messages pass as written.
fn in_own_words(message: &str) -> String {
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            let (unexpected, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
            // `integer `5``, `floating point `1.5``, `string "x"`: the kind, then the value.
            let kind = [" `", " \""]
                .iter()
                .filter_map(|quote| unexpected.find(quote))
                .min()
                .map_or(unexpected, |at| &unexpected[..at]);
            return if expected.is_empty() {
                format!("{prefix}{kind}")
            } else {
                format!("{prefix}{kind}, expected {expected}")
            };
        }
    }
    for prefix in ["unknown variant `", "unknown field `"] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((_, after)) = rest.split_once('`')
        {
            return format!("{}{after}", prefix.trim_end_matches([' ', '`']));
        }
    }
    message.to_owned()
}

/// The most properties one answer names; a body with more faults than this is rewritten
/// by its sender anyway, and the bound keeps a hostile body from costing a parse per key.
const MAX_ITEMS: usize = 50;

/// Reads a request body: it must be JSON, and a JSON object, since every Coffer operation
/// takes one. `[]`, `null` or `"x"` would otherwise pass for a struct whose fields all
/// have defaults, and an operation would run on defaults its client never asked for.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        // serde_json counts nesting against a fixed limit and calls the overflow a syntax
        // error; the client deserves to know which limit it hit.
        if e.to_string().starts_with("recursion limit exceeded") {
            ApiError::bad_request("The request body is nested more than 128 levels deep")
        } else {
            ApiError::bad_request("The request body is not valid JSON")
        }
    })?;
    if !value.is_object() {
        return Err(ApiError::bad_request(
            "The request body must be a JSON object",
        ));
    }
    parse_value(value)
}

/// Reads `T` out of a JSON value already parsed, naming every offending property.
///
/// serde stops at the first fault, so the value is read again without each property that
/// failed until it reads (or until a required property is missing, which serde reports
/// only once every present one has been read): one round trip tells the client all.
pub fn parse_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ApiError> {
    parse_value_at("", value).map_err(ApiError::validation)
}

/// [`parse_value`] for a value found at `property` of a body, whose name leads every
/// offending property's path.
pub fn parse_value_at<T: DeserializeOwned>(
    property: &str,
    mut value: serde_json::Value,
) -> Result<T, Vec<FieldError>> {
    let mut items: Vec<FieldError> = Vec::new();
    // What was taken out to read on; a property then reported missing was named already.
    let mut removed: Vec<String> = Vec::new();
    for _ in 0..4 * MAX_ITEMS {
        let failure = match serde_path_to_error::deserialize::<_, T>(&value) {
            Ok(parsed) if items.is_empty() => return Ok(parsed),
            Ok(_) => break,
            Err(e) => e,
        };
        // serde_json appends " at line 1 column 9"; the property says where already.
        let message = failure.inner().to_string();
        let message = message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .to_owned();
        let offending = property_of(failure.path(), &message);
        if !removed.contains(&offending) {
            items.push(field_error(offending, message));
        }
        // A wrong property is taken out; so is an object lacking a required property,
        // since serde reports that only after reading the object's other properties and
        // would otherwise stop its siblings from being read.
        let at = failure.path().to_string();
        if items.len() >= MAX_ITEMS || !remove(&mut value, failure.path()) {
            break;
        }
        removed.push(at);
    }
    if !property.is_empty() {
        for item in &mut items {
            item.property = if item.property.is_empty() {
                property.to_owned()
            } else {
                format!("{property}.{}", item.property)
            };
        }
    }
    Err(items)
}

/// Takes the property at `path` out of `value`; false when the path does not lead to a
/// key of an object (the root, or an array element, whose removal would shift the rest).
fn remove(value: &mut serde_json::Value, path: &serde_path_to_error::Path) -> bool {
    use serde_path_to_error::Segment;
    let segments: Vec<&Segment> = path.iter().collect();
    let Some((Segment::Map { key }, parents)) = segments.split_last() else {
        return false;
    };
    let mut at = value;
    for segment in parents {
        let next = match segment {
            Segment::Map { key } => at.get_mut(key.as_str()),
            Segment::Seq { index } => at.get_mut(*index),
            _ => None,
        };
        match next {
            Some(v) => at = v,
            None => return false,
        }
    }
    at.as_object_mut()
        .is_some_and(|o| o.remove(key.as_str()).is_some())
}

pub fn parse_form<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(bytes));
    serde_path_to_error::deserialize(de).map_err(|e| {
        let message = e.inner().to_string();
        ApiError::validation(vec![field_error(property_of(e.path(), &message), message)])
    })
}

type Extracting<T> = Pin<Box<dyn Future<Output = Result<T, ApiError>>>>;

/// Reads and parses a body of one of the `accepted` kinds (as JSON whatever its label,
/// when `json_whatever_label`), then `wrap`s it.
fn extract<T, W>(
    req: &HttpRequest,
    payload: &mut Payload,
    (accepted, json_whatever_label): (&'static [Kind], bool),
    wrap: fn(T) -> W,
) -> Extracting<W>
where
    T: DeserializeOwned + 'static,
    W: 'static,
{
    let req = req.clone();
    let mut payload = payload.take();
    Box::pin(async move {
        let kind = kind_of(&req)
            .filter(|k| accepted.contains(k))
            .ok_or_else(|| {
                let names: Vec<&str> = accepted.iter().map(|k| k.media_type()).collect();
                ApiError::bad_request(format!(
                    "The request body must be sent as {}",
                    names.join(" or ")
                ))
            })?;
        let bytes = read(&req, &mut payload).await?;
        match kind {
            Kind::Form if !json_whatever_label => parse_form(&bytes).map(wrap),
            _ => parse_json(&bytes).map(wrap),
        }
    })
}

/// A JSON body (`application/json`, or any `application/*+json`).
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = ApiError;
    type Future = Extracting<Self>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        extract(req, payload, (&[Kind::Json], false), Json)
    }
}

/// A JSON body, also when labelled `application/x-www-form-urlencoded`: PowerShell's
/// `Invoke-WebRequest` labels a POST body so when its caller names no content type, and
/// RaiseNow's search reads it as JSON all the same (Apteco's RaiseNow plugin relies on
/// that). For the search operations, whose bodies are never forms.
#[derive(Debug)]
pub struct JsonEvenAsForm<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for JsonEvenAsForm<T> {
    type Error = ApiError;
    type Future = Extracting<Self>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        extract(
            req,
            payload,
            (&[Kind::Json, Kind::Form], true),
            JsonEvenAsForm,
        )
    }
}

/// A JSON body that may be left out: no body at all gives `T::default()`, while a body
/// that is sent must be valid, so a mistyped field is a 400 naming it rather than ignored
/// (`null` too: the description offers only leaving it out).
#[derive(Debug)]
pub struct OptionalJson<T>(pub T);

impl<T: DeserializeOwned + Default + 'static> FromRequest for OptionalJson<T> {
    type Error = ApiError;
    type Future = Extracting<Self>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let mut payload = payload.take();
        Box::pin(async move {
            let bytes = read(&req, &mut payload).await?;
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok(OptionalJson(T::default()));
            }
            if kind_of(&req) != Some(Kind::Json) {
                return Err(ApiError::bad_request(
                    "The request body must be sent as application/json",
                ));
            }
            parse_json(&bytes).map(OptionalJson)
        })
    }
}

/// A form body (`application/x-www-form-urlencoded`).
#[derive(Debug)]
pub struct Form<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for Form<T> {
    type Error = ApiError;
    type Future = Extracting<Self>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        extract(req, payload, (&[Kind::Form], false), Form)
    }
}

/// Either of the two, chosen by `Content-Type` (the OAuth token endpoint takes both).
#[derive(Debug)]
pub struct JsonOrForm<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for JsonOrForm<T> {
    type Error = ApiError;
    type Future = Extracting<Self>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        extract(req, payload, (&[Kind::Json, Kind::Form], false), JsonOrForm)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        count: u32,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        name: String,
        inner: Inner,
    }

    #[test]
    fn refused_values_are_not_said_back() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Card {
            number: Option<String>,
            month: Option<u8>,
            kind: Option<Kind>,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum Kind {
            Visa,
        }
        let body = br#"{"number": 4111111111111111, "month": 41111111111111110, "kind": "4111111111111111"}"#;
        let e = parse_json::<Card>(body).unwrap_err();
        let said = serde_json::to_string(&e.items()).unwrap();
        assert!(!said.contains("41111111111111"), "{said}");
        let mut messages: Vec<&str> = e.items().iter().map(|i| i.message.as_str()).collect();
        messages.sort_unstable();
        assert_eq!(
            messages,
            [
                "invalid type: integer, expected a string",
                "invalid value: integer, expected u8",
                "unknown variant, expected `visa`",
            ]
        );
        let e = parse_json::<Card>(br#"{"number": 4.111111111111111e15}"#).unwrap_err();
        assert_eq!(
            e.items()[0].message,
            "invalid type: floating point, expected a string"
        );
    }

    #[test]
    fn wrong_type_names_the_nested_property() {
        let e = parse_json::<Outer>(br#"{"name":"a","inner":{"count":"x"}}"#).unwrap_err();
        assert_eq!(e.items()[0].property, "inner.count");
        assert_eq!(e.items()[0].code, "error.validation.not_valid");
    }

    #[test]
    fn missing_field_is_not_null_with_its_path() {
        let e = parse_json::<Outer>(br#"{"name":"a","inner":{}}"#).unwrap_err();
        assert_eq!(e.items()[0].property, "inner.count");
        assert_eq!(e.items()[0].code, "error.validation.not_null");
    }

    #[test]
    fn malformed_json_is_a_plain_bad_request() {
        let e = parse_json::<Outer>(b"{not json").unwrap_err();
        assert_eq!(e.status().as_u16(), 400);
        assert!(e.items().is_empty());
    }

    #[test]
    fn every_wrong_property_is_named_once() {
        let named = |body: &[u8]| {
            let e = parse_json::<Outer>(body).unwrap_err();
            let mut properties: Vec<String> =
                e.items().iter().map(|i| i.property.clone()).collect();
            properties.sort();
            properties
        };
        assert_eq!(
            named(br#"{"name":7,"inner":{"count":"x"}}"#),
            ["inner.count", "name"]
        );
        // A required property missing inside an object does not hide a sibling's fault.
        assert_eq!(named(br#"{"name":7,"inner":{}}"#), ["inner.count", "name"]);
    }

    #[test]
    fn a_body_that_is_not_an_object_is_refused() {
        for body in [&b"[]"[..], b"null", b"\"x\"", b"12"] {
            let e = parse_json::<serde_json::Value>(body).unwrap_err();
            assert_eq!(e.message(), "The request body must be a JSON object");
        }
    }

    #[test]
    fn nesting_past_the_limit_says_so() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200));
        let e = parse_json::<serde_json::Value>(deep.as_bytes()).unwrap_err();
        assert!(e.message().contains("nested"), "{}", e.message());
    }

    #[test]
    fn form_missing_field() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct F {
            grant_type: String,
        }
        let e = parse_form::<F>(b"client_id=x").unwrap_err();
        assert_eq!(e.items()[0].property, "grant_type");
    }
}

/// A body as its bytes, whatever its content type, within the route's limit: for what is
/// checked over the exact bytes sent (a provider's signed notification) before it is read.
#[derive(Debug)]
pub struct RawBody(pub Bytes);

impl FromRequest for RawBody {
    type Error = ApiError;
    type Future = Extracting<Self>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let mut payload = payload.take();
        Box::pin(async move { read(&req, &mut payload).await.map(RawBody) })
    }
}
