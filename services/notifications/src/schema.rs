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
        updated -> BigInt,
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
