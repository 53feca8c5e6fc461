-- name: usage_span
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(now()::TIMESTAMP + INTERVAL 1 DAY));
-- purpose: How many measured usage samples the store holds and the instants
--   of the first and the last: what `kdrift skew --usage` and `kdrift
--   hotspots` say when they find no sample (none at all, or none near the
--   instant asked), and the range `hotspots` reads by default. Only the
--   samples inside [$1, $2] (plausible_range: 1970 to a day after now)
--   count: one dated 9999-12-31 or 0001-01-01 never defines "now" or the
--   range (break-it 35 F12, as `time_span_plausible` for events).
-- params: $1 lower_us BIGINT (UTC microseconds), $2 upper_us BIGINT (UTC microseconds)
-- columns: samples BIGINT, first_us BIGINT (UTC µs, NULL when none), last_us BIGINT (UTC µs, NULL when none)
SELECT count(*) AS samples, epoch_us(min(sampled_at)) AS first_us, epoch_us(max(sampled_at)) AS last_us
FROM usage_samples
WHERE sampled_at BETWEEN make_timestamp($1) AND make_timestamp($2);
