DROP TABLE inbox;
DROP TABLE outbox;
DROP TABLE idempotency_keys;
DROP TABLE subscription_plans;
DROP TABLE accounts;
DROP TABLE organisations;
