-- name: pod_deletions
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q', '', epoch_us(TIMESTAMP '2026-11-28 04:00:00'));
-- purpose: Evidence that one pod was deleted, at or after an instant (its
--   first failure), the pod's own first (a DELETED version, then a
--   deletionTimestamp; of its uid, any when '' or the version has none),
--   then the earliest of the others: its owner's
--   SuccessfulDelete ("Deleted pod: NAME": a ReplicaSet scaled down by a
--   rollout, a Job), kube-scheduler's "skip schedule deleting pod" (1.19+),
--   and the end of the Job that created it (DeadlineExceeded,
--   BackoffLimitExceeded: the Job controller deletes its active pods). The
--   events name no uid: a reused name's earlier pod was deleted before the
--   instant. The same sources as `pending_pods`' deletions. (A pod version
--   stored without a namespace is `default`'s: `derive_pod_versions`.)
-- params: $1 namespace VARCHAR, $2 name VARCHAR, $3 uid VARCHAR ('' = any pod of that name),
--   $4 since_us BIGINT (UTC microseconds)
-- columns: deleted_at TIMESTAMP, evidence VARCHAR
WITH creators AS (
    -- The Jobs that created a pod of this name (their SuccessfulCreate).
    SELECT involved_name AS job
    FROM event_versions
    WHERE involved_kind = 'Job' AND reason = 'SuccessfulCreate' AND involved_namespace = $1
      AND message = 'Created pod: ' || $2
      AND obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
)
SELECT deleted_at, evidence
FROM (
    -- `rank`: the pod's own evidence first whenever there is some (its owner's
    -- and its Job's come a moment before the deletion itself): a DELETED
    -- version, then a deletionTimestamp; then the earliest of its owner's,
    -- its Job's and the scheduler's (in that order at the same instant).
    SELECT CASE WHEN change = 'DELETED' THEN observed_at ELSE deleted_at END AS deleted_at,
           CASE WHEN change = 'DELETED' THEN 'DELETED version' ELSE 'deletionTimestamp' END AS evidence,
           CASE WHEN change = 'DELETED' THEN 1 ELSE 2 END AS rank
    FROM pod_versions
    WHERE name = $2 AND namespace = $1
      AND ($3 = '' OR COALESCE(uid, '') IN ($3, ''))
      AND (change = 'DELETED' OR deleted_at IS NOT NULL)
      AND obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
    UNION ALL
    SELECT first_time, involved_kind || ' ' || involved_name || ' SuccessfulDelete', 3
    FROM event_versions
    WHERE reason = 'SuccessfulDelete' AND involved_namespace = $1 AND message = 'Deleted pod: ' || $2
      AND obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
    UNION ALL
    SELECT last_time, 'FailedScheduling: skip schedule deleting pod', 5
    FROM event_versions
    WHERE reason = 'FailedScheduling' AND involved_kind = 'Pod' AND involved_namespace = $1 AND involved_name = $2
      AND ($3 = '' OR COALESCE(involved_uid, '') IN ($3, '')) AND message LIKE 'skip schedule deleting pod%'
      AND obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
    UNION ALL
    SELECT j.first_time, 'Job ' || j.involved_name || ' ' || j.reason, 4
    FROM event_versions c
    JOIN event_versions j ON j.involved_kind = 'Job' AND j.involved_namespace = c.involved_namespace
                         AND j.involved_name = c.involved_name
                         AND j.reason IN ('DeadlineExceeded', 'BackoffLimitExceeded')
    WHERE c.involved_kind = 'Job' AND c.reason = 'SuccessfulCreate' AND c.involved_namespace = $1
      AND c.message = 'Created pod: ' || $2
      AND c.obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
      -- The Job's own events lie between the first and last entry of the
      -- names of the Jobs that created a pod of this name.
      AND j.obs_id BETWEEN (SELECT min(first_obs_naming($1, job)) FROM creators)
                       AND (SELECT max(last_obs_naming($1, job)) FROM creators)
)
WHERE deleted_at >= make_timestamp($4)
ORDER BY least(rank, 3), deleted_at, rank, evidence;
