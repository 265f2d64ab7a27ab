// The diesel view of migrations/onboarding; every column type exists on PostgreSQL and
// SQLite alike.

diesel::table! {
    onboarding_configurations (uuid) {
        uuid -> Text,
        partner_uuid -> Text,
        account_labels -> Text,
        default_locale -> Text,
        created -> BigInt,
    }
}

diesel::table! {
    onboarding_processes (uuid) {
        uuid -> Text,
        configuration_uuid -> Text,
        partner_uuid -> Text,
        token -> Text,
        token_sha256 -> Text,
        external_id -> Text,
        status -> Text,
        initialisation_data -> Text,
        planned -> Nullable<Text>,
        results -> Nullable<Text>,
        partner_integration_uuid -> Nullable<Text>,
        expires_at -> BigInt,
        created -> BigInt,
        updated -> BigInt,
    }
}

diesel::table! {
    partner_integrations_made (uuid) {
        uuid -> Text,
        partner_uuid -> Text,
        organisation_uuid -> Text,
        configuration_uuid -> Text,
        process_uuid -> Text,
        status -> Text,
        created -> BigInt,
        updated -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    onboarding_configurations,
    onboarding_processes,
    partner_integrations_made,
);
