-- name: pod_name_namespaces
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('backup-29930640-x7k2q');
-- purpose: The namespaces in which a pod of this name had FailedScheduling
--   events, else those holding a stored Pod object of this name (a pasted
--   `kubectl get pod -o yaml`, whose PodScheduled condition stands for the
--   events): `kdrift why-pending NAME` without a namespace takes the only
--   one, and a NAMESPACE/NAME with none suggests these.
-- params: $1 name VARCHAR
-- columns: namespace VARCHAR
WITH failed AS (
    SELECT DISTINCT involved_namespace AS namespace
    FROM event_versions
    WHERE reason = 'FailedScheduling' AND involved_kind = 'Pod' AND involved_name = $1
      AND involved_namespace IS NOT NULL AND involved_namespace <> ''
)
SELECT namespace FROM failed
UNION
SELECT DISTINCT namespace FROM pod_versions
WHERE name = $1 AND namespace <> '' AND NOT EXISTS (SELECT 1 FROM failed)
ORDER BY namespace;
