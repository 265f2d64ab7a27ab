DROP TABLE subscriptions;
DROP TABLE supporters;
DROP TABLE payment_sources;
