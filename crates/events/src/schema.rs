// The tables every event-carrying service has (migrations/events), and the tables of the
// in-process bus (migrations/bus).

diesel::table! {
    outbox (seq) {
        seq -> BigInt,
        event_id -> Text,
        topic -> Text,
        message_key -> Text,
        partition_no -> Integer,
        payload -> Text,
        traceparent -> Nullable<Text>,
        created_ms -> BigInt,
        published_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    inbox (consumer, event_id) {
        consumer -> Text,
        event_id -> Text,
        handled_ms -> BigInt,
    }
}

diesel::table! {
    bus_messages (position) {
        position -> BigInt,
        topic -> Text,
        message_key -> Text,
        payload -> Text,
        headers -> Text,
        created_ms -> BigInt,
    }
}

diesel::table! {
    bus_positions (group_name, topic) {
        group_name -> Text,
        topic -> Text,
        position -> BigInt,
    }
}

diesel::table! {
    bus_dead_letters (id) {
        id -> BigInt,
        group_name -> Text,
        topic -> Text,
        message_key -> Text,
        payload -> Text,
        headers -> Text,
        reason -> Text,
        created_ms -> BigInt,
    }
}
