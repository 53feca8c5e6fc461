-- name: close_abandoned_runs
-- purpose: Marks `failed` every run still `running` when the store is opened
--   for writing: DuckDB lets one process at a time write a store, so such a
--   run's process ended without closing it (killed, interrupted, or stopped
--   by a fatal store error that left its connection unusable). Its counts
--   stay those of its last committed batch; `finished_at` stays NULL (when
--   it ended is unknown). Returns the runs closed.
-- params: none
-- columns: run_id BIGINT, location VARCHAR
UPDATE ingest_runs SET status = 'failed'
WHERE status = 'running'
RETURNING run_id, location;
