-- Every SFTP poll reads its source's waiting rows, to forget those whose file is gone from
-- the server (sftp/commands.rs): by this index, rather than through every file received.
CREATE INDEX files_waiting_source_idx ON files (source_uuid) WHERE status = 'waiting';
