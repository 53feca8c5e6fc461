-- name: derive_pod_namespaces
-- purpose: Adds to `pod_namespaces` (schema v11) the namespaces of one
--   committed batch's pod versions that it does not hold yet (`default`
--   for a pod stored without a namespace: `derive_pod_versions`).
-- params: $1 run_id BIGINT, $2 after_obs_id BIGINT (only versions after it)
-- columns: none (inserts)
INSERT INTO pod_namespaces
SELECT DISTINCT namespace
FROM pod_versions
WHERE obs_id > $2 AND run_id = $1
  AND namespace NOT IN (SELECT namespace FROM pod_namespaces);
