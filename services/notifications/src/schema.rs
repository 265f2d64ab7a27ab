// The diesel view of migrations/notifications (the replica's tables live in coffer-directory).

diesel::table! {
    webhook_endpoints (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Nullable<Text>,
        alias -> Nullable<Text>,
        endpoint -> Text,
        username -> Nullable<Text>,
        password_sealed -> Nullable<Text>,
        hmac_key_sealed -> Text,
        previous_hmac_key_sealed -> Nullable<Text>,
        previous_hmac_key_until -> Nullable<BigInt>,
        enabled -> Bool,
        disabled_reason -> Nullable<Text>,
        created -> BigInt,
        failing_since -> Nullable<BigInt>,
        updated -> BigInt,
        partner_uuid -> Nullable<Text>,
    }
}

diesel::table! {
    event_subscriptions (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Nullable<Text>,
        action_configuration_uuid -> Text,
        event_name -> Text,
        event_key -> Text,
        filter -> Nullable<Text>,
        enabled -> Bool,
        created -> BigInt,
        updated -> BigInt,
    }
}

diesel::table! {
    delivery_tasks (uuid) {
        uuid -> Text,
        event_uuid -> Text,
        event_name -> Text,
        endpoint_uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Nullable<Text>,
        object_uuid -> Text,
        body -> Text,
        state -> Text,
        tries -> Integer,
        max_tries -> Integer,
        due_ms -> BigInt,
        created_ms -> BigInt,
        updated_ms -> BigInt,
    }
}

diesel::table! {
    webhook_responses (uuid) {
        uuid -> Text,
        task_uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Nullable<Text>,
        webhook_configuration_uuid -> Text,
        event_uuid -> Text,
        object_uuid -> Text,
        sent_at -> BigInt,
        answered -> Bool,
        error -> Bool,
        status_code -> Integer,
        reason_phrase -> Text,
        error_message -> Nullable<Text>,
        response_time -> BigInt,
        do_not_retry -> Bool,
        request_headers -> Text,
        request_body -> Text,
        response_headers -> Text,
        response_body -> Text,
    }
}
