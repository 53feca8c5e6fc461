-- name: close_abandoned_runs
-- purpose: Marks `failed` every run still `running` when the store is opened
--   for writing: DuckDB lets one process at a time write a store, so such a
--   run's process ended without closing it (killed, interrupted, or stopped
--   by a fatal store error that left its connection unusable). Its counts
--   stay those of its last committed batch; `finished_at` is set to when it
--   is closed ($1: when its process ended is unknown, but it was before),
--   so that no closed run keeps a NULL `finished_at`; its error count gains
--   one for the `ingest_errors` row its closer adds (the input errors of its
--   committed batches are counted and stored already). Returns the runs closed.
-- params: $1 closed_at_us BIGINT (UTC µs)
-- columns: run_id BIGINT, location VARCHAR
UPDATE ingest_runs SET status = 'failed', finished_at = make_timestamp($1), errors = errors + 1
WHERE status = 'running'
RETURNING run_id, location;
