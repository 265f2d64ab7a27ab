// The diesel view of migrations/identity. Every column type here exists on PostgreSQL and
// SQLite alike, so one schema serves both backends.

diesel::table! {
    organisations (uuid) {
        uuid -> Text,
        name -> Text,
        created -> BigInt,
        approval_status -> Text,
        active -> Bool,
        merchant_category_code -> Nullable<Text>,
        locale -> Nullable<Text>,
    }
}

diesel::table! {
    accounts (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        name -> Text,
        created -> BigInt,
        active -> Bool,
    }
}

diesel::table! {
    addresses (uuid) {
        uuid -> Text,
        organisation_uuid -> Nullable<Text>,
        account_uuid -> Nullable<Text>,
        created -> BigInt,
        address_line1 -> Text,
        address_line2 -> Text,
        postal_code -> Text,
        city -> Text,
        country_code -> Text,
        #[sql_name = "type"]
        kind -> Text,
    }
}

diesel::table! {
    metadata (owner_uuid, key) {
        owner_uuid -> Text,
        key -> Text,
        value -> Text,
    }
}

diesel::table! {
    billing_data (account_uuid) {
        account_uuid -> Text,
        account_holder -> Text,
        iban -> Text,
        vat_number -> Text,
        recipient_emails -> Text,
        address_line1 -> Text,
        address_line2 -> Text,
        postal_code -> Text,
        city -> Text,
        country_code -> Text,
    }
}

diesel::table! {
    api_clients (client_id) {
        client_id -> Text,
        secret_sha256 -> Text,
        scope -> Text,
        created -> BigInt,
        disabled_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    api_client_organisations (client_id, organisation_uuid) {
        client_id -> Text,
        organisation_uuid -> Text,
    }
}

diesel::table! {
    signing_keys (kid) {
        kid -> Text,
        private_key_pkcs8 -> Text,
        created -> BigInt,
        retired_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    partners (uuid) {
        uuid -> Text,
        name -> Text,
        client_id -> Text,
        created -> BigInt,
    }
}

diesel::table! {
    partner_redirect_uris (partner_uuid, uri) {
        partner_uuid -> Text,
        uri -> Text,
    }
}

diesel::table! {
    users (uuid) {
        uuid -> Text,
        email -> Text,
        email_key -> Text,
        name -> Text,
        organisation_uuid -> Text,
        locale -> Nullable<Text>,
        password_hash -> Nullable<Text>,
        created -> BigInt,
        updated -> BigInt,
    }
}

diesel::table! {
    authorization_codes (code_sha256) {
        code_sha256 -> Text,
        client_id -> Text,
        redirect_uri -> Text,
        user_uuid -> Text,
        scope -> Text,
        nonce -> Nullable<Text>,
        code_challenge -> Nullable<Text>,
        auth_time -> BigInt,
        expires_at -> BigInt,
        redeemed_at -> Nullable<BigInt>,
        revoked_at -> Nullable<BigInt>,
    }
}

diesel::joinable!(accounts -> organisations (organisation_uuid));
diesel::joinable!(billing_data -> accounts (account_uuid));
diesel::joinable!(api_client_organisations -> api_clients (client_id));
diesel::joinable!(api_client_organisations -> organisations (organisation_uuid));
diesel::joinable!(partner_redirect_uris -> partners (partner_uuid));
diesel::joinable!(partners -> api_clients (client_id));

diesel::allow_tables_to_appear_in_same_query!(
    organisations,
    accounts,
    addresses,
    metadata,
    billing_data,
    api_clients,
    api_client_organisations,
    signing_keys,
    partners,
    partner_redirect_uris,
    users,
    authorization_codes,
);
