-- name: job_names
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Every Job and CronJob the store knows (an object version or an
--   event about one), by namespace and name: what `kdrift completion`
--   offers after `kdrift postmortem job`.
-- params: none
-- columns: namespace VARCHAR, name VARCHAR
SELECT DISTINCT namespace, name
FROM (
    SELECT namespace, name
    FROM observations
    WHERE kind IN ('Job', 'CronJob')
    UNION ALL
    SELECT involved_namespace, involved_name
    FROM event_versions
    WHERE involved_kind IN ('Job', 'CronJob')
)
WHERE namespace IS NOT NULL AND namespace <> '' AND name IS NOT NULL AND name <> ''
ORDER BY namespace, name;
