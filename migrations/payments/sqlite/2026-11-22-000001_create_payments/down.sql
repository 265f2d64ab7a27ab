DROP TABLE inbox;
DROP TABLE outbox;
DROP TABLE idempotency_keys;
DROP TABLE supporters;
DROP TABLE accounts;
DROP TABLE organisations;
