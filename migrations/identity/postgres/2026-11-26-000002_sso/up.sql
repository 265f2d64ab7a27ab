-- Partners and their users' single sign-on (docs/partners.md). A partner is one API
-- client: the same client id and secret serve its client-credentials calls and its SSO.
CREATE TABLE partners (
    uuid TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    client_id TEXT NOT NULL UNIQUE REFERENCES api_clients (client_id),
    created BIGINT NOT NULL
);

-- Where a partner's users may be sent back with a code: compared exactly, never by prefix.
CREATE TABLE partner_redirect_uris (
    partner_uuid TEXT NOT NULL REFERENCES partners (uuid),
    uri TEXT NOT NULL,
    PRIMARY KEY (partner_uuid, uri)
);

-- People who sign in with an e-mail address and a password (argon2id, as a PHC string).
-- `email_key` is the address lowercased: one user per address, however it is written.
-- A user made without a password has none (NULL) and cannot sign in until given one.
CREATE TABLE users (
    uuid TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    email_key TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    organisation_uuid TEXT NOT NULL REFERENCES organisations (uuid),
    locale TEXT,
    password_hash TEXT,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE INDEX users_organisation_idx ON users (organisation_uuid);

-- Authorization codes, kept by their SHA-256 only: a copy of this table signs nobody in.
-- A code is redeemed once; `redeemed_at` marks it, and a second try marks it `revoked_at`.
CREATE TABLE authorization_codes (
    code_sha256 TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    user_uuid TEXT NOT NULL REFERENCES users (uuid),
    scope TEXT NOT NULL,
    nonce TEXT,
    code_challenge TEXT,
    auth_time BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    redeemed_at BIGINT,
    revoked_at BIGINT
);
CREATE INDEX authorization_codes_expires_idx ON authorization_codes (expires_at);
