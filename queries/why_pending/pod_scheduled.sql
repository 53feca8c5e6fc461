-- name: pod_scheduled
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q');
-- purpose: The Scheduled events of one pod: when and where it was bound.
-- params: $1 namespace VARCHAR, $2 name VARCHAR
-- columns: uid VARCHAR, scheduled_at TIMESTAMP, node VARCHAR, message VARCHAR
SELECT COALESCE(involved_uid, '') AS uid, first_time AS scheduled_at,
       regexp_extract(message, ' to (\S+)$', 1) AS node, message
FROM events
WHERE reason = 'Scheduled' AND involved_kind = 'Pod'
  AND involved_namespace = $1 AND involved_name = $2
ORDER BY scheduled_at;
