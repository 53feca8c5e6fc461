-- name: pod_failures
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q');
-- purpose: The distinct FailedScheduling events of one pod (each at its highest count), oldest first.
--   A pod with none, never seen bound, whose stored versions are Pending with the condition
--   PodScheduled False, reason Unschedulable and a message (a pasted
--   `kubectl get pod -o yaml`) has that message as its evidence instead: one
--   failure per distinct lastTransitionTime (its time; else the pod's
--   creationTimestamp; else the version's observation time), the latest
--   observed message of it, count 1, event_key `PodScheduled:NAMESPACE/NAME@TIME`,
--   lasting to the last time a version with it was seen (`seen_at`: the
--   observation time; for a dump's estimated one, the newest observation time
--   of the same file in the same run — a listing is taken after every
--   timestamp in it).
-- params: $1 namespace VARCHAR, $2 name VARCHAR
-- columns: uid VARCHAR ('' when unknown), message VARCHAR, count BIGINT, first_time TIMESTAMP,
--   last_time TIMESTAMP, reporting_component VARCHAR, event_key VARCHAR
WITH failed AS (
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
),
conditions AS (
    SELECT COALESCE(p.uid, '') AS uid, p.observed_at, p.obs_id, o.run_id, o.location, o.observed_at_estimated,
           TRY_CAST(o.object->>'$.metadata.creationTimestamp' AS TIMESTAMP) AS created_at,
           unnest(json_extract(o.object, '$.status.conditions[*]')) AS c
    FROM pod_versions p
    JOIN observations o ON o.obs_id = p.obs_id
    WHERE p.namespace = $1 AND p.name = $2 AND p.phase = 'Pending'
      AND p.obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
      AND NOT EXISTS (SELECT 1 FROM failed)
      -- As `pending_pods`: only a pod never seen bound.
      AND NOT EXISTS (SELECT 1 FROM pod_versions b
                      WHERE b.namespace = $1 AND b.name = $2 AND COALESCE(b.uid, '') = COALESCE(p.uid, '')
                        AND COALESCE(b.node_name, '') <> ''
                        AND b.obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2))
),
dumps AS (
    SELECT x.run_id, x.location, max(x.observed_at) AS listed_at
    FROM observations x
    JOIN (SELECT DISTINCT run_id, location FROM conditions WHERE observed_at_estimated) c USING (run_id, location)
    GROUP BY ALL
),
unschedulable AS (
    SELECT uid, c->>'$.message' AS message,
           COALESCE(TRY_CAST(c->>'$.lastTransitionTime' AS TIMESTAMP), created_at, observed_at) AS failed_at,
           max(CASE WHEN observed_at_estimated THEN greatest(observed_at, d.listed_at) ELSE observed_at END)
               OVER (PARTITION BY uid, failed_at) AS seen_at,
           observed_at, obs_id
    FROM conditions
    LEFT JOIN dumps d USING (run_id, location)
    WHERE c->>'$.type' = 'PodScheduled' AND c->>'$.status' = 'False' AND c->>'$.reason' = 'Unschedulable'
      AND COALESCE(c->>'$.message', '') <> ''
    QUALIFY row_number() OVER (PARTITION BY uid, failed_at ORDER BY observed_at DESC, obs_id DESC) = 1
)
SELECT * FROM failed
UNION ALL
SELECT uid, message, 1, failed_at, greatest(failed_at, seen_at), '', 'PodScheduled:' || $1 || '/' || $2 || '@' || strftime(failed_at, '%Y-%m-%dT%H:%M:%S')
FROM unschedulable
ORDER BY first_time, last_time, event_key;
