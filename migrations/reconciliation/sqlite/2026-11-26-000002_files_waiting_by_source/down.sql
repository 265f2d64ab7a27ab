DROP INDEX files_waiting_source_idx;
