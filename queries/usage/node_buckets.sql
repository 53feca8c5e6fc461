-- name: usage_node_buckets
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(<since µs>, <until µs>, 300000000);
-- purpose: Every node's measured usage per step bucket between two
--   instants (`kdrift hotspots`): buckets [since + k·step, since +
--   (k+1)·step), each with the mean and the max of the node's cpu samples
--   (millicores) and of its memory samples (bytes, working set) in it. A
--   bucket where a node has no sample is absent (not 0).
-- params: $1 since_us BIGINT (UTC µs, inclusive), $2 until_us BIGINT (UTC µs, exclusive), $3 step_micros BIGINT (µs, > 0)
-- columns: node VARCHAR, bucket_us BIGINT (UTC µs, the bucket's start), cpu_avg_millis DOUBLE, cpu_max_millis BIGINT,
--   memory_avg_bytes DOUBLE, memory_max_bytes BIGINT, samples BIGINT
SELECT node,
       $1 + ((epoch_us(sampled_at) - $1) // CAST($3 AS BIGINT)) * CAST($3 AS BIGINT) AS bucket_us,
       avg(cpu_millis) AS cpu_avg_millis,
       max(cpu_millis) AS cpu_max_millis,
       avg(memory_bytes) AS memory_avg_bytes,
       max(memory_bytes) AS memory_max_bytes,
       count(*) AS samples
FROM usage_samples
WHERE kind = 'node' AND node IS NOT NULL
  AND sampled_at >= make_timestamp($1) AND sampled_at < make_timestamp($2)
GROUP BY node, bucket_us
ORDER BY node, bucket_us;
