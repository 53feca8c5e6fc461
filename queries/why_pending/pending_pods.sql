-- name: pending_pods
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Every pod that had FailedScheduling events, longest-pending first.
--   A pod with none, never seen bound, whose stored versions are Pending with the
--   condition PodScheduled False, reason Unschedulable and a message (a
--   pasted `kubectl get pod -o yaml`) counts too: each distinct
--   lastTransitionTime of that condition is one failure at that time (its
--   latest observed message; the pod's creationTimestamp, else the version's
--   observation time, when it has no lastTransitionTime) lasting to the last
--   time a version with it was seen, as in `pod_failures`.
--   Occurrences sum each distinct event's highest count (re-sent copies of an
--   event are never summed, kubernetes-events.md §4). Pending time runs from the
--   first failure to the first Scheduled event after it, else to the pod's
--   deletion (when the store saw it: a DELETED version or deletionTimestamp,
--   its owner's "Deleted pod: X", kube-scheduler's "skip schedule deleting
--   pod", its Job's DeadlineExceeded or BackoffLimitExceeded; the sources of
--   `pod_deletions`), else to the last failure. The latest message is that of
--   the event with the latest last time, then the latest first time, then the
--   greatest event key (the order `why_pending` picks its latest failure by,
--   so the list and the chain name one message); the latest attempt message
--   is the latest by that order that is not kube-scheduler's "skip schedule
--   deleting pod" (a deletion, not an attempt: its reasons are the pod's).
--   Both are cut at
--   16384 characters, ending `… (cut: N characters in all)` (the API server
--   caps a message near 1 KiB): each message is cut as it is read, never
--   carried whole through a sort, join or aggregate (issue 34 F4: ~80
--   FailedScheduling events of 1 MiB took ~4 GiB). A pod the
--   kubelet rejected at admission right after that binding (within a minute; OutOfcpu, …: the
--   reasons of pod_rejections.sql) has the first such rejection: its event,
--   else a stored version Failed with that reason (at the binding's time).
-- params: none
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown),
--   first_failure TIMESTAMP, last_failure TIMESTAMP, occurrences BIGINT,
--   failure_events BIGINT, latest_message VARCHAR, scheduled_at TIMESTAMP (NULL: never seen),
--   scheduled_node VARCHAR, pending_seconds BIGINT, deleted_at TIMESTAMP (NULL: not seen deleted),
--   rejected_at TIMESTAMP (NULL: not rejected by the kubelet), rejected_reason VARCHAR,
--   latest_attempt_message VARCHAR (NULL: every event is a "skip schedule deleting pod")
WITH fs_events AS MATERIALIZED (
    -- The FailedScheduling versions, read once, each message cut as it is
    -- read (its length kept to say so) and whether it is kube-scheduler's
    -- "skip schedule deleting pod" (a deletion, below).
    SELECT obs_id, observed_at, event_key, involved_namespace, involved_name, involved_uid, first_time, last_time,
           count, left(message, 16384) AS message, length(message) AS message_chars,
           starts_with(message, 'skip schedule deleting pod') AS skip_deleting
    FROM event_versions WHERE reason = 'FailedScheduling' AND involved_kind = 'Pod'
),
-- The versions whose object is read below: Pending, never seen bound, of a
-- pod without FailedScheduling events (its events explain it, and its
-- conditions would be left out below). Chosen before any object is read: a
-- store of Jobs that failed to schedule holds an unbound version of each,
-- whose objects read whole took most of the listing's memory (kdrift issue 39).
unbound AS MATERIALIZED (
    SELECT p.namespace, p.name, COALESCE(p.uid, '') AS uid, p.observed_at, p.obs_id
    FROM pod_versions p
    WHERE p.phase = 'Pending' AND COALESCE(p.node_name, '') = ''
      -- A pod the store sees bound has its binding's evidence: only pods
      -- never seen bound are read (a recorder stores an unbound version of
      -- every pod; reading each object whole would cost the listing seconds).
      AND NOT EXISTS (SELECT 1 FROM pod_versions b
                      WHERE b.namespace = p.namespace AND b.name = p.name
                        AND COALESCE(b.uid, '') = COALESCE(p.uid, '') AND COALESCE(b.node_name, '') <> '')
      AND NOT EXISTS (SELECT 1 FROM fs_events e
                      WHERE e.involved_namespace = p.namespace AND e.involved_name = p.name)
),
conditions AS (
    SELECT p.namespace, p.name, p.uid, p.observed_at, p.obs_id,
           o.run_id, o.location, o.observed_at_estimated,
           TRY_CAST(o.object->>'$.metadata.creationTimestamp' AS TIMESTAMP) AS created_at,
           unnest(json_extract(o.object, '$.status.conditions[*]')) AS c
    FROM unbound p
    JOIN observations o ON o.obs_id = p.obs_id
    -- Only skips parsing: the conditions below decide.
    WHERE o.object LIKE '%Unschedulable%'
),
-- As `pod_failures`: a dump's estimated observation time is lifted to the
-- newest of its file in that run (a listing is taken after every timestamp in it).
dumps AS (
    SELECT x.run_id, x.location, max(x.observed_at) AS listed_at
    FROM observations x
    JOIN (SELECT DISTINCT run_id, location FROM conditions WHERE observed_at_estimated) c USING (run_id, location)
    GROUP BY ALL
),
unschedulable AS (
    SELECT namespace, name, uid, left(c->>'$.message', 16384) AS message,
           length(c->>'$.message') AS message_chars,
           COALESCE(TRY_CAST(c->>'$.lastTransitionTime' AS TIMESTAMP), created_at, observed_at) AS failed_at,
           max(CASE WHEN observed_at_estimated THEN greatest(observed_at, d.listed_at) ELSE observed_at END)
               OVER (PARTITION BY namespace, name, uid, failed_at) AS seen_at
    FROM conditions u
    LEFT JOIN dumps d USING (run_id, location)
    WHERE c->>'$.type' = 'PodScheduled' AND c->>'$.status' = 'False' AND c->>'$.reason' = 'Unschedulable'
      AND COALESCE(c->>'$.message', '') <> ''
    QUALIFY row_number() OVER (PARTITION BY namespace, name, uid, failed_at ORDER BY observed_at DESC, obs_id DESC) = 1
),
failures AS (
    SELECT involved_namespace AS namespace,
           involved_name AS name,
           COALESCE(involved_uid, '') AS uid,
           min(first_time) AS first_failure,
           max(last_time) AS last_failure,
           max(first_time) AS last_failure_began,
           CAST(sum(count) AS BIGINT) AS occurrences,
           count(*) AS failure_events,
           first(message ORDER BY last_time DESC, first_time DESC, event_key DESC) AS message,
           first(message_chars ORDER BY last_time DESC, first_time DESC, event_key DESC) AS message_chars,
           first(message ORDER BY last_time DESC, first_time DESC, event_key DESC)
               FILTER (WHERE NOT skip_deleting) AS attempt_message,
           first(message_chars ORDER BY last_time DESC, first_time DESC, event_key DESC)
               FILTER (WHERE NOT skip_deleting) AS attempt_message_chars
    FROM (
        -- The `events` view's choice among FailedScheduling versions only (an
        -- Event's reason and involved object never change between versions):
        -- the view windows over every event version of the store first.
        SELECT involved_namespace, involved_name, involved_uid, first_time, last_time, count, event_key,
               message, message_chars, skip_deleting
        FROM fs_events
        WHERE true
          -- An event naming no pod explains none (break-it trial: a NULL
          -- name failed the whole listing).
          AND involved_name IS NOT NULL AND involved_name <> ''
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
        UNION ALL BY NAME
        SELECT namespace AS involved_namespace, name AS involved_name, uid AS involved_uid, failed_at AS first_time,
               greatest(failed_at, seen_at) AS last_time, 1 AS count, message, message_chars, false AS skip_deleting,
               'PodScheduled:' || namespace || '/' || name || '@' || strftime(failed_at, '%Y-%m-%dT%H:%M:%S') AS event_key
        FROM unschedulable
    )
    GROUP BY ALL
),
scheduled AS (
    SELECT involved_namespace AS namespace,
           involved_name AS name,
           COALESCE(involved_uid, '') AS uid,
           first_time AS scheduled_at,
           node
    FROM (
        -- The same choice among Scheduled versions (of each message only
        -- its node is carried).
        SELECT involved_namespace, involved_name, involved_uid, first_time,
               regexp_extract(message, ' to (\S+)$', 1) AS node
        FROM event_versions WHERE reason = 'Scheduled' AND involved_kind = 'Pod'
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
),
-- The Failed versions' reasons, read from their objects alone
-- (materialized: the reasons' filter below, pushed down to the scan of
-- every stored object, parsed each one's JSON: 1.7 s of the listing's
-- 1.7 s at 100,000 events, kdrift issue 39).
failed_versions AS MATERIALIZED (
    SELECT p.namespace, p.name, COALESCE(p.uid, '') AS uid, p.observed_at,
           json_extract_string(o.object, '$.status.reason') AS reason
    FROM pod_versions p
    JOIN observations o ON o.obs_id = p.obs_id
    WHERE p.phase = 'Failed'
),
rejections AS (
    SELECT involved_namespace AS namespace, involved_name AS name, COALESCE(involved_uid, '') AS uid,
           COALESCE(first_time, last_time) AS rejected_at, reason, true AS from_event
    FROM event_versions
    WHERE involved_kind = 'Pod' AND COALESCE(reporting_component, '') IN ('kubelet', '')
    UNION ALL
    SELECT namespace, name, uid, observed_at, reason, false FROM failed_versions
),
admission_rejections AS (
    SELECT * FROM rejections
    WHERE reason LIKE 'OutOf%'
       OR reason IN ('UnexpectedAdmissionError', 'UnexpectedPredicateFailureType', 'InvalidNodeInfo',
                     'NodeAffinity', 'NodeShutdown', 'PodOSNotSupported', 'PodOSSelectorNodeLabelDoesNotMatch',
                     'SysctlForbidden')
),
-- The sources of `pod_deletions`, for every pod: its versions, its owner's
-- SuccessfulDelete, kube-scheduler's "skip schedule deleting pod", the end of
-- its Job. Not aggregated: the first deletion after the first failure is
-- picked below (a reused name's earlier pod was deleted before it).
deleted AS (
    SELECT namespace, name, COALESCE(uid, '') AS uid,
           CASE WHEN change = 'DELETED' THEN observed_at ELSE deleted_at END AS deleted_at, true AS own,
           CASE WHEN change = 'DELETED' THEN 1 ELSE 2 END AS rank
    FROM pod_versions
    WHERE change = 'DELETED' OR deleted_at IS NOT NULL
    UNION ALL
    SELECT involved_namespace, regexp_extract(message, '^Deleted pod: (\S+)$', 1), '', first_time, false, 3
    FROM event_versions
    WHERE reason = 'SuccessfulDelete' AND message LIKE 'Deleted pod: %'
    UNION ALL
    SELECT involved_namespace, involved_name, COALESCE(involved_uid, ''), last_time, false, 3
    FROM fs_events
    WHERE skip_deleting
    UNION ALL
    SELECT c.involved_namespace, regexp_extract(c.message, '^Created pod: (\S+)$', 1), '', j.first_time, false, 3
    FROM event_versions c
    JOIN event_versions j ON j.involved_kind = 'Job' AND j.involved_namespace = c.involved_namespace
                         AND j.involved_name = c.involved_name
                         AND j.reason IN ('DeadlineExceeded', 'BackoffLimitExceeded')
    WHERE c.involved_kind = 'Job' AND c.reason = 'SuccessfulCreate' AND c.message LIKE 'Created pod: %'
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
     -- A failure that began after a binding is of a later pod of the name
     -- (events without a uid merge them): that binding ended nothing.
     AND s.scheduled_at >= f.last_failure_began
    QUALIFY row_number() OVER (PARTITION BY f.namespace, f.name, f.uid ORDER BY s.scheduled_at NULLS LAST) = 1
),
with_deleted AS (
    SELECT j.namespace, j.name, j.uid, j.first_failure, j.last_failure, j.occurrences, j.failure_events,
           CASE WHEN j.message_chars > 16384 THEN j.message || '… (cut: ' || CAST(j.message_chars AS VARCHAR) || ' characters in all)'
                ELSE j.message END AS latest_message,
           CASE WHEN j.attempt_message_chars > 16384
                THEN j.attempt_message || '… (cut: ' || CAST(j.attempt_message_chars AS VARCHAR) || ' characters in all)'
                ELSE j.attempt_message END AS attempt_message,
           j.scheduled_at, j.scheduled_node,
           -- Whole seconds, truncated as the chain's `history.pending_seconds` (a cast rounds).
           CAST(trunc(epoch(COALESCE(j.scheduled_at, greatest(d.deleted_at, j.last_failure), j.last_failure))
                - epoch(j.first_failure)) AS BIGINT) AS pending_seconds,
           d.deleted_at
    FROM joined j
    LEFT JOIN deleted d
      ON d.namespace = j.namespace AND d.name = j.name AND (d.uid = j.uid OR j.uid = '' OR d.uid = '')
     AND d.deleted_at >= j.first_failure
    -- Without a uid several pods of that name may have been deleted: take the
    -- first deletion after the first failure.
    -- The pod's own evidence first (its owner's and Job's come a moment before the deletion):
    -- a DELETED version, then a deletionTimestamp, as `pod_deletions` ranks
    -- them, so that the list and the chain give one deletion time.
    QUALIFY row_number() OVER (PARTITION BY j.namespace, j.name, j.uid
        ORDER BY d.own DESC NULLS LAST, d.rank NULLS LAST, d.deleted_at NULLS LAST) = 1
)
SELECT w.* EXCLUDE (attempt_message),
       CASE WHEN r.from_event THEN r.rejected_at WHEN NOT r.from_event THEN w.scheduled_at END AS rejected_at,
       r.reason AS rejected_reason, w.attempt_message AS latest_attempt_message
FROM with_deleted w
-- Right after the binding: from one second before it (the scheduler's and the
-- kubelet's event times are whole seconds from two clocks) to a minute after
-- (the kubelet admits a pod as soon as it sees the binding; a later refusal
-- is of a pod that ran, e.g. re-admitted after a node restart); an event first.
LEFT JOIN admission_rejections r
  ON r.namespace = w.namespace AND r.name = w.name AND (r.uid = w.uid OR w.uid = '' OR r.uid = '')
 AND w.scheduled_at IS NOT NULL
 -- A stored version's observation time says nothing of when (a dump): a pod is bound once.
 AND (NOT r.from_event OR r.rejected_at BETWEEN w.scheduled_at - INTERVAL 1 SECOND AND w.scheduled_at + INTERVAL 1 MINUTE)
QUALIFY row_number() OVER (PARTITION BY w.namespace, w.name, w.uid
    ORDER BY r.from_event DESC NULLS LAST, r.rejected_at, r.reason) = 1
ORDER BY w.pending_seconds DESC, w.occurrences DESC, w.namespace, w.name, w.uid;
