-- name: schema_v4_backfill
-- purpose: Copies the usage fields computed during a v3 → v4 migration
--   (`pod_usage_backfill`, one row per pod version) into `pod_versions`, then
--   drops the scratch table.
-- params: none
-- columns: none (updates)
UPDATE pod_versions
SET usage_node = b.usage_node,
    requests_cpu = b.requests_cpu,
    requests_memory = b.requests_memory,
    requests_other = b.requests_other,
    model_error = b.model_error
FROM pod_usage_backfill b
WHERE b.obs_id = pod_versions.obs_id;
DROP TABLE pod_usage_backfill;
