-- name: event_coverage
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Per namespace, the last time the store heard anything from it
--   (the newest event about an object in it). A pod known only from a
--   Scheduled event is taken as still there only up to an hour (the API
--   server's event TTL) after that: beyond, the store knows nothing about it.
-- params: none
-- columns: namespace VARCHAR, last_event_at TIMESTAMP
SELECT COALESCE(involved_namespace, '') AS namespace, max(last_time) AS last_event_at
FROM events
GROUP BY 1
ORDER BY 1;
