DROP TABLE supporters;
