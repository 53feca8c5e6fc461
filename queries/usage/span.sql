-- name: usage_span
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: How many measured usage samples the store holds and the instants
--   of the first and the last: what `kdrift skew --usage` and `kdrift
--   hotspots` say when they find no sample (none at all, or none near the
--   instant asked), and the range `hotspots` reads by default.
-- params: none
-- columns: samples BIGINT, first_us BIGINT (UTC µs, NULL when none), last_us BIGINT (UTC µs, NULL when none)
SELECT count(*) AS samples, epoch_us(min(sampled_at)) AS first_us, epoch_us(max(sampled_at)) AS last_us
FROM usage_samples;
