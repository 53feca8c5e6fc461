-- name: pods_gone
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: Evidence that a pod stopped or was deleted at or before an
--   instant, earliest per pod: the kubelet's Killing (restarts after a failed
--   probe left out, and a Killing that a Scheduled, Pulling, Pulled, Created or
--   Started event of the same pod follows: the pod went on), Evicted, Preempted and admission rejections (OutOfcpu,
--   OutOfmemory, …), the node controller's NodeControllerEviction and
--   TaintManagerEviction, its owner's SuccessfulDelete ("Deleted pod: X"),
--   a DELETED Pod version, and the end of its Job (Completed,
--   DeadlineExceeded, BackoffLimitExceeded), and the evictions of the
--   other movers, as query `move_causes` reads them: the descheduler's
--   (events.k8s.io action `Descheduled`, note "pod evict(ed|ion) from NODE
--   node by sigs.k8s.io/descheduler"; failures left out), cluster-
--   autoscaler's `ScaleDown` ("deleting pod for node scale down") and
--   Karpenter's `Disrupted` ("Deleting the pod to accommodate the
--   terminationTime"; its `Evicted` is the kubelet's reason above). Used to
--   tell which pods known only from Scheduled events were still on their node.
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, gone_at TIMESTAMP, evidence VARCHAR
WITH evidence AS (
    SELECT involved_namespace AS namespace, involved_name AS name, first_time AS gone_at, reason AS evidence
    FROM events
    WHERE involved_kind = 'Pod'
      AND (reason IN ('Killing', 'Evicted', 'Preempted', 'NodeControllerEviction', 'TaintManagerEviction')
           OR reason LIKE 'OutOf%' OR reason = 'UnexpectedAdmissionError')
      AND NOT (reason = 'Killing' AND (message LIKE '%will be restarted%' OR message LIKE '%failed liveness%'
                                       OR message LIKE '%failed startup%'))
      AND NOT (reason = 'TaintManagerEviction' AND message LIKE 'Cancelling%')
      -- A Killing that a sign of life of the same pod follows is a restart (a sandbox re-created),
      -- as for a stored pod (queries/derive/pod_intervals.sql).
      AND NOT (reason = 'Killing' AND EXISTS (
          SELECT 1 FROM events l
          WHERE l.involved_kind = 'Pod' AND l.involved_namespace = events.involved_namespace
            AND l.involved_name = events.involved_name
            AND l.reason IN ('Scheduled', 'Pulling', 'Pulled', 'Created', 'Started')
            AND l.first_time >= events.first_time
            AND (COALESCE(l.involved_uid, '') = '' OR COALESCE(events.involved_uid, '') = ''
                 OR l.involved_uid = events.involved_uid)))
    UNION ALL
    SELECT involved_namespace, involved_name, first_time,
           CASE WHEN action = 'Descheduled' THEN 'Descheduled' ELSE reason END
    FROM events
    WHERE involved_kind = 'Pod'
      AND ((action = 'Descheduled' AND COALESCE(type, 'Normal') = 'Normal' AND reason <> 'EvictionFailed'
            AND message NOT LIKE '%failed%'
            AND regexp_matches(message, '^pod evict(ed|ion) from \S* ?node by sigs\.k8s\.io/descheduler'))
           OR (reason = 'ScaleDown' AND message LIKE 'deleting pod for node scale down%')
           OR (reason = 'Disrupted' AND message LIKE 'Deleting the pod to accommodate the terminationTime%'))
    UNION ALL
    SELECT involved_namespace, regexp_extract(message, '^Deleted pod: (\S+)', 1), first_time, 'SuccessfulDelete'
    FROM events
    WHERE reason = 'SuccessfulDelete' AND message LIKE 'Deleted pod: %'
    UNION ALL
    SELECT namespace, name, observed_at, 'Deleted'
    FROM pod_versions
    WHERE change = 'DELETED'
    UNION ALL
    SELECT c.involved_namespace, regexp_extract(c.message, '^Created pod: (\S+)', 1), j.first_time, 'Job' || j.reason
    FROM events c
    JOIN events j ON j.involved_kind = 'Job' AND j.involved_namespace = c.involved_namespace
                 AND j.involved_name = c.involved_name
                 AND j.reason IN ('Completed', 'DeadlineExceeded', 'BackoffLimitExceeded')
    WHERE c.involved_kind = 'Job' AND c.reason = 'SuccessfulCreate' AND c.message LIKE 'Created pod: %'
)
SELECT namespace, name, min(gone_at) AS gone_at, arg_min(evidence, gone_at) AS evidence
FROM evidence
WHERE gone_at <= make_timestamp($1) AND name <> '' AND namespace IS NOT NULL
GROUP BY namespace, name
ORDER BY namespace, name;
