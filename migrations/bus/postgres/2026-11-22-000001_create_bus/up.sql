-- The in-process bus of standalone Coffer: a durable topic log with consumer positions.
CREATE TABLE bus_messages (
    position BIGSERIAL PRIMARY KEY,
    topic TEXT NOT NULL,
    message_key TEXT NOT NULL,
    payload TEXT NOT NULL,
    headers TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE INDEX bus_messages_topic_idx ON bus_messages (topic, position);

CREATE TABLE bus_positions (
    group_name TEXT NOT NULL,
    topic TEXT NOT NULL,
    position BIGINT NOT NULL,
    PRIMARY KEY (group_name, topic)
);

CREATE TABLE bus_dead_letters (
    id BIGSERIAL PRIMARY KEY,
    group_name TEXT NOT NULL,
    topic TEXT NOT NULL,
    message_key TEXT NOT NULL,
    payload TEXT NOT NULL,
    headers TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);
