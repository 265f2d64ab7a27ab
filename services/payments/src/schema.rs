// The diesel view of migrations/payments.

diesel::table! {
    supporters (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        created -> BigInt,
        raw -> Nullable<Text>,
        raw_name -> Nullable<Text>,
        legal_entity -> Nullable<Text>,
        honorific_prefix -> Nullable<Text>,
        salutation -> Nullable<Text>,
        first_name -> Nullable<Text>,
        middle_name -> Nullable<Text>,
        last_name -> Nullable<Text>,
        care_of -> Nullable<Text>,
        raw_address -> Nullable<Text>,
        street -> Nullable<Text>,
        house_number -> Nullable<Text>,
        address_addendum -> Nullable<Text>,
        post_office_box -> Nullable<Text>,
        postal_code -> Nullable<Text>,
        city -> Nullable<Text>,
        region_level_1 -> Nullable<Text>,
        region_level_2 -> Nullable<Text>,
        country -> Nullable<Text>,
        email -> Nullable<Text>,
        phone -> Nullable<Text>,
        birth_day -> Nullable<Text>,
        birth_month -> Nullable<Text>,
        birth_year -> Nullable<Text>,
        locale -> Nullable<Text>,
        custom_parameters -> Text,
        service_parameters -> Text,
    }
}

diesel::table! {
    payment_method_profiles (uuid) {
        uuid -> Text,
        account_uuid -> Text,
        organisation_uuid -> Text,
        name -> Text,
        payment_method -> Text,
        test_mode -> Bool,
        provider -> Text,
        is_default -> Bool,
        created -> BigInt,
        connector_account_uuid -> Nullable<Text>,
    }
}

diesel::table! {
    payments (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        created -> BigInt,
        updated -> BigInt,
        test_mode -> Bool,
        payment_method -> Text,
        profile -> Text,
        payment_provider -> Text,
        provider_payment_id -> Nullable<Text>,
        status -> Text,
        status_reason -> Nullable<Text>,
        amount_value -> BigInt,
        currency -> Text,
        refunded_amount -> BigInt,
        supporter_uuid -> Nullable<Text>,
        supporter -> Nullable<Text>,
        payment_information -> Text,
        created_payment_source_uuid -> Nullable<Text>,
        subscription -> Nullable<Text>,
        subscription_uuid -> Nullable<Text>,
        custom_parameters -> Text,
        locale -> Nullable<Text>,
        return_url -> Nullable<Text>,
        action -> Nullable<Text>,
        cancel_reason -> Nullable<Text>,
        end_to_end_id -> Nullable<Text>,
        mandate_reference -> Nullable<Text>,
        charge_attempt_uuid -> Nullable<Text>,
        charge_state -> Text,
        charge_started -> Nullable<BigInt>,
        payment_source_uuid -> Nullable<Text>,
    }
}

diesel::table! {
    disputes (connector_account_uuid, provider_dispute_id) {
        connector_account_uuid -> Text,
        provider_dispute_id -> Text,
        uuid -> Text,
        payment_uuid -> Text,
        amount_value -> BigInt,
        currency -> Text,
        reason -> Text,
        status -> Text,
        created -> BigInt,
        provider_updated -> BigInt,
    }
}

diesel::table! {
    refunds (uuid) {
        uuid -> Text,
        payment_uuid -> Text,
        amount_value -> BigInt,
        currency -> Text,
        status -> Text,
        created -> BigInt,
        charge_state -> Text,
        charge_started -> Nullable<BigInt>,
        status_reason -> Nullable<Text>,
        payout_uuid -> Nullable<Text>,
    }
}

diesel::table! {
    payment_sources (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        created -> BigInt,
        updated -> BigInt,
        test_mode -> Bool,
        payment_method -> Text,
        profile -> Text,
        payment_provider -> Text,
        provider_reference -> Text,
        status -> Text,
        status_reason -> Nullable<Text>,
        payment_information -> Text,
        supporter_uuid -> Nullable<Text>,
        custom_parameters -> Text,
        action -> Nullable<Text>,
        return_url -> Nullable<Text>,
    }
}

diesel::table! {
    test_psp_ledger (idempotency_key) {
        idempotency_key -> Text,
        kind -> Text,
        outcome -> Text,
        requests -> BigInt,
        created -> BigInt,
    }
}

diesel::table! {
    payouts (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        currency -> Text,
        gross_value -> BigInt,
        fees_value -> BigInt,
        refunded_value -> BigInt,
        amount_value -> BigInt,
        payment_count -> BigInt,
        reference -> Text,
        status -> Text,
        settlement_date -> Text,
        value_date -> Nullable<Text>,
        created -> BigInt,
        updated -> BigInt,
    }
}

diesel::table! {
    payment_settlements (payment_uuid) {
        payment_uuid -> Text,
        payout_uuid -> Nullable<Text>,
        fee_value -> Nullable<BigInt>,
        value_date -> Nullable<Text>,
        return_reason -> Nullable<Text>,
    }
}

diesel::table! {
    payment_rollups (organisation_uuid, account_uuid, day, test_mode, status, payment_method, currency) {
        organisation_uuid -> Text,
        account_uuid -> Text,
        day -> BigInt,
        test_mode -> Bool,
        status -> Text,
        payment_method -> Text,
        currency -> Text,
        n -> BigInt,
        amount_high -> BigInt,
        amount_low -> BigInt,
        quarters -> Binary,
    }
}

diesel::joinable!(payment_settlements -> payments (payment_uuid));
diesel::joinable!(refunds -> payments (payment_uuid));
diesel::allow_tables_to_appear_in_same_query!(payments, refunds, payment_settlements, payouts);

diesel::table! {
    /// Billing's subscriptions as their events announced them (agreements/).
    subscriptions (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        supporter_uuid -> Nullable<Text>,
        payment_source_uuid -> Text,
        payment_method -> Text,
        test_mode -> Bool,
        status -> Text,
        amount -> BigInt,
        currency -> Text,
        recurring_interval -> Text,
        custom_parameters -> Text,
        created -> BigInt,
        updated_ms -> BigInt,
    }
}

diesel::table! {
    /// A view: one row per payment agreement (migration 000014_payment_agreements).
    payment_agreements (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        agreement_type -> Text,
        status -> Text,
        amount -> Nullable<BigInt>,
        currency -> Nullable<Text>,
        recurring_interval -> Nullable<Text>,
        payment_method -> Text,
        test_mode -> Bool,
        payment_source_uuid -> Text,
        subscription_uuid -> Nullable<Text>,
        mandate_reference -> Nullable<Text>,
        supporter_uuid -> Nullable<Text>,
        supporter_first_name -> Nullable<Text>,
        supporter_last_name -> Nullable<Text>,
        supporter_email -> Nullable<Text>,
        custom_parameters -> Text,
        created -> BigInt,
    }
}

diesel::table! {
    connector_accounts (uuid) {
        uuid -> Text,
        account_uuid -> Text,
        name -> Text,
        provider -> Text,
        mode -> Text,
        secret_key -> Text,
        secret_key_hint -> Text,
        webhook_secret -> Nullable<Text>,
        previous_webhook_secret -> Nullable<Text>,
        created -> BigInt,
        updated -> BigInt,
        publishable_key -> Nullable<Text>,
    }
}

diesel::table! {
    connector_account_changes (uuid) {
        uuid -> Text,
        connector_account_uuid -> Text,
        account_uuid -> Text,
        change -> Text,
        secret_key_hint -> Text,
        actor -> Text,
        at -> BigInt,
    }
}

diesel::table! {
    provider_notifications (connector_account_uuid, event_id) {
        connector_account_uuid -> Text,
        event_id -> Text,
        event_type -> Text,
        received -> BigInt,
    }
}
