ALTER TABLE payment_sources DROP COLUMN return_url;
ALTER TABLE payment_sources DROP COLUMN action;
