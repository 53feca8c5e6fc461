-- name: derive_node_intervals
-- purpose: Sets `valid_until` and `first_version` of the versions of every node
--   that has a version in one run (or in its latest batch), or of every node
--   when $1 is negative (a migration): as `derive_pod_intervals`, per node
--   name, in the version order (observed_at, then resourceVersion as an
--   integer, then obs_id), the order `nodes_at` picks in.
-- params: $1 run_id BIGINT (negative: every node), $2 after_obs_id BIGINT (only names seen after it; 0 for all)
-- columns: none (updates)
UPDATE node_versions
SET valid_until = n.next_at, first_version = n.first
FROM (
    SELECT obs_id, COALESCE(lead_at, 'infinity'::TIMESTAMP) AS next_at,
           observed_at = min(observed_at) OVER (PARTITION BY name)
             AND (lead_at IS NULL OR lead_at > observed_at) AS first
    FROM (
        SELECT obs_id, name, observed_at,
               lead(observed_at) OVER (PARTITION BY name
                   ORDER BY observed_at, TRY_CAST(resource_version AS HUGEINT) NULLS FIRST, obs_id) AS lead_at
        FROM node_versions
        WHERE $1 < 0 OR name IN (SELECT name FROM node_versions WHERE run_id = $1 AND obs_id > $2)
    )
) AS n
WHERE node_versions.obs_id = n.obs_id
  AND (node_versions.valid_until IS DISTINCT FROM n.next_at OR node_versions.first_version IS DISTINCT FROM n.first);
