// The diesel view of migrations/reconciliation.

diesel::table! {
    blueprints (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        name -> Text,
        message_type -> Text,
        versions -> Text,
        ibans -> Text,
        processing -> Text,
        created -> BigInt,
        updated -> BigInt,
    }
}

diesel::table! {
    sources (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        name -> Text,
        kind -> Text,
        blueprint_uuid -> Text,
        sftp_host -> Nullable<Text>,
        sftp_port -> Nullable<Integer>,
        sftp_username -> Nullable<Text>,
        sftp_secret -> Nullable<Text>,
        sftp_secret_kind -> Nullable<Text>,
        sftp_directory -> Nullable<Text>,
        sftp_poll_seconds -> Nullable<Integer>,
        sftp_host_key -> Nullable<Text>,
        polled -> Nullable<BigInt>,
        poll_error -> Nullable<Text>,
        created -> BigInt,
        updated -> BigInt,
    }
}

diesel::table! {
    files (uuid) {
        uuid -> Text,
        source_uuid -> Nullable<Text>,
        blueprint_uuid -> Text,
        object_key -> Text,
        object_version -> Text,
        name -> Text,
        size -> BigInt,
        status -> Text,
        report_uuid -> Nullable<Text>,
        received -> BigInt,
        attempts -> Integer,
        next_attempt -> BigInt,
    }
}

diesel::table! {
    reports (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        blueprint_uuid -> Text,
        source_uuid -> Nullable<Text>,
        file_name -> Text,
        file_sha256 -> Text,
        message_type -> Nullable<Text>,
        message_version -> Nullable<Text>,
        message_id -> Nullable<Text>,
        status -> Text,
        reason -> Nullable<Text>,
        duplicate_of -> Nullable<Text>,
        entry_count -> BigInt,
        transaction_count -> BigInt,
        totals -> Text,
        matched -> Text,
        created_items -> Text,
        unmatched -> Text,
        notes -> Text,
        created -> BigInt,
    }
}

diesel::table! {
    payouts (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Text,
        amount_value -> BigInt,
        currency -> Text,
        reference -> Text,
        settlement_date -> Text,
        matched_report_uuid -> Nullable<Text>,
    }
}

// Files are chosen leaving out the organisations reading one already, by their blueprints.
diesel::allow_tables_to_appear_in_same_query!(blueprints, files);
