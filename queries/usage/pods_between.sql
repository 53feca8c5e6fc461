-- name: usage_pods_between
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(<since µs>, <until µs>, 'node-1');
-- purpose: The measured usage of each pod on a node between two instants
--   (`kdrift hotspots`: the pods that drove an episode): per pod whose
--   samples name the node (or, naming none, whose binding before the sample
--   does: `pod_bindings`), the mean and the max of its cpu samples
--   (millicores) and of its memory samples (bytes), its sample count and
--   the first and last instants sampled there. Heaviest mean cpu first.
-- params: $1 since_us BIGINT (UTC µs, inclusive), $2 until_us BIGINT (UTC µs, exclusive), $3 node VARCHAR
-- columns: namespace VARCHAR, pod VARCHAR, cpu_avg_millis DOUBLE, cpu_max_millis BIGINT, memory_avg_bytes DOUBLE,
--   memory_max_bytes BIGINT, samples BIGINT, first_us BIGINT (UTC µs), last_us BIGINT (UTC µs)
WITH samples AS (
    -- A pod sample that names no node (metrics-server's PodMetrics, `kubectl
    -- top pods`) is on the node the store last saw the pod bound to before it.
    SELECT u.namespace, u.pod, u.sampled_at, u.cpu_millis, u.memory_bytes, COALESCE(u.node, b.node) AS node
    FROM (
        SELECT * FROM usage_samples
        WHERE kind = 'pod' AND namespace IS NOT NULL AND pod IS NOT NULL
          AND sampled_at >= make_timestamp($1) AND sampled_at < make_timestamp($2)
    ) u
    ASOF LEFT JOIN pod_bindings b
        ON b.namespace = u.namespace AND b.name = u.pod AND u.sampled_at >= b.bound_at
)
SELECT namespace, pod,
       avg(cpu_millis) AS cpu_avg_millis,
       max(cpu_millis) AS cpu_max_millis,
       avg(memory_bytes) AS memory_avg_bytes,
       max(memory_bytes) AS memory_max_bytes,
       count(*) AS samples,
       epoch_us(min(sampled_at)) AS first_us,
       epoch_us(max(sampled_at)) AS last_us
FROM samples
WHERE node = $3
GROUP BY namespace, pod
ORDER BY cpu_avg_millis DESC NULLS LAST, namespace, pod;
