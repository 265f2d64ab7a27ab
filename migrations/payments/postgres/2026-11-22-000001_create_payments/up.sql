-- Payments' own data. The organisations and accounts replica, the outbox and inbox and the
-- idempotency keys come from the shared sets in Migrations::includes (crates/directory,
-- crates/events, crates/store).

CREATE TABLE supporters (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    created BIGINT NOT NULL,
    raw TEXT,
    raw_name TEXT,
    legal_entity TEXT,
    honorific_prefix TEXT,
    salutation TEXT,
    first_name TEXT,
    middle_name TEXT,
    last_name TEXT,
    care_of TEXT,
    raw_address TEXT,
    street TEXT,
    house_number TEXT,
    address_addendum TEXT,
    post_office_box TEXT,
    postal_code TEXT,
    city TEXT,
    region_level_1 TEXT,
    region_level_2 TEXT,
    country TEXT,
    email TEXT,
    phone TEXT,
    birth_day TEXT,
    birth_month TEXT,
    birth_year TEXT,
    locale TEXT,
    custom_parameters TEXT NOT NULL,
    service_parameters TEXT NOT NULL
);
CREATE INDEX supporters_organisation_idx ON supporters (organisation_uuid, created, uuid);
