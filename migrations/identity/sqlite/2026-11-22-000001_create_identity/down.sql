DROP TABLE signing_keys;
DROP TABLE api_client_organisations;
DROP TABLE api_clients;
DROP TABLE billing_data;
DROP TABLE metadata;
DROP TABLE addresses;
DROP TABLE accounts;
DROP TABLE organisations;
