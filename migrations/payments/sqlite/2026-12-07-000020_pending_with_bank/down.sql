DROP INDEX payments_with_bank_idx;
DROP TABLE provider_asks;
