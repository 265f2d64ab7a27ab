//! The API's root, `GET /`: what a client reads to learn that its base URL and token are
//! right (the n8n RaiseNow node tests its credentials so). It reads and changes nothing.

pub(crate) mod routes;
