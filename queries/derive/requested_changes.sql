-- name: derive_requested_changes
-- purpose: Writes `requested_changes` from `requested_changed_since`, or the earliest start of a batch's pod that
--   took another uid's namespace/name (it ends that uid's versions) on: per
--   instant and node, the pods that start counting toward the node (+1 and
--   their effective requests) and stop (−1, minus them). A pod version
--   counts (as in `requested_by_node` for versions observed at or before the
--   instant) when the model reads it, it counts toward a node and is not
--   DELETED, from greatest(observed_at, created_at) until `valid_until`
--   (not at all when that is empty). Changes that cancel out are not stored.
-- params: $1 run_id BIGINT (negative: every pod version), $2 after_obs_id BIGINT (only versions stored after it)
-- columns: none (inserts)
INSERT INTO requested_changes
WITH since AS (SELECT least(requested_changed_since($1, $2), (
    -- A pod that takes the namespace/name of another uid ends that uid's
    -- interval at its start (`derive_pod_intervals`), which can be earlier
    -- than its observed_at: the earliest such start in the batch.
    SELECT min(least(b.observed_at, COALESCE(b.created_at, b.observed_at))) FROM pod_versions b
    WHERE b.run_id = $1 AND b.obs_id > $2 AND b.uid IS NOT NULL AND b.uid <> ''
      AND EXISTS (SELECT 1 FROM pod_versions a WHERE a.namespace = b.namespace AND a.name = b.name
                  AND a.uid IS NOT NULL AND a.uid <> '' AND a.uid <> b.uid))) AS from_at),
counted AS (
    SELECT usage_node AS node,
           greatest(observed_at, COALESCE(created_at, observed_at)) AS start_at,
           valid_until,
           COALESCE(requests_cpu, 0)::HUGEINT AS cpu,
           COALESCE(requests_memory, 0)::HUGEINT AS memory
    FROM pod_versions
    WHERE model_error IS NULL AND usage_node IS NOT NULL AND change <> 'DELETED'
),
change AS (
    SELECT c.node, c.start_at AS changed_at, 1 AS pods, c.cpu, c.memory
    FROM counted c, since
    WHERE c.start_at < c.valid_until AND c.start_at >= since.from_at
    UNION ALL
    SELECT c.node, c.valid_until, -1, -c.cpu, -c.memory
    FROM counted c, since
    WHERE c.start_at < c.valid_until AND c.valid_until >= since.from_at AND c.valid_until < 'infinity'::TIMESTAMP
)
SELECT changed_at, node, sum(pods), sum(cpu), sum(memory)
FROM change
GROUP BY changed_at, node
HAVING sum(pods) <> 0 OR sum(cpu) <> 0 OR sum(memory) <> 0
ORDER BY changed_at, node;
