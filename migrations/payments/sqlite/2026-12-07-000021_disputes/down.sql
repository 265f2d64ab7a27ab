DROP INDEX payments_provider_payment_idx;
DROP TABLE disputes;
