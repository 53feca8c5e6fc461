-- name: schema_v16_obs_range
-- purpose: The obs_id range of the stored pod versions, which a v15 → v16
--   migration walks in slices (`schema_v16_pod_objects`).
-- params: none
-- columns: first BIGINT (0 when there is none), last BIGINT (-1 when there is none)
SELECT COALESCE(min(obs_id), 0), COALESCE(max(obs_id), -1)
FROM pod_versions;
