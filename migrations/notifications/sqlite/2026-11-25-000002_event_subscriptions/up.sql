-- Which events go to which endpoint. event_name is kept as the client sent it (any prefix
-- before `.event.`); event_key is its catalogue part (`payment_gateway.payment.succeeded`),
-- which deliveries match on. filter holds the filter as sent (JSON), checked on the way in.
CREATE TABLE event_subscriptions (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT,
    action_configuration_uuid TEXT NOT NULL,
    event_name TEXT NOT NULL,
    event_key TEXT NOT NULL,
    filter TEXT,
    enabled BOOLEAN NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE INDEX event_subscriptions_organisation_idx ON event_subscriptions (organisation_uuid);
CREATE INDEX event_subscriptions_endpoint_idx ON event_subscriptions (action_configuration_uuid);
CREATE INDEX event_subscriptions_event_idx ON event_subscriptions (event_key);
