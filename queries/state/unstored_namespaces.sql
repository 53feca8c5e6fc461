-- name: unstored_namespaces
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(since_us, until_us);
-- purpose: The namespaces whose pods events name between two instants
--   (an event's occurrences overlapping [since, until]) while the store holds
--   no Pod object of that namespace at all: namespaces that were not dumped
--   (`kubectl get pods -n OTHER`, an events-only VictoriaLogs pull). Their
--   pods count toward the nodes only when a Scheduled event places them, so
--   the requested amounts of every node are a lower bound. With `since` an
--   hour (the API server's event TTL) before `until`: what a dump taken at
--   `until` would hold. The stored namespaces come from `pod_namespaces`
--   (schema v11), not from every pod version.
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, pods BIGINT (distinct pod names the events name)
WITH named AS (
    SELECT DISTINCT involved_namespace AS namespace, involved_name AS name
    FROM event_versions
    WHERE involved_kind = 'Pod'
      AND involved_namespace IS NOT NULL AND involved_namespace <> ''
      AND involved_name IS NOT NULL AND involved_name <> ''
      AND COALESCE(first_time, last_time) <= make_timestamp($2)
      AND last_time >= make_timestamp($1)
      -- Implied by the COALESCE above, which DuckDB does not push into the
      -- scan: by this it skips the row groups of events that began after
      -- `until` (at 10M events 2 row groups read of 108, against 55).
      AND (first_time <= make_timestamp($2) OR first_time IS NULL)
)
SELECT n.namespace, count(*) AS pods
FROM named n
WHERE NOT EXISTS (SELECT 1 FROM pod_namespaces p WHERE p.namespace = n.namespace)
GROUP BY n.namespace
ORDER BY n.namespace;
