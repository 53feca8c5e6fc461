-- name: pod_names
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Every pod the store knows by name (a stored version, or a
--   FailedScheduling event about it), by namespace and name: what `kdrift
--   completion` offers after `kdrift why-pending` and `kdrift rebalance explain`.
-- params: none
-- columns: namespace VARCHAR, name VARCHAR
SELECT DISTINCT namespace, name
FROM (
    SELECT namespace, name
    FROM pod_versions
    UNION ALL
    SELECT involved_namespace, involved_name
    FROM event_versions
    WHERE involved_kind = 'Pod' AND reason = 'FailedScheduling'
)
WHERE namespace IS NOT NULL AND namespace <> '' AND name IS NOT NULL AND name <> ''
ORDER BY namespace, name;
