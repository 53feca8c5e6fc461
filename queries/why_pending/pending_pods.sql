-- name: pending_pods
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Every pod that had FailedScheduling events, longest-pending first.
--   Occurrences sum each distinct event's highest count (re-sent copies of an
--   event are never summed, kubernetes-events.md §4). Pending time runs from the
--   first failure to the first Scheduled event after it, else to the pod's
--   deletion (when the store saw it), else to the last failure.
-- params: none
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown),
--   first_failure TIMESTAMP, last_failure TIMESTAMP, occurrences BIGINT,
--   failure_events BIGINT, latest_message VARCHAR, scheduled_at TIMESTAMP (NULL: never seen),
--   scheduled_node VARCHAR, pending_seconds BIGINT, deleted_at TIMESTAMP (NULL: not seen deleted)
WITH failures AS (
    SELECT involved_namespace AS namespace,
           involved_name AS name,
           COALESCE(involved_uid, '') AS uid,
           min(first_time) AS first_failure,
           max(last_time) AS last_failure,
           CAST(sum(count) AS BIGINT) AS occurrences,
           count(*) AS failure_events,
           first(message ORDER BY last_time DESC, count DESC, event_key DESC) AS latest_message
    FROM (
        -- The `events` view's choice among FailedScheduling versions only (an
        -- Event's reason and involved object never change between versions):
        -- the view windows over every event version of the store first.
        SELECT * FROM event_versions WHERE reason = 'FailedScheduling' AND involved_kind = 'Pod'
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    GROUP BY ALL
),
scheduled AS (
    SELECT involved_namespace AS namespace,
           involved_name AS name,
           COALESCE(involved_uid, '') AS uid,
           first_time AS scheduled_at,
           regexp_extract(message, ' to (\S+)$', 1) AS node
    FROM (
        -- The same choice among Scheduled versions.
        SELECT * FROM event_versions WHERE reason = 'Scheduled' AND involved_kind = 'Pod'
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
),
deleted AS (
    SELECT namespace, name, COALESCE(uid, '') AS uid,
           min(CASE WHEN change = 'DELETED' THEN observed_at ELSE deleted_at END) AS deleted_at
    FROM pod_versions
    WHERE change = 'DELETED' OR deleted_at IS NOT NULL
    GROUP BY ALL
),
joined AS (
    SELECT f.*,
           s.scheduled_at AS scheduled_at,
           s.node AS scheduled_node
    FROM failures f
    LEFT JOIN scheduled s
      ON s.namespace = f.namespace AND s.name = f.name
     AND (s.uid = f.uid OR s.uid = '' OR f.uid = '')
     AND s.scheduled_at >= f.first_failure
    QUALIFY row_number() OVER (PARTITION BY f.namespace, f.name, f.uid ORDER BY s.scheduled_at NULLS LAST) = 1
)
SELECT j.namespace, j.name, j.uid, j.first_failure, j.last_failure, j.occurrences, j.failure_events,
       j.latest_message, j.scheduled_at, j.scheduled_node,
       CAST(epoch(COALESCE(j.scheduled_at, greatest(d.deleted_at, j.last_failure), j.last_failure))
            - epoch(j.first_failure) AS BIGINT) AS pending_seconds,
       d.deleted_at
FROM joined j
LEFT JOIN deleted d
  ON d.namespace = j.namespace AND d.name = j.name AND (d.uid = j.uid OR j.uid = '' OR d.uid = '')
 AND d.deleted_at >= j.first_failure
-- Without a uid several pods of that name may have been deleted: take the
-- first deletion after the first failure.
QUALIFY row_number() OVER (PARTITION BY j.namespace, j.name, j.uid ORDER BY d.deleted_at NULLS LAST) = 1
ORDER BY pending_seconds DESC, occurrences DESC, j.namespace, j.name, j.uid;
