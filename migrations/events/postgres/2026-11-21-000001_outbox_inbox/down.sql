DROP TABLE inbox;
DROP TABLE outbox;
