-- name: job_name_namespaces
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('backup');
-- purpose: The namespaces of the Jobs and CronJobs of this name the store
--   knows (an object version or an event about one): `kdrift postmortem job
--   NAME` without a namespace takes the only one.
-- params: $1 name VARCHAR
-- columns: namespace VARCHAR
SELECT DISTINCT namespace
FROM (
    SELECT namespace
    FROM observations
    WHERE kind IN ('Job', 'CronJob') AND name = $1
    UNION ALL
    SELECT involved_namespace
    FROM event_versions
    WHERE involved_kind IN ('Job', 'CronJob') AND involved_name = $1
)
WHERE namespace IS NOT NULL AND namespace <> ''
ORDER BY namespace;
