-- name: pod_spans
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q');
-- purpose: When the store has one pod (namespace/name), per uid: from its
--   creation (creationTimestamp, else its first observed version) to the end
--   of its last version that is not a deletion (`valid_until`: its deletion's
--   observation, the next uid of the name taking over, or the first evidence
--   after its newest version that it was evicted or stopped — a Descheduled,
--   Evicted, Preempted, … event, a Killing with no sign of life after it:
--   queries/derive/pod_intervals.sql, schema v18; NULL while it lasts), with the observation time of its last version not marked for
--   deletion (else of its last version): an instant at which `pods_at`
--   lists it, not yet terminating when a version shows that. What `rebalance explain NAMESPACE/POD` suggests as
--   `--at` when the pod is not in the store at the instant asked.
-- params: $1 namespace VARCHAR, $2 name VARCHAR
-- columns: uid VARCHAR, first_at TIMESTAMP, last_seen_at TIMESTAMP, gone_at TIMESTAMP
SELECT COALESCE(uid, '') AS uid,
       COALESCE(min(created_at), min(observed_at)) AS first_at,
       -- Before its deletionTimestamp when a version shows it (descheduler skips terminating pods).
       COALESCE(max(observed_at) FILTER (WHERE change <> 'DELETED' AND deleted_at IS NULL),
                max(observed_at) FILTER (WHERE change <> 'DELETED')) AS last_seen_at,
       nullif(max(valid_until) FILTER (WHERE change <> 'DELETED'), 'infinity'::TIMESTAMP) AS gone_at
FROM pod_versions
WHERE namespace = $1 AND name = $2
  -- Only skips row groups (the name index, schema v11): the conditions above decide.
  AND obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
GROUP BY COALESCE(uid, '')
HAVING max(observed_at) FILTER (WHERE change <> 'DELETED') IS NOT NULL
ORDER BY first_at, uid;
