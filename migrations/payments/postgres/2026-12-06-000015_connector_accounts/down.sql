DROP TABLE connector_account_changes;
DROP TABLE connector_accounts;
