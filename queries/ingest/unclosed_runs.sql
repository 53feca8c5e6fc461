-- name: unclosed_runs
-- purpose: The runs still marked `running`, for a read-only open: DuckDB
--   lets no process read a store while another writes it, so when a
--   read-only open succeeds, the process of each such run has ended (killed,
--   or a fatal store error) without closing it. Read only: the next open for
--   writing closes them as failed (close_abandoned_runs).
-- params: none
-- columns: run_id BIGINT, location VARCHAR
SELECT run_id, location
FROM ingest_runs
WHERE status = 'running'
ORDER BY run_id;
