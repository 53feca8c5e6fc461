-- name: drain_operations_kept
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: The kept drain operations (schema v12 `drain_episodes`, kept
--   with `drain_moves`) that started at or before an instant, oldest
--   first: their number, first signal and last signal (or end), as the
--   drain timeline computes them from the history. Fresh only when
--   `drain_moves_fresh` says so.
-- params: $1 until_us BIGINT (UTC microseconds)
-- columns: operation INTEGER, started_at TIMESTAMP, last_at TIMESTAMP
SELECT operation, min(started_at) AS started_at, max(last_at) AS last_at
FROM drain_episodes
GROUP BY operation
HAVING min(started_at) <= make_timestamp($1)
ORDER BY operation;
