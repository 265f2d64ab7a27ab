-- Reconciliation's own tables (docs/reconciliation.md).

-- What to expect in a bank file and how to process it.
CREATE TABLE blueprints (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    name TEXT NOT NULL,
    message_type TEXT NOT NULL,
    -- JSON arrays: the message versions accepted (empty: every supported one) and the
    -- account IBANs the file may report (empty: any).
    versions TEXT NOT NULL,
    ibans TEXT NOT NULL,
    processing TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE INDEX blueprints_account_idx ON blueprints (account_uuid, created);

-- Where bank files come from; each is mapped to one blueprint.
CREATE TABLE sources (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    blueprint_uuid TEXT NOT NULL REFERENCES blueprints (uuid),
    -- An SFTP source's server; the password or private key sealed with the master keys.
    sftp_host TEXT,
    sftp_port INTEGER,
    sftp_username TEXT,
    sftp_secret TEXT,
    sftp_secret_kind TEXT,
    sftp_directory TEXT,
    sftp_poll_seconds INTEGER,
    sftp_host_key TEXT,
    -- When the poller last looked, and why it failed if it did.
    polled BIGINT,
    poll_error TEXT,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE INDEX sources_account_idx ON sources (account_uuid, created);

-- Every file received, once: by its place (its key) and its version (when the store wrote
-- it), so a file seen again by a poll or listed again is never read twice, and a new file
-- under a key used before (banks reuse names) is read as the new file it is. `status` is
-- waiting until its report is written in the same transaction that marks it done.
CREATE TABLE files (
    uuid TEXT PRIMARY KEY,
    source_uuid TEXT,
    blueprint_uuid TEXT NOT NULL,
    object_key TEXT NOT NULL,
    object_version TEXT NOT NULL DEFAULT '',
    name TEXT NOT NULL,
    size BIGINT NOT NULL,
    status TEXT NOT NULL,
    report_uuid TEXT,
    received BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX files_place_idx ON files (object_key, object_version);
CREATE INDEX files_waiting_idx ON files (next_attempt) WHERE status = 'waiting';

CREATE TABLE reports (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    blueprint_uuid TEXT NOT NULL,
    source_uuid TEXT,
    file_name TEXT NOT NULL,
    file_sha256 TEXT NOT NULL,
    message_type TEXT,
    message_version TEXT,
    message_id TEXT,
    status TEXT NOT NULL,
    reason TEXT,
    duplicate_of TEXT,
    entry_count BIGINT NOT NULL,
    transaction_count BIGINT NOT NULL,
    -- JSON: totals per currency, the matched, created and unmatched entries, and notes
    -- (batches that do not add up).
    totals TEXT NOT NULL,
    matched TEXT NOT NULL,
    created_items TEXT NOT NULL,
    unmatched TEXT NOT NULL,
    notes TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE INDEX reports_account_idx ON reports (account_uuid, created);
-- A file processed once per account: by its message id, and by its bytes.
CREATE UNIQUE INDEX reports_message_idx ON reports (account_uuid, message_id)
    WHERE status = 'processed';
CREATE UNIQUE INDEX reports_sha_idx ON reports (account_uuid, file_sha256)
    WHERE status = 'processed';

-- Payments' payouts, from `payment_gateway.payout.created`: what a statement's credit is
-- matched with.
CREATE TABLE payouts (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    amount_value BIGINT NOT NULL,
    currency TEXT NOT NULL,
    reference TEXT NOT NULL,
    settlement_date TEXT NOT NULL,
    matched_report_uuid TEXT
);
CREATE INDEX payouts_reference_idx ON payouts (account_uuid, reference);
