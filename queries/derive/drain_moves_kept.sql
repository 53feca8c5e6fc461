-- name: drain_moves_kept
-- purpose: Records which history the rows just appended to `drain_moves`
--   were computed from: the highest obs_id now, with the schema and rules
--   versions (`drain_moves_fresh` compares them).
-- params: $1 schema_version BIGINT, $2 rules_version BIGINT, $3 operations BIGINT, $4 moves BIGINT, $5 kept_at_us BIGINT (UTC microseconds)
-- columns: none (inserts)
INSERT INTO drain_moves_kept
SELECT COALESCE(max(obs_id), 0), $1, $2, $3, $4, make_timestamp($5) FROM observations;
