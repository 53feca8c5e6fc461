-- name: usage_samples
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(<since µs>, <until µs>, '<node>');
-- purpose: The measured usage samples (CPU in millicores, memory working
--   set in bytes) between two instants, in time order, nodes before pods:
--   what `kdrift ingest prometheus` (and later the metrics API and `kubectl
--   top` files) stored. `node` '' lists every node's samples and every
--   pod's; a node name lists that node's and those of the pods on it.
--   `run_id` is the ingest run that stored the sample first: a run that
--   later fills its NULL measure (the range pulled again with the memory
--   queries: usage/fill_samples.sql) leaves it so, and is credited in
--   `kdrift query runs` (its new samples are the measures it filled).
-- params: $1 since_us BIGINT (UTC µs, inclusive), $2 until_us BIGINT (UTC µs, exclusive),
--   $3 node VARCHAR ('' = every node)
-- columns: sampled_at TIMESTAMP, kind VARCHAR, node VARCHAR, namespace VARCHAR, pod VARCHAR, cpu_millis BIGINT,
--   memory_bytes BIGINT, source VARCHAR, run_id BIGINT
SELECT sampled_at, kind, node, namespace, pod, cpu_millis, memory_bytes, source, run_id
FROM usage_samples
WHERE sampled_at >= make_timestamp($1) AND sampled_at < make_timestamp($2) AND ($3 = '' OR node = $3)
ORDER BY sampled_at, kind, node, namespace, pod, source;
