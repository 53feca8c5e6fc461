-- name: pending_pods
-- purpose: Every pod that had FailedScheduling events, longest-pending first.
--   Occurrences sum each distinct event's highest count (re-sent copies of an
--   event are never summed, kubernetes-events.md §4). Pending time runs from the
--   first failure to the first Scheduled event after it, else to the last failure.
-- params: none
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown),
--   first_failure TIMESTAMP, last_failure TIMESTAMP, occurrences BIGINT,
--   failure_events BIGINT, latest_message VARCHAR, scheduled_at TIMESTAMP (NULL: never seen),
--   scheduled_node VARCHAR, pending_seconds BIGINT
WITH failures AS (
    SELECT involved_namespace AS namespace,
           involved_name AS name,
           COALESCE(involved_uid, '') AS uid,
           min(first_time) AS first_failure,
           max(last_time) AS last_failure,
           sum(count) AS occurrences,
           count(*) AS failure_events,
           arg_max(message, last_time) AS latest_message
    FROM events
    WHERE reason = 'FailedScheduling' AND involved_kind = 'Pod'
    GROUP BY ALL
),
scheduled AS (
    SELECT involved_namespace AS namespace,
           involved_name AS name,
           COALESCE(involved_uid, '') AS uid,
           first_time AS at,
           regexp_extract(message, ' to (\S+)$', 1) AS node
    FROM events
    WHERE reason = 'Scheduled' AND involved_kind = 'Pod'
),
joined AS (
    SELECT f.*,
           s.at AS scheduled_at,
           s.node AS scheduled_node
    FROM failures f
    LEFT JOIN scheduled s
      ON s.namespace = f.namespace AND s.name = f.name
     AND (s.uid = f.uid OR s.uid = '' OR f.uid = '')
     AND s.at >= f.first_failure
    QUALIFY row_number() OVER (PARTITION BY f.namespace, f.name, f.uid ORDER BY s.at NULLS LAST) = 1
)
SELECT namespace, name, uid, first_failure, last_failure, occurrences, failure_events,
       latest_message, scheduled_at, scheduled_node,
       CAST(epoch(COALESCE(scheduled_at, last_failure)) - epoch(first_failure) AS BIGINT) AS pending_seconds
FROM joined
ORDER BY pending_seconds DESC, occurrences DESC, namespace, name, uid;
