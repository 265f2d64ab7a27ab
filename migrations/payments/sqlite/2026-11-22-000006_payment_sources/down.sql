DROP TABLE payment_sources;
