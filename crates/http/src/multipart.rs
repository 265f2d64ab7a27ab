//! One reader of `multipart/form-data` bodies, streamed part by part and chunk by chunk,
//! so no body is held whole unless its reader asks for a part's bytes. It says what went
//! wrong in a few words of its own ([`ReadError`]); each caller answers in its protocol's
//! shape (Coffer's error shapes, or S3's XML for the standalone upload store).

use std::time::Duration;

use actix_multipart::{Field, Multipart, MultipartError};
use actix_web::http::header::HeaderMap;
use actix_web::web::{Bytes, Payload};
use futures_util::StreamExt;

/// What went wrong reading a multipart body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// Not sent as `multipart/form-data` with a boundary.
    #[error("the body is not multipart/form-data with a boundary")]
    NotMultipart,
    /// It ends early, or a part is malformed.
    #[error("the body ends early or a part is malformed")]
    Malformed,
    /// Nothing of a part arrived for the stall time the reader was given.
    #[error("the body stalled")]
    Stalled,
    /// More bytes than the budget a part was read with.
    #[error("the body is larger than allowed")]
    TooLarge,
}

impl From<MultipartError> for ReadError {
    fn from(e: MultipartError) -> Self {
        match e {
            MultipartError::ContentTypeMissing
            | MultipartError::ContentTypeParse
            | MultipartError::ContentTypeIncompatible
            | MultipartError::BoundaryMissing => ReadError::NotMultipart,
            _ => ReadError::Malformed,
        }
    }
}

/// The parts of one request body, in the order they were sent. Drop a [`Part`] before
/// asking for the next: the next waits until it is.
pub struct MultipartReader {
    parts: Multipart,
    stall: Option<Duration>,
}

impl MultipartReader {
    pub fn new(headers: &HeaderMap, payload: Payload) -> Self {
        Self {
            parts: Multipart::new(headers, payload),
            stall: None,
        }
    }

    /// A part's chunk that does not come within `stall` is [`ReadError::Stalled`]: for a
    /// client that may stop sending while a file is written aside for it.
    pub fn stalling_after(mut self, stall: Duration) -> Self {
        self.stall = Some(stall);
        self
    }

    /// The next part, with its name and file name read from its headers; `None` after the
    /// last.
    pub async fn next_part(&mut self) -> Option<Result<Part, ReadError>> {
        let field = match self.parts.next().await? {
            Ok(field) => field,
            Err(e) => return Some(Err(e.into())),
        };
        let name = field.name().unwrap_or_default().to_owned();
        let file_name = field
            .content_disposition()
            .and_then(|cd| cd.get_filename())
            .map(str::to_owned);
        Some(Ok(Part {
            field,
            stall: self.stall,
            name,
            file_name,
        }))
    }
}

/// One part of the body: its headers read, its bytes still to come.
pub struct Part {
    field: Field,
    stall: Option<Duration>,
    name: String,
    file_name: Option<String>,
}

impl Part {
    /// The form field's name (empty when the part names none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file name its `Content-Disposition` gives, as sent.
    pub fn file_name(&self) -> Option<&str> {
        self.file_name.as_deref()
    }

    /// The part's next chunk; `None` at its end.
    pub async fn chunk(&mut self) -> Option<Result<Bytes, ReadError>> {
        let next = match self.stall {
            Some(stall) => match tokio::time::timeout(stall, self.field.next()).await {
                Ok(next) => next,
                Err(_) => return Some(Err(ReadError::Stalled)),
            },
            None => self.field.next().await,
        };
        next.map(|chunk| chunk.map_err(ReadError::from))
    }

    /// The part's bytes, each taken from `budget`, the bytes left for this part and
    /// whatever the caller reads after it: [`ReadError::TooLarge`] as soon as a chunk is
    /// more than is left.
    pub async fn read_within(&mut self, budget: &mut usize) -> Result<Vec<u8>, ReadError> {
        let mut bytes = Vec::new();
        while let Some(chunk) = self.chunk().await {
            let chunk = chunk?;
            *budget = budget.checked_sub(chunk.len()).ok_or(ReadError::TooLarge)?;
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use actix_web::FromRequest;
    use actix_web::test::TestRequest;

    use super::*;

    async fn reader(content_type: &str, body: &'static str) -> MultipartReader {
        let (req, mut payload) = TestRequest::default()
            .insert_header(("content-type", content_type))
            .set_payload(body.replace('\n', "\r\n"))
            .to_http_parts();
        let payload = Payload::from_request(&req, &mut payload).await.unwrap();
        MultipartReader::new(req.headers(), payload)
    }

    const TWO_PARTS: &str = "--XX\nContent-Disposition: form-data; name=\"key\"\n\nsources/a\n--XX\nContent-Disposition: form-data; name=\"file\"; filename=\"camt.xml\"\n\n<Document/>\n--XX--\n";

    #[actix_web::test]
    async fn parts_come_with_their_names_and_bytes_within_the_budget() {
        let mut parts = reader("multipart/form-data; boundary=XX", TWO_PARTS).await;
        let mut left = 100;
        // A part is dropped before the next is asked for, as a reader's loop drops it.
        {
            let mut first = parts.next_part().await.unwrap().unwrap();
            assert_eq!((first.name(), first.file_name()), ("key", None));
            assert_eq!(first.read_within(&mut left).await.unwrap(), b"sources/a");
        }
        {
            let mut second = parts.next_part().await.unwrap().unwrap();
            assert_eq!(
                (second.name(), second.file_name()),
                ("file", Some("camt.xml"))
            );
            assert_eq!(second.read_within(&mut left).await.unwrap(), b"<Document/>");
        }
        assert_eq!(left, 100 - 9 - 11);
        assert!(parts.next_part().await.is_none());
    }

    #[actix_web::test]
    async fn a_part_over_the_budget_is_too_large() {
        let mut parts = reader("multipart/form-data; boundary=XX", TWO_PARTS).await;
        let mut left = 4;
        let mut first = parts.next_part().await.unwrap().unwrap();
        assert_eq!(first.read_within(&mut left).await, Err(ReadError::TooLarge));
    }

    #[actix_web::test]
    async fn a_body_that_is_not_multipart_says_so() {
        let mut parts = reader("application/json", "{}").await;
        assert!(matches!(
            parts.next_part().await,
            Some(Err(ReadError::NotMultipart))
        ));
    }
}
