-- name: derive_pod_namespaces
-- purpose: Adds to `pod_namespaces` (schema v11) the namespaces of one
--   committed batch's pod versions that it does not hold yet (a pod
--   stored without a namespace is `default`'s, as the cluster model reads
--   it and as events about it name it).
-- params: $1 run_id BIGINT, $2 after_obs_id BIGINT (only versions after it)
-- columns: none (inserts)
INSERT INTO pod_namespaces
SELECT DISTINCT CASE WHEN namespace = '' THEN 'default' ELSE namespace END AS namespace
FROM pod_versions
WHERE obs_id > $2 AND run_id = $1
  AND CASE WHEN namespace = '' THEN 'default' ELSE namespace END NOT IN (SELECT namespace FROM pod_namespaces);
