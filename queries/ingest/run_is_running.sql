-- name: run_is_running
-- purpose: Whether run $1 is still marked `running` (1) or not (0): a run
--   its writer could not close (a broken connection) is closed when the
--   store is dropped, unless another open closed it first.
-- params: $1 run_id BIGINT
-- columns: running BIGINT
SELECT count(*) FROM ingest_runs WHERE run_id = $1 AND status = 'running';
