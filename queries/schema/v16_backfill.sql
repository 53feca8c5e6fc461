-- name: schema_v16_backfill
-- purpose: Copies the models and usage columns a v15 → v16 migration
--   derived again (`pod_model_rederived`) into `pod_versions` (rows keep
--   their places), then drops the scratch table.
-- params: none
-- columns: none (updates)
UPDATE pod_versions
SET model = b.model,
    usage_node = b.usage_node,
    requests_cpu = b.requests_cpu,
    requests_memory = b.requests_memory,
    requests_other = b.requests_other,
    model_error = b.model_error,
    labels = b.labels,
    scheduling_terms = b.scheduling_terms
FROM pod_model_rederived b
WHERE b.obs_id = pod_versions.obs_id;
DROP TABLE pod_model_rederived;
