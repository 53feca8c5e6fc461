-- name: pod_failures
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q');
-- purpose: The distinct FailedScheduling events of one pod (each at its highest count), oldest first.
-- params: $1 namespace VARCHAR, $2 name VARCHAR
-- columns: uid VARCHAR ('' when unknown), message VARCHAR, count BIGINT, first_time TIMESTAMP,
--   last_time TIMESTAMP, reporting_component VARCHAR, event_key VARCHAR
SELECT COALESCE(involved_uid, '') AS uid, message, count, first_time, last_time,
       COALESCE(reporting_component, '') AS reporting_component, event_key
FROM events
WHERE reason = 'FailedScheduling' AND involved_kind = 'Pod'
  AND involved_namespace = $1 AND involved_name = $2
ORDER BY first_time, last_time, event_key;
