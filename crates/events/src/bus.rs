//! What carries events between services: a topic log with consumer groups.

use std::future::Future;
use std::pin::Pin;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One message on a topic. The key (an object uuid) keeps one object's messages in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub topic: String,
    pub key: String,
    pub payload: Vec<u8>,
    /// `traceparent`, `event_id`, `event_name`.
    pub headers: Vec<(String, String)>,
}

impl Message {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A message handed to a consumer group, with what the bus needs to acknowledge it.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub message: Message,
    /// Bus-specific position (offset within its topic and partition).
    pub partition: i32,
    pub offset: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum BusError {
    #[error("the event bus is unavailable: {0}")]
    Unavailable(String),
    #[error("publishing failed: {0}")]
    Publish(String),
    #[error("consuming failed: {0}")]
    Consume(String),
}

/// A consumer group's view of its topics.
pub trait Subscription: Send {
    /// The next message; waits until there is one.
    fn next(&mut self) -> BoxFuture<'_, Result<Delivery, BusError>>;

    /// Marks `delivery` (and everything before it in its partition) as done. Called only
    /// after the consumer's transaction has committed.
    fn ack<'a>(&'a mut self, delivery: &'a Delivery) -> BoxFuture<'a, Result<(), BusError>>;

    /// Makes acknowledged positions durable; called on shutdown.
    fn close(&mut self) -> BoxFuture<'_, ()>;
}

pub trait Bus: Send + Sync + 'static {
    /// Publishes in order; resolves once the bus has durably taken every message.
    fn publish<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<(), BusError>>;

    /// [`Bus::publish`] on the calling thread, for a caller on a blocking thread (the
    /// relay, which on SQLite holds the outbox's write lock meanwhile): `None` when this
    /// bus only publishes asynchronously. A bus in the same process answers here, so the
    /// hand-over needs no other thread of the runtime, some of which may be waiting for
    /// that lock. A bus that wraps another must pass this on, or the wait comes back.
    fn publish_here(&self, _messages: &[Message]) -> Option<Result<(), BusError>> {
        None
    }

    fn subscribe<'a>(
        &'a self,
        group: &'a str,
        topics: &'a [String],
    ) -> BoxFuture<'a, Result<Box<dyn Subscription>, BusError>>;

    /// Resolves when the bus answers (for readiness checks).
    fn ready(&self) -> BoxFuture<'_, Result<(), BusError>>;

    /// Sets aside a message its consumer gave up on, with the reason.
    fn dead_letter<'a>(
        &'a self,
        group: &'a str,
        message: &'a Message,
        reason: &'a str,
    ) -> BoxFuture<'a, Result<(), BusError>>;
}
