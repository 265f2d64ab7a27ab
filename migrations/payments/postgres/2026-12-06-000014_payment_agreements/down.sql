DROP VIEW payment_agreements;
DROP INDEX payment_sources_organisation_idx;
DROP TABLE subscriptions;
