//! What every Coffer service shares at the HTTP edge: configuration, logging, request ids,
//! error shapes, health, metrics and body parsing, and the guard on the addresses Coffer
//! connects to for its customers (webhooks, SFTP). A service only brings its routes.

pub mod address_policy;
mod basic_auth;
pub mod body;
mod body_deadline;
pub mod client_address;
pub mod config;
mod connections_per_address;
mod error_shape;
pub mod failure;
mod head_limits;
mod health;
pub mod idempotency;
mod metrics;
mod module;
pub mod multipart;
pub mod openapi;
mod path_uuid;
mod query_error;
mod request_id;
mod server;
pub mod telemetry;
pub mod threads;
mod tunnels;
pub mod workers;

pub use basic_auth::basic_credentials;
pub use body::{Form, Json, JsonEvenAsForm, JsonOrForm, OptionalJson, RawBody};
pub use client_address::{ClientAddress, TrustedProxies};
pub use coffer_error::{ApiError, Shape};
pub use config::ClientLimits;
pub use failure::{Failure, internal, retry_contended, write_contended};
pub use metrics::Metrics;
pub use module::{Module, ReadyFuture};
pub use path_uuid::{PathUuid, PathUuids};
pub use request_id::{RequestId, RequestTrace};
pub use server::{AppContext, build_app, serve};
