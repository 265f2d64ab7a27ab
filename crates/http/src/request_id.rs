use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};
use coffer_model::trace::TraceContext;
use tracing::Instrument;

pub const HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The request's place in a distributed trace (W3C `traceparent`), for the events it causes.
#[derive(Debug, Clone)]
pub struct RequestTrace(pub TraceContext);

impl actix_web::FromRequest for RequestTrace {
    type Error = actix_web::Error;
    type Future = std::future::Ready<Result<Self, Self::Error>>;

    fn from_request(req: &actix_web::HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let trace = req.extensions().get::<RequestTrace>().cloned();
        std::future::ready(Ok(
            trace.unwrap_or_else(|| RequestTrace(TraceContext::new_root()))
        ))
    }
}

/// The request's id: the caller's `X-Request-Id` when it is sane, a new UUID otherwise.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Echoing a client's id must not let it write arbitrary text into logs and headers.
fn acceptable(value: &HeaderValue) -> Option<String> {
    let s = value.to_str().ok()?;
    let ok = !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
    ok.then(|| s.to_owned())
}

/// Path segments that are secrets or personal data, which logs never show: an onboarding
/// process's token (it opens the process) and an e-mail address being checked.
const REDACTED_AFTER: [&str; 2] = ["tokens", "user-emails"];

/// The path as logs show it, with those segments replaced.
fn loggable(path: &str) -> std::borrow::Cow<'_, str> {
    if !REDACTED_AFTER.iter().any(|s| path.contains(s)) {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut hide = false;
    let parts: Vec<&str> = path
        .split('/')
        .map(|part| {
            let shown = if hide { "[redacted]" } else { part };
            hide = REDACTED_AFTER.contains(&part);
            shown
        })
        .collect();
    std::borrow::Cow::Owned(parts.join("/"))
}

pub(crate) async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let id = req
        .headers()
        .get(&HEADER)
        .and_then(acceptable)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    req.extensions_mut().insert(RequestId(id.clone()));
    // Continue the caller's trace, or start one; events this request causes carry it on.
    let trace = req
        .headers()
        .get("traceparent")
        .and_then(|v| v.to_str().ok())
        .and_then(TraceContext::parse)
        .map_or_else(TraceContext::new_root, |t| t.child());
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        trace_id = %trace.trace_id,
        method = %req.method(),
        path = %loggable(req.path()),
    );
    req.extensions_mut().insert(RequestTrace(trace));
    let mut res = next.call(req).instrument(span.clone()).await?;
    let status = res.status().as_u16();
    if crate::telemetry::request_lines() {
        span.in_scope(|| tracing::info!(status, "request finished"));
    }
    if let Ok(value) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(HEADER, value);
    }
    Ok(res)
}

#[cfg(test)]
mod redaction_tests {
    use super::loggable;

    #[test]
    fn tokens_and_addresses_in_paths_are_not_logged() {
        assert_eq!(
            loggable("/partner-onboarding-processes/tokens/abc123/execute"),
            "/partner-onboarding-processes/tokens/[redacted]/execute"
        );
        assert_eq!(
            loggable("/partner-onboarding-processes/user-emails/ann@example.org"),
            "/partner-onboarding-processes/user-emails/[redacted]"
        );
        assert_eq!(loggable("/payments/42"), "/payments/42");
    }
}
