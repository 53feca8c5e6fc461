-- name: latest_observation_plausible
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(now()::TIMESTAMP + INTERVAL 1 DAY));
-- purpose: `latest_observation` without the observation times outside
--   [$1, $2] (an object whose newest timestamp is 9999-12-31 is kept and
--   flagged at ingest, but is not "now"). Asked only when
--   `latest_observation`'s answer falls outside those bounds (it scans the
--   column; latest_observation reads its statistics).
-- params: $1 lower_us BIGINT (UTC microseconds), $2 upper_us BIGINT (UTC microseconds)
-- columns: observed_at TIMESTAMP
SELECT max(observed_at) AS observed_at
FROM observations
WHERE observed_at BETWEEN make_timestamp($1) AND make_timestamp($2);
