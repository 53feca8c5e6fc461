-- name: scheduled_coverage
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: For every pod with a Scheduled event, how far the source of that
--   event reaches: the newest event time the same source gave. A pod known
--   only from its Scheduled event is taken as still there only up to an
--   hour (the API server's event TTL) after that: beyond, its source says
--   nothing about it. The source is the file or export
--   (observations.location), except for a VictoriaLogs pull: there it is
--   the pull (vl_windows.pull_key: base URL, tenant, layout, filter) over
--   all its windows and all its runs (`--resume` included), so the answer
--   does not depend on how the pull was cut into windows.
-- params: none
-- columns: namespace VARCHAR, name VARCHAR, covered_until TIMESTAMP
WITH sourced AS (
    SELECT e.obs_id, e.last_time, coalesce(w.pull_key, o.location) AS source
    FROM event_versions e
    JOIN observations o ON o.obs_id = e.obs_id
    LEFT JOIN vl_windows w ON w.run_id = o.run_id
),
source_end AS (
    SELECT source, max(last_time) AS last_event_at
    FROM sourced
    GROUP BY source
)
SELECT e.involved_namespace AS namespace, e.involved_name AS name, max(l.last_event_at) AS covered_until
FROM event_versions e
JOIN sourced s ON s.obs_id = e.obs_id
JOIN source_end l ON l.source = s.source
WHERE e.reason = 'Scheduled' AND e.involved_kind = 'Pod'
  -- An event naming no pod says nothing about one.
  AND e.involved_name IS NOT NULL AND e.involved_namespace IS NOT NULL
GROUP BY e.involved_namespace, e.involved_name
ORDER BY namespace, name;
