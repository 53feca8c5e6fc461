-- name: pod_scheduled
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q', epoch_us(TIMESTAMP '2026-11-27 00:00:00'));
-- purpose: The Scheduled events of one pod since an instant (why-pending
--   passes the pod's first FailedScheduling: an earlier binding is not of
--   this wait): when and where it was bound. The bound on `first_time` lets
--   DuckDB skip the row groups of older events (events are stored in about
--   time order: 2 of 108 row groups read at 10M events, 85–127 → 11–20 ms).
-- params: $1 namespace VARCHAR, $2 name VARCHAR, $3 since_us BIGINT (UTC microseconds)
-- columns: uid VARCHAR, scheduled_at TIMESTAMP, node VARCHAR, message VARCHAR
SELECT COALESCE(involved_uid, '') AS uid, first_time AS scheduled_at,
       regexp_extract(message, ' to (\S+)$', 1) AS node, message
FROM event_versions
WHERE reason = 'Scheduled' AND involved_kind = 'Pod'
  AND involved_namespace = $1 AND involved_name = $2
  AND first_time >= make_timestamp($3)
  -- Only skips row groups (the name index, schema v11): the conditions above decide.
  AND obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
-- The `events` view's choice among this pod's versions only (reason and involved object never change).
QUALIFY row_number() OVER (PARTITION BY event_key
    ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
ORDER BY scheduled_at;
