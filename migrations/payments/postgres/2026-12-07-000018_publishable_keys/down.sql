ALTER TABLE connector_accounts DROP COLUMN publishable_key;
