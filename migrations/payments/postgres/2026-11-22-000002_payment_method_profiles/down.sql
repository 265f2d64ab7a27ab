DROP TABLE payment_method_profiles;
