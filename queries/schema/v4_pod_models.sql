-- name: schema_v4_pod_models
-- purpose: The pod versions a v3 → v4 migration computes usage fields for:
--   every stored pod version's model (the fields the cluster model reads).
-- params: none
-- columns: obs_id BIGINT, model VARCHAR (JSON text)
SELECT obs_id, model
FROM pod_versions
ORDER BY obs_id;
