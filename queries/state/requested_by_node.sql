-- name: requested_by_node
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('1795928400000000,1795932000000000');
-- purpose: Per instant and node, what the pods stored at that instant (the
--   versions `pods_at` picks: the `pod_versions_at` macro) add to the node's
--   requested amounts: the pods that count toward it (bound, not
--   Succeeded/Failed: `usage_node`), their number and their summed effective
--   requests (`requests_*`, computed at ingest by the cluster model,
--   descheduler v0.36 §1). A version observed after the instant whose
--   PodScheduled turned True after it counts toward no node (it was not
--   bound yet). Unreadable pods (`model_error`) are left out (see
--   `pods_summary_at`). One aggregate: no pod object is read. The analyses
--   read the same numbers from the checkpoints ingest keeps (schema v8:
--   `requested_since_checkpoint` + `requested_extras_at`, one instant at a
--   time, whatever the history's length); this query computes them
--   directly from the version intervals, for `kdrift query`.
-- params: $1 instants VARCHAR (comma-separated UTC microseconds; `kdrift query` also takes RFC 3339 times)
-- columns: at_us BIGINT, node VARCHAR, pods BIGINT, cpu_millis HUGEINT (millicores), memory_bytes HUGEINT,
--   other JSON[] (the other requested resources, one JSON object per pod that has some),
--   estimated BOOLEAN (some pod counted was observed after the instant)
SELECT at_us, usage_node AS node, count(*) AS pods,
       sum(requests_cpu::HUGEINT) AS cpu_millis, sum(requests_memory::HUGEINT) AS memory_bytes,
       -- In no particular order (they are summed): an ordered list aggregate costs a sort per group.
       COALESCE(list(requests_other::JSON) FILTER (WHERE requests_other IS NOT NULL), []) AS other,
       bool_or(estimated) AS estimated
FROM pod_versions_at($1)
WHERE model_error IS NULL
  AND usage_node IS NOT NULL
  AND NOT (estimated AND scheduled_at IS NOT NULL AND scheduled_at > make_timestamp(at_us))
GROUP BY at_us, usage_node
ORDER BY at_us, node;
