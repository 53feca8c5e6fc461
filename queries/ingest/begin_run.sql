-- name: begin_run
-- purpose: Records the start of an ingest run and returns its id.
-- params: $1 source_kind VARCHAR, $2 location VARCHAR, $3 started_at_us BIGINT (UTC µs), $4 kdrift_version VARCHAR
-- columns: run_id BIGINT
INSERT INTO ingest_runs (run_id, source_kind, location, started_at, status, kdrift_version)
SELECT COALESCE(max(run_id), 0) + 1, $1, $2, make_timestamp($3), 'running', $4
FROM ingest_runs
RETURNING run_id;
