-- name: requested_checkpoint_times
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q;
-- purpose: The instants of the stored requested-amount checkpoints (schema
--   v8: hour boundaries), oldest first: a reader takes the latest at or
--   before its instant and passes it to `requested_since_checkpoint`.
-- params: none
-- columns: at_us BIGINT (UTC microseconds)
SELECT epoch_us(checkpoint_at) AS at_us FROM requested_checkpoint_times ORDER BY checkpoint_at;
