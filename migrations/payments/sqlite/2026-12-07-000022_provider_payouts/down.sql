DROP TABLE provider_payouts;
