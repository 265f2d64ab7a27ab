use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::EventType;

/// One domain event, as ARCHITECTURE.md gives it; also the body of a webhook delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub id: Uuid,
    pub name: String,
    /// Unix milliseconds.
    pub timestamp: i64,
    pub object: String,
    pub object_uuid: Uuid,
    pub organisation_uuid: Option<Uuid>,
    pub account_uuid: Option<Uuid>,
    pub data: serde_json::Value,
}

/// The wire form: `{"event": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub event: Event,
}

/// [`Envelope`] by reference: the same JSON, for writing an event without cloning it.
#[derive(Serialize)]
struct EnvelopeOf<'a> {
    event: &'a Event,
}

impl Event {
    /// A new event of `kind` about `object_uuid`, named under `prefix`.
    pub fn new(
        kind: &EventType,
        prefix: &str,
        timestamp_ms: i64,
        object_uuid: Uuid,
        organisation_uuid: Option<Uuid>,
        account_uuid: Option<Uuid>,
        data: serde_json::Value,
    ) -> Self {
        Self {
            id: Uuid::new_v4(),
            name: kind.name(prefix),
            timestamp: timestamp_ms,
            object: kind.object.to_owned(),
            object_uuid,
            organisation_uuid,
            account_uuid,
            data,
        }
    }

    /// The action part of the name (`created` in `coffer.event.identity.organisation.created`).
    pub fn action(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or_default()
    }

    pub fn to_json(&self) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec(&EnvelopeOf { event: self })
    }

    /// The wire form as text, written without copying the event.
    pub fn to_json_string(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(&EnvelopeOf { event: self })
    }

    pub fn from_json(bytes: &[u8]) -> Result<Event, serde_json::Error> {
        serde_json::from_slice::<Envelope>(bytes).map(|e| e.event)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::catalogue::ORGANISATION_CREATED;

    #[test]
    fn envelope_has_exactly_the_documented_fields() {
        let org = Uuid::new_v4();
        let e = Event::new(
            &ORGANISATION_CREATED,
            "coffer",
            1_700_000_000_123,
            org,
            Some(org),
            None,
            serde_json::json!({"name": "x"}),
        );
        let v: serde_json::Value = serde_json::from_slice(&e.to_json().unwrap()).unwrap();
        let mut keys: Vec<&str> = v["event"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "account_uuid",
                "data",
                "id",
                "name",
                "object",
                "object_uuid",
                "organisation_uuid",
                "timestamp"
            ]
        );
        assert_eq!(
            v["event"]["name"],
            "coffer.event.identity.organisation.created"
        );
        assert_eq!(v["event"]["timestamp"], 1_700_000_000_123_i64);
        assert_eq!(Event::from_json(&e.to_json().unwrap()).unwrap(), e);
        assert_eq!(e.action(), "created");
    }
}
