//! CONNECT asks a server to open a tunnel. Coffer opens none: its routes answer CONNECT as
//! any method a path does not take (404 or 405 in the error shape).
//!
//! HTTP/1.1 reads the bytes after a CONNECT request as the tunnel's, and so does actix:
//! it writes a streamed body to such a request unframed. A compressed answer is streamed,
//! and would go out declared `transfer-encoding: chunked` without chunks, which no client
//! can read. So a CONNECT's answer is never compressed: its JSON body is sized, and framed
//! by its `content-length`.

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::middleware::Next;

/// Outside the compression, so that it never sees what a CONNECT accepts.
pub(crate) async fn middleware(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if req.method() == Method::CONNECT {
        req.headers_mut().remove(header::ACCEPT_ENCODING);
    }
    next.call(req).await
}
