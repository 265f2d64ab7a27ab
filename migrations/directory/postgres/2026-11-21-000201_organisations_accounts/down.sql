DROP TABLE accounts;
DROP TABLE organisations;
