-- name: runs
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Every ingest run, newest first: where it read from, whether it
--   finished (a recorder killed mid-run stays `running` with no finish
--   time; what it committed is kept; a run stopped by a store error is
--   `failed`, the error in `ingest_errors`), and what it added.
-- params: none
-- columns: run_id BIGINT, source_kind VARCHAR, location VARCHAR, status VARCHAR, started_at TIMESTAMP,
--   finished_at TIMESTAMP, records_read BIGINT, events_added BIGINT, objects_added BIGINT, duplicates BIGINT,
--   errors BIGINT
SELECT run_id, source_kind, location, status, started_at, finished_at, records_read, events_added,
       objects_added, duplicates, errors
FROM ingest_runs
ORDER BY run_id DESC;
