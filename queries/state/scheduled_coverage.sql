-- name: scheduled_coverage
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: For every pod with a Scheduled event, how far the source of that
--   event reaches: the newest event time in the same file or export
--   (observations.location). A pod known only from its Scheduled event is
--   taken as still there only up to an hour (the API server's event TTL)
--   after that: beyond, its source says nothing about it.
-- params: none
-- columns: namespace VARCHAR, name VARCHAR, covered_until TIMESTAMP
WITH location_end AS (
    SELECT o.location, max(e.last_time) AS last_event_at
    FROM event_versions e
    JOIN observations o ON o.obs_id = e.obs_id
    GROUP BY o.location
)
SELECT e.involved_namespace AS namespace, e.involved_name AS name, max(l.last_event_at) AS covered_until
FROM event_versions e
JOIN observations o ON o.obs_id = e.obs_id
JOIN location_end l ON l.location = o.location
WHERE e.reason = 'Scheduled' AND e.involved_kind = 'Pod'
  -- An event naming no pod says nothing about one.
  AND e.involved_name IS NOT NULL AND e.involved_namespace IS NOT NULL
GROUP BY e.involved_namespace, e.involved_name
ORDER BY namespace, name;
