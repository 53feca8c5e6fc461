-- name: runs
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Every ingest run, newest first: where it read from, whether it
--   finished (a recorder killed mid-run stays `running` with no finish
--   time; what it committed is kept; a run stopped by a store error is
--   `failed`, the error in `ingest_errors`), and what it added. `errors`
--   counts the run's rows in `ingest_errors` too: a run closed as abandoned
--   (its process was killed) has its reason there and no counted error
--   (query `run_errors` lists them).
-- params: none
-- columns: run_id BIGINT, source_kind VARCHAR, location VARCHAR, status VARCHAR, started_at TIMESTAMP,
--   finished_at TIMESTAMP, records_read BIGINT, events_added BIGINT, objects_added BIGINT, duplicates BIGINT,
--   errors BIGINT
SELECT r.run_id, r.source_kind, r.location, r.status, r.started_at, r.finished_at, r.records_read, r.events_added,
       r.objects_added, r.duplicates,
       greatest(COALESCE(r.errors, 0), (SELECT count(*) FROM ingest_errors e WHERE e.run_id = r.run_id)) AS errors
FROM ingest_runs r
ORDER BY r.run_id DESC;
