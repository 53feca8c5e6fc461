-- name: schema_v16_usage_changed
-- purpose: How many pod versions a v15 → v16 migration gives other usage
--   columns than they had (a stored pod whose newly read fields are
--   malformed becomes unreadable: `model_error`); when there is any, the
--   requested-amount changes and checkpoints are derived again and the kept
--   drain moves are left stale.
-- params: none
-- columns: changed BIGINT
SELECT count(*)
FROM pod_versions p
JOIN pod_model_rederived b ON b.obs_id = p.obs_id
WHERE p.usage_node IS DISTINCT FROM b.usage_node
   OR p.requests_cpu IS DISTINCT FROM b.requests_cpu
   OR p.requests_memory IS DISTINCT FROM b.requests_memory
   OR p.requests_other IS DISTINCT FROM b.requests_other
   OR p.model_error IS DISTINCT FROM b.model_error
   OR p.labels IS DISTINCT FROM b.labels
   OR p.scheduling_terms IS DISTINCT FROM b.scheduling_terms;
