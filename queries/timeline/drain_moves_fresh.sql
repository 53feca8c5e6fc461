-- name: drain_moves_fresh
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(9, 1);
-- purpose: Whether `drain_moves` holds the moves of the history as it is
--   now: computed after the newest observation (highest obs_id), at this
--   schema version, by these rules. Readers that get false compute the moves
--   from the history.
-- params: $1 schema_version BIGINT, $2 rules_version BIGINT
-- columns: fresh BOOLEAN
SELECT count(*) > 0 AS fresh
FROM drain_moves_kept
WHERE observed_through = (SELECT COALESCE(max(obs_id), 0) FROM observations)
  AND schema_version = $1
  AND rules_version = $2;
