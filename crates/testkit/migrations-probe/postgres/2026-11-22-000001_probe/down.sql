DROP TABLE effects;
DROP TABLE inbox;
DROP TABLE outbox;
