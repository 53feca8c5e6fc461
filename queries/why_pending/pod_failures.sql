-- name: pod_failures
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q');
-- purpose: The distinct FailedScheduling events of one pod (each at its highest count), oldest first.
-- params: $1 namespace VARCHAR, $2 name VARCHAR
-- columns: uid VARCHAR ('' when unknown), message VARCHAR, count BIGINT, first_time TIMESTAMP,
--   last_time TIMESTAMP, reporting_component VARCHAR, event_key VARCHAR
SELECT COALESCE(involved_uid, '') AS uid, message, count, first_time, last_time,
       COALESCE(reporting_component, '') AS reporting_component, event_key
FROM event_versions
WHERE reason = 'FailedScheduling' AND involved_kind = 'Pod'
  AND involved_namespace = $1 AND involved_name = $2
  -- Only skips row groups (the name index, schema v11): the conditions above decide.
  AND obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
-- The `events` view's choice (highest count wins), among this pod's versions
-- only: an Event's reason and involved object never change between versions.
QUALIFY row_number() OVER (PARTITION BY event_key
    ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
ORDER BY first_time, last_time, event_key;
