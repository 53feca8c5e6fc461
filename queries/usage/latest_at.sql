-- name: usage_latest_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(<at µs>, <max age in µs>);
-- purpose: Measured usage as one reading per object at an instant, as
--   descheduler's metricsUtilization reads it (the latest sample): per node,
--   and per pod (namespace/pod), its latest cpu sample and its latest memory
--   sample in (at − max_age, at]. Of samples at the same instant, the
--   metrics API's wins over Prometheus', Prometheus' over kubectl top's.
--   A pod's node is the one its latest sample named (NULL: not said).
-- params: $1 at_us BIGINT (UTC µs, inclusive), $2 max_age_micros BIGINT (µs)
-- columns: kind VARCHAR, node VARCHAR, namespace VARCHAR, pod VARCHAR, sampled_at_us BIGINT (UTC µs, the latest
--   sample read), cpu_millis BIGINT, memory_bytes BIGINT, samples BIGINT
WITH ranked AS (
    SELECT kind, node, namespace, pod, cpu_millis, memory_bytes,
           epoch_us(sampled_at) * 4 + CASE source WHEN 'metrics-api' THEN 3 WHEN 'prometheus' THEN 2 ELSE 1 END AS rank,
           epoch_us(sampled_at) AS at_us,
           CASE WHEN kind = 'node' THEN node END AS node_key
    FROM usage_samples
    WHERE sampled_at <= make_timestamp($1) AND sampled_at > make_timestamp($1 - $2)
)
SELECT kind,
       arg_max(node, rank) AS node,
       namespace, pod,
       max(at_us) AS sampled_at_us,
       arg_max(cpu_millis, rank) FILTER (WHERE cpu_millis IS NOT NULL) AS cpu_millis,
       arg_max(memory_bytes, rank) FILTER (WHERE memory_bytes IS NOT NULL) AS memory_bytes,
       1 AS samples
FROM ranked
GROUP BY kind, node_key, namespace, pod
ORDER BY kind, node, namespace, pod;
