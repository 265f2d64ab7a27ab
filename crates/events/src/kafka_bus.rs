//! The bus in distributed mode: Kafka (or any broker that speaks its protocol).
//!
//! Producer: idempotent with `acks=all`, so a retried send neither duplicates nor reorders
//! within a partition; messages are keyed by object uuid, so one object's events share a
//! partition and stay in order. Consumers: one group per service; offsets are stored only
//! after the handler's transaction has committed (`enable.auto.offset.store=false`) and
//! committed in the background and on close.

use std::collections::BTreeMap;
use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, Headers, Message as _, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::util::Timeout;
use serde::{Deserialize, Serialize};

use crate::bus::{BoxFuture, Bus, BusError, Delivery, Message, Subscription};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct KafkaSettings {
    /// Bootstrap servers, `host:port[,host:port...]`. Required in distributed mode.
    pub brokers: String,
    /// Partitions of topics Coffer creates.
    pub partitions: i32,
    /// Replication factor of topics Coffer creates.
    pub replication: i32,
    pub session_timeout_ms: u32,
    pub heartbeat_interval_ms: u32,
    /// Further librdkafka settings (TLS, SASL), passed through. Written with `_` for `.`
    /// (`security_protocol` for `security.protocol`), since configuration keys cannot hold
    /// dots; librdkafka's own names never contain `_`.
    pub extra: BTreeMap<String, String>,
}

impl Default for KafkaSettings {
    fn default() -> Self {
        Self {
            brokers: String::new(),
            partitions: 6,
            replication: 1,
            session_timeout_ms: 10_000,
            heartbeat_interval_ms: 1_000,
            extra: BTreeMap::new(),
        }
    }
}

impl KafkaSettings {
    fn client(&self) -> ClientConfig {
        let mut config = ClientConfig::new();
        config.set("bootstrap.servers", &self.brokers);
        for (k, v) in &self.extra {
            config.set(k.replace('_', "."), v);
        }
        config
    }
}

fn unavailable(e: KafkaError) -> BusError {
    BusError::Unavailable(e.to_string())
}

pub struct KafkaBus {
    settings: KafkaSettings,
    producer: FutureProducer,
    dead_letter_prefix: String,
}

impl KafkaBus {
    pub fn new(settings: KafkaSettings, prefix: &str) -> Result<Self, BusError> {
        let producer: FutureProducer = settings
            .client()
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("linger.ms", "5")
            .set("message.timeout.ms", "30000")
            .create()
            .map_err(unavailable)?;
        Ok(Self {
            settings,
            producer,
            dead_letter_prefix: format!("{prefix}.dead-letters"),
        })
    }

    /// Creates `topics` if they do not exist. Brokers in production often forbid automatic
    /// topic creation, and a consumer subscribing to a missing topic would wait forever.
    pub async fn ensure_topics(&self, topics: &[String]) -> Result<(), BusError> {
        let admin: AdminClient<DefaultClientContext> =
            self.settings.client().create().map_err(unavailable)?;
        // One request naming a topic twice is malformed to the broker.
        let unique: std::collections::BTreeSet<&String> = topics.iter().collect();
        let new: Vec<NewTopic<'_>> = unique
            .into_iter()
            .map(|t| {
                NewTopic::new(
                    t,
                    self.settings.partitions,
                    TopicReplication::Fixed(self.settings.replication),
                )
            })
            .collect();
        let options =
            AdminOptions::new().operation_timeout(Some(Timeout::After(Duration::from_secs(10))));
        for result in admin
            .create_topics(&new, &options)
            .await
            .map_err(unavailable)?
        {
            match result {
                Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((topic, code)) => {
                    return Err(BusError::Unavailable(format!(
                        "cannot create topic {topic}: {code}"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The dead-letter topic of a consumer group.
    pub fn dead_letter_topic(&self, group: &str) -> String {
        format!("{}.{group}", self.dead_letter_prefix)
    }

    fn record<'a>(
        message: &'a Message,
        extra: Option<(&'a str, &'a str)>,
    ) -> FutureRecord<'a, String, Vec<u8>> {
        let mut headers = OwnedHeaders::new_with_capacity(message.headers.len() + 1);
        for (k, v) in &message.headers {
            headers = headers.insert(Header {
                key: k,
                value: Some(v.as_bytes()),
            });
        }
        if let Some((k, v)) = extra {
            headers = headers.insert(Header {
                key: k,
                value: Some(v.as_bytes()),
            });
        }
        FutureRecord::to(&message.topic)
            .key(&message.key)
            .payload(&message.payload)
            .headers(headers)
    }
}

impl Bus for KafkaBus {
    fn ready(&self) -> BoxFuture<'_, Result<(), BusError>> {
        let producer = self.producer.clone();
        Box::pin(async move {
            // A metadata request is the cheapest round trip to a broker; the client call
            // blocks, so it runs off the async threads.
            tokio::task::spawn_blocking(move || {
                producer
                    .client()
                    .fetch_metadata(None, Timeout::After(Duration::from_secs(2)))
                    .map(drop)
            })
            .await
            .map_err(|e| BusError::Unavailable(e.to_string()))?
            .map_err(unavailable)
        })
    }

    fn publish<'a>(&'a self, messages: &'a [Message]) -> BoxFuture<'a, Result<(), BusError>> {
        Box::pin(async move {
            // Enqueue everything, then wait for every acknowledgement: the idempotent
            // producer keeps the order within each partition. (`send` would enqueue each
            // record only when its future is first polled, one round trip at a time.)
            let mut pending = Vec::with_capacity(messages.len());
            for message in messages {
                let mut record = Self::record(message, None);
                loop {
                    match self.producer.send_result(record) {
                        Ok(delivery) => {
                            pending.push(delivery);
                            break;
                        }
                        Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                            record = back;
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                        Err((e, _)) => return Err(BusError::Publish(e.to_string())),
                    }
                }
            }
            for delivery in pending {
                match delivery.await {
                    Ok(Ok(_)) => {}
                    Ok(Err((e, _))) => return Err(BusError::Publish(e.to_string())),
                    Err(_) => {
                        return Err(BusError::Publish("the producer dropped a message".into()));
                    }
                }
            }
            Ok(())
        })
    }

    fn subscribe<'a>(
        &'a self,
        group: &'a str,
        topics: &'a [String],
    ) -> BoxFuture<'a, Result<Box<dyn Subscription>, BusError>> {
        Box::pin(async move {
            self.ensure_topics(topics).await?;
            let consumer: StreamConsumer = self
                .settings
                .client()
                .set("group.id", group)
                .set("enable.auto.commit", "true")
                .set("auto.commit.interval.ms", "1000")
                .set("enable.auto.offset.store", "false")
                .set("auto.offset.reset", "earliest")
                .set(
                    "session.timeout.ms",
                    self.settings.session_timeout_ms.to_string(),
                )
                .set(
                    "heartbeat.interval.ms",
                    self.settings.heartbeat_interval_ms.to_string(),
                )
                .create()
                .map_err(unavailable)?;
            let names: Vec<&str> = topics.iter().map(String::as_str).collect();
            consumer.subscribe(&names).map_err(unavailable)?;
            Ok(Box::new(KafkaSubscription { consumer }) as Box<dyn Subscription>)
        })
    }

    fn dead_letter<'a>(
        &'a self,
        group: &'a str,
        message: &'a Message,
        reason: &'a str,
    ) -> BoxFuture<'a, Result<(), BusError>> {
        Box::pin(async move {
            let topic = self.dead_letter_topic(group);
            self.ensure_topics(std::slice::from_ref(&topic)).await?;
            let moved = Message {
                topic,
                ..message.clone()
            };
            let record = Self::record(&moved, Some(("dead_letter_reason", reason)));
            self.producer
                .send(record, Timeout::After(Duration::from_secs(30)))
                .await
                .map(drop)
                .map_err(|(e, _)| BusError::Publish(e.to_string()))
        })
    }
}

struct KafkaSubscription {
    consumer: StreamConsumer,
}

impl Subscription for KafkaSubscription {
    fn next(&mut self) -> BoxFuture<'_, Result<Delivery, BusError>> {
        Box::pin(async move {
            let message = self
                .consumer
                .recv()
                .await
                .map_err(|e| BusError::Consume(e.to_string()))?;
            let headers = message
                .headers()
                .map(|h| {
                    h.iter()
                        .map(|header| {
                            (
                                header.key.to_owned(),
                                String::from_utf8_lossy(header.value.unwrap_or_default())
                                    .into_owned(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            Ok(Delivery {
                message: Message {
                    topic: message.topic().to_owned(),
                    key: String::from_utf8_lossy(message.key().unwrap_or_default()).into_owned(),
                    payload: message.payload().unwrap_or_default().to_vec(),
                    headers,
                },
                partition: message.partition(),
                offset: message.offset(),
            })
        })
    }

    fn ack<'a>(&'a mut self, delivery: &'a Delivery) -> BoxFuture<'a, Result<(), BusError>> {
        Box::pin(async move {
            // The stored offset is the next one to read.
            self.consumer
                .store_offset(
                    &delivery.message.topic,
                    delivery.partition,
                    delivery.offset + 1,
                )
                .map_err(|e| BusError::Consume(e.to_string()))
        })
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            match self.consumer.commit_consumer_state(CommitMode::Sync) {
                // Nothing new since the last background commit.
                Ok(()) | Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::NoOffset)) => {}
                Err(e) => tracing::warn!(error = %e, "could not commit consumer offsets on close"),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_settings_reach_librdkafka_with_dots() {
        let settings = KafkaSettings {
            brokers: "b:9092".into(),
            extra: BTreeMap::from([("security_protocol".to_owned(), "sasl_ssl".to_owned())]),
            ..KafkaSettings::default()
        };
        let config = settings.client();
        assert_eq!(config.get("security.protocol"), Some("sasl_ssl"));
        assert_eq!(config.get("bootstrap.servers"), Some("b:9092"));
    }
}
