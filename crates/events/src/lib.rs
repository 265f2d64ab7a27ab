//! Coffer's domain events: the envelope and catalogue, the transactional outbox and its
//! relay, the bus (in-process or Kafka), and consumers that apply each event once.
//!
//! The path of an event: a service writes it to its outbox in the same transaction as the
//! change it announces; the relay publishes committed rows to the bus and marks them; a
//! consumer applies each delivery in a transaction that also records the event id in its
//! inbox, so a redelivery is recognised and skipped.

pub mod bus;
pub mod catalogue;
pub mod consumer;
mod envelope;
pub mod events_doc;
pub mod kafka_bus;
pub mod local_bus;
pub mod metrics;
mod migrations;
pub mod outbox;
pub mod raisenow_names;
pub mod readiness;
pub mod relay;
mod schema;
mod wiring;

pub use bus::{Bus, BusError, Delivery, Message, Subscription};
pub use catalogue::EventType;
pub use coffer_model::trace::{self, TraceContext};
pub use consumer::{Consumer, ConsumerSettings, Handler, HandlerError};
pub use envelope::{Envelope, Event};
pub use migrations::MIGRATIONS;
pub use outbox::{Outbox, OutboxEvent, append, append_traced};
pub use relay::{Relay, RelaySettings};
pub use wiring::EventWiring;
