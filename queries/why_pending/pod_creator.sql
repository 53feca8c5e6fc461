-- name: pod_creator
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q');
-- purpose: Who created one pod and when, from the events alone (for a pod
--   whose own object is not stored): the controller's SuccessfulCreate
--   "Created pod: NAME" (Job, ReplicaSet, DaemonSet, ReplicationController;
--   its involved object is the owner), the earliest one; and the first time
--   any event names the pod (its creation's latest bound when no
--   SuccessfulCreate is stored). Always one row (NULLs when nothing is known).
-- params: $1 namespace VARCHAR, $2 name VARCHAR
-- columns: owner_kind VARCHAR, owner_name VARCHAR, created_at TIMESTAMP, first_seen TIMESTAMP
WITH creator AS (
    SELECT involved_kind AS owner_kind, involved_name AS owner_name, first_time AS created_at
    FROM event_versions
    WHERE reason = 'SuccessfulCreate' AND involved_namespace = $1 AND message = 'Created pod: ' || $2
      -- Only skips row groups (the name index, schema v11, indexes "Created pod: NAME" under NAME).
      AND obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
    ORDER BY first_time, obs_id
    LIMIT 1
),
seen AS (
    SELECT min(first_time) AS first_seen
    FROM event_versions
    WHERE involved_kind = 'Pod' AND involved_namespace = $1 AND involved_name = $2
      -- Only skips row groups (the name index, schema v11): the conditions above decide.
      AND obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
)
SELECT c.owner_kind, c.owner_name, c.created_at, s.first_seen
FROM seen s
LEFT JOIN creator c ON true;
