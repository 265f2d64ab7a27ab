// The diesel view of migrations/billing (the replica's tables live in coffer-directory).

diesel::table! {
    subscription_plans (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Nullable<Text>,
        name -> Text,
        is_default -> Bool,
        dunning_configuration -> Text,
        notification_configuration -> Text,
        created -> BigInt,
        updated -> BigInt,
        notify_before_charge_days -> Nullable<Integer>,
    }
}

diesel::table! {
    payment_sources (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        test_mode -> Bool,
        payment_method -> Text,
        payment_provider -> Text,
        status -> Text,
        updated_ms -> BigInt,
    }
}

diesel::table! {
    supporters (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        updated_ms -> BigInt,
    }
}

diesel::table! {
    subscriptions (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        supporter_uuid -> Nullable<Text>,
        plan_uuid -> Text,
        payment_source_uuid -> Text,
        payment_provider -> Text,
        payment_method -> Text,
        test_mode -> Bool,
        currency -> Text,
        amount -> BigInt,
        timezone -> Text,
        recurring_interval -> Text,
        anchor_date -> Text,
        status -> Text,
        next_due_date -> Nullable<BigInt>,
        planned_effective_from -> Nullable<Text>,
        planned_since -> Nullable<BigInt>,
        planned_end -> Nullable<Text>,
        ended_at -> Nullable<BigInt>,
        suspension_start -> Nullable<Text>,
        suspension_end -> Nullable<Text>,
        consecutive_failed_invoices -> Integer,
        custom_parameters -> Text,
        service_parameters -> Text,
        created -> BigInt,
        updated -> BigInt,
        test_clock_uuid -> Nullable<Text>,
        upcoming_announced -> Nullable<BigInt>,
    }
}

diesel::table! {
    invoices (uuid) {
        uuid -> Text,
        subscription_uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        period_date -> Nullable<Text>,
        due_date -> BigInt,
        status -> Text,
        status_reason -> Text,
        amount -> BigInt,
        refunded_amount -> BigInt,
        currency -> Text,
        next_attempt_date -> Nullable<BigInt>,
        failed_payment_attempts -> Integer,
        is_manually_created -> Bool,
        custom_parameters -> Text,
        service_parameters -> Text,
        created -> BigInt,
        updated -> BigInt,
    }
}

diesel::table! {
    charge_attempts (uuid) {
        uuid -> Text,
        invoice_uuid -> Text,
        subscription_uuid -> Text,
        status -> Text,
        status_reason -> Nullable<Text>,
        payment_uuid -> Nullable<Text>,
        created -> BigInt,
        updated -> BigInt,
    }
}

diesel::table! {
    test_clocks (uuid) {
        uuid -> Text,
        owner -> Text,
        frozen_time -> BigInt,
        target_time -> Nullable<BigInt>,
        status -> Text,
        created -> BigInt,
        updated -> BigInt,
    }
}
