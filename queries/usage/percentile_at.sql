-- name: usage_percentile_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(<at µs>, <window in µs>, 950);
-- purpose: Measured usage as one reading per object over a window (kdrift's
--   windowed mode, beyond descheduler): per node, and per pod
--   (namespace/pod), the nearest-rank percentile of its cpu samples and of
--   its memory samples in (at − window, at] — a value actually measured, so
--   a short spike moves a p95 over an hour only when it lasts over 5 % of it.
--   A pod's node is the one its latest sample named (NULL: not said).
-- params: $1 at_us BIGINT (UTC µs, inclusive), $2 window_micros BIGINT (µs), $3 permille BIGINT (the percentile in tenths, 1–1000: 950 = p95)
-- columns: kind VARCHAR, node VARCHAR, namespace VARCHAR, pod VARCHAR, sampled_at_us BIGINT (UTC µs, the latest
--   sample read), cpu_millis BIGINT, memory_bytes BIGINT, samples BIGINT
SELECT kind,
       arg_max(node, sampled_at) AS node,
       namespace, pod,
       max(epoch_us(sampled_at)) AS sampled_at_us,
       quantile_disc(cpu_millis, CAST($3 AS BIGINT) / 1000.0) AS cpu_millis,
       quantile_disc(memory_bytes, CAST($3 AS BIGINT) / 1000.0) AS memory_bytes,
       count(*) AS samples
FROM (
    SELECT *, CASE WHEN kind = 'node' THEN node END AS node_key
    FROM usage_samples
    WHERE sampled_at <= make_timestamp($1) AND sampled_at > make_timestamp($1 - $2)
)
GROUP BY kind, node_key, namespace, pod
ORDER BY kind, node, namespace, pod;
