//! A request body has a deadline: the client sends it at a useful pace, or it is answered
//! 408 and its connection closed. The HTTP layer times out only a request's head, so a
//! client that sends a head and then a body a byte at a time (or never) would otherwise
//! keep a connection, and what a handler holds while reading, for as long as it liked.
//!
//! The deadline is `http.body_timeout_seconds` after the head, moved on by one second for
//! every [`MIN_RATE`] bytes that arrive: an upload of any size at that pace or faster
//! never runs out, a trickle does within the timeout (docs/configuration.md).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::ConnectionType;
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::{Error, HttpMessage, ResponseError};
use coffer_error::ApiError;
use futures_util::Stream;
use tokio::time::{Instant, Sleep};

/// Bytes a second a body must keep up beyond its timeout: a slow mobile link's pace.
pub const MIN_RATE: u64 = 64 * 1024;

/// How long a body may take beyond what [`MIN_RATE`] gives it; app data.
#[derive(Clone, Copy, Debug)]
pub struct BodyTimeout(pub Duration);

pub(crate) async fn middleware(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let Some(BodyTimeout(timeout)) = req.app_data::<BodyTimeout>().copied() else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    let expired = Arc::new(AtomicBool::new(false));
    let body = Deadline::new(req.take_payload(), timeout, Arc::clone(&expired));
    req.set_payload(Payload::Stream {
        payload: Box::pin(body),
    });
    let answered = next.call(req).await;
    if !expired.load(Ordering::Acquire) {
        return Ok(answered?.map_into_left_body());
    }
    // Whatever the handler made of a body cut short, the client hears why, and the
    // connection, whose rest of the body may still be on its way, is not reused.
    let request = match answered {
        Ok(res) => res.into_parts().0,
        Err(_) => {
            return Err(actix_web::error::ErrorRequestTimeout("body timed out"));
        }
    };
    let mut response =
        ApiError::request_timeout("The request body did not arrive in time").error_response();
    response
        .head_mut()
        .set_connection_type(ConnectionType::Close);
    tracing::info!("request body timed out");
    Ok(ServiceResponse::new(request, response).map_into_right_body())
}

/// The body's chunks, until its deadline passes.
struct Deadline {
    inner: Payload,
    timer: Pin<Box<Sleep>>,
    deadline: Instant,
    expired: Arc<AtomicBool>,
}

impl Deadline {
    fn new(inner: Payload, timeout: Duration, expired: Arc<AtomicBool>) -> Self {
        let deadline = Instant::now() + timeout;
        Self {
            inner,
            timer: Box::pin(tokio::time::sleep_until(deadline)),
            deadline,
            expired,
        }
    }
}

/// The time `bytes` earn at [`MIN_RATE`].
fn earned(bytes: usize) -> Duration {
    Duration::from_secs_f64(bytes as f64 / MIN_RATE as f64)
}

impl Stream for Deadline {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.expired.load(Ordering::Acquire) {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                let deadline = self.deadline + earned(chunk.len());
                self.deadline = deadline;
                self.timer.as_mut().reset(deadline);
                Poll::Ready(Some(Ok(chunk)))
            }
            Poll::Pending => match self.timer.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    self.expired.store(true, Ordering::Release);
                    Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the request body did not arrive in time",
                    )))))
                }
                Poll::Pending => Poll::Pending,
            },
            other => other,
        }
    }
}
