DROP TABLE payouts;
DROP TABLE reports;
DROP TABLE files;
DROP TABLE sources;
DROP TABLE blueprints;
