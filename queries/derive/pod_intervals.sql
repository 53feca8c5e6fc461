-- name: derive_pod_intervals
-- purpose: Sets `valid_until` and `first_version` of the versions of every pod
--   (namespace, name, uid) that has a version in one run (or in its latest
--   batch), or of every pod when $1 is negative (a migration). Versions are
--   in the version order, the order `pods_at` picks in and every query that
--   orders or picks versions uses (schema v7): by observed_at, then by
--   resourceVersion as an integer (an etcd revision: of two versions
--   observed at the same instant, as a watch file's or a dump's estimated
--   times often are, the apiserver wrote the higher one later; a
--   resourceVersion that is missing or not an integer sorts before those
--   that are), then by obs_id (ingest order, when nothing else tells). A
--   version holds from its observed_at until the next one's ('infinity' for
--   the newest: a plain range, which DuckDB pushes into its scans; empty for
--   all but the last of versions tied on observed_at); `first_version`
--   marks the last version, in that order, observed at the pod's earliest
--   time (the one an instant before every version gets, estimated).
--   Versions that arrive out of order (an older dump ingested later) reopen
--   the intervals of their pod.
--   A namespace/name is held by one pod at a time (a StatefulSet recreates
--   `db-0` under a new uid, on the node it left when pinned there): the
--   newest version of a uid ends, instead of at 'infinity', when the next
--   uid of its namespace/name (by start: creationTimestamp, else its first
--   observed_at) starts, and never before its own observed_at. Versions
--   without a uid are left out of that rule (a manifest and a dump of one pod).
--   So every uid of a namespace/name that has a version in the batch is
--   recomputed, also those of earlier batches.
--   A pod's newest version (not a deletion) ends, instead of at
--   'infinity' (or at the next uid's start, when that is earlier), at the
--   earliest end evidence after its observed_at that no sign of life of the
--   same pod follows (schema v18; kdrift new-user trial 46: a dump older
--   than the descheduler's evictions kept the evicted pods on their node).
--   End evidence, per reason (../shared/reference/kubernetes-events.md):
--   - the kubelet's `Evicted` (node-pressure eviction: the pod is Failed),
--     also kdrift's and Karpenter's `Evicted` (the eviction API succeeded);
--   - the scheduler's `Preempted` (it deletes the victim);
--   - the kubelet's admission rejections `OutOf…` / `UnexpectedAdmissionError`
--     (the pod is Failed before it runs);
--   - the node controller's `NodeControllerEviction` / `TaintManagerEviction`
--     "Marking for deletion Pod …" (not "Cancelling …");
--   - the descheduler's events.k8s.io `Descheduled` (a successful eviction,
--     as query `move_causes` reads it; failures left out), cluster-
--     autoscaler's `ScaleDown` "deleting pod for node scale down", Karpenter's
--     `Disrupted` "Deleting the pod to accommodate the terminationTime";
--   - a controller's SuccessfulDelete "Deleted pod: POD" (names no uid);
--   - the kubelet's `Killing`, which is ambiguous: "Stopping container X"
--     comes when the pod is deleted but also when the kubelet kills the
--     containers of a pod that goes on (a sandbox re-created, older wordings
--     of a probe restart). Its restart wordings ("will be restarted",
--     "failed liveness", "failed startup") are never evidence, and the rest
--     only with no sign of life after it (below).
--   Left out: the DisruptionTarget condition (a stored version shows it: the
--   pod is terminating, still counted, and its DELETED version ends it) and
--   the end of a Job (it names no pod; the pod's own versions show its phase).
--   A sign of life is a `Scheduled`, `Pulling`, `Pulled`, `Created` or
--   `Started` event of the pod after the evidence (for a Killing, also in
--   the same second: a quick restart): the evidence is then not its end (a
--   Killing then Started is a restart; a Scheduled in the second of the
--   kubelet's OutOfcpu, its usual neighbour, is not after it). Events and versions
--   are of the same pod when namespace and name are equal and their uids are
--   too whenever both have one. A version observed after the evidence shows
--   the pod alive: the evidence is not after the newest version, so it ends
--   nothing. So every pod a batch names is recomputed: its versions, its Pod
--   events, a SuccessfulDelete "Deleted pod: POD" (written out here, not
--   `batch_pods`: migrations before schema v5 run this query).
-- params: $1 run_id BIGINT (negative: every pod), $2 after_obs_id BIGINT (only pods named after it; 0 for all)
-- columns: none (updates)
UPDATE pod_versions
SET valid_until = n.next_at, first_version = n.first
FROM (
    WITH touched AS (
        SELECT namespace, name FROM pod_versions WHERE run_id = $1 AND obs_id > $2
        UNION
        SELECT involved_namespace, involved_name FROM event_versions
        WHERE run_id = $1 AND obs_id > $2 AND involved_kind = 'Pod'
        UNION
        SELECT involved_namespace, regexp_extract(message, '^Deleted pod: (\S+)', 1) FROM event_versions
        WHERE run_id = $1 AND obs_id > $2 AND reason = 'SuccessfulDelete' AND message LIKE 'Deleted pod: %'
    ),
    -- Two scans, not one CTE read twice: DuckDB would hold it whole, event messages included.
    ends AS (
        SELECT involved_namespace AS namespace, involved_name AS name, COALESCE(involved_uid, '') AS uid,
               first_time AS event_at, reason
        FROM event_versions
        WHERE involved_kind = 'Pod' AND first_time IS NOT NULL
          AND (reason IN ('Killing', 'Evicted', 'Preempted', 'NodeControllerEviction', 'TaintManagerEviction',
                          'UnexpectedAdmissionError', 'ScaleDown', 'Disrupted')
               OR reason LIKE 'OutOf%' OR action = 'Descheduled')
          AND ($1 < 0 OR (involved_namespace, involved_name) IN (SELECT namespace, name FROM touched))
          AND ((reason IN ('Evicted', 'Preempted', 'UnexpectedAdmissionError') OR reason LIKE 'OutOf%')
               OR (reason = 'Killing' AND NOT (message LIKE '%will be restarted%' OR message LIKE '%failed liveness%'
                                                OR message LIKE '%failed startup%'))
               OR (reason IN ('NodeControllerEviction', 'TaintManagerEviction')
                   AND message LIKE 'Marking for deletion Pod%')
               OR (action = 'Descheduled' AND COALESCE(type, 'Normal') = 'Normal' AND reason <> 'EvictionFailed'
                   AND message NOT LIKE '%failed%'
                   AND regexp_matches(message, '^pod evict(ed|ion) from \S* ?node by sigs\.k8s\.io/descheduler'))
               OR (reason = 'ScaleDown' AND message LIKE 'deleting pod for node scale down%')
               OR (reason = 'Disrupted' AND message LIKE 'Deleting the pod to accommodate the terminationTime%'))
        UNION ALL
        SELECT involved_namespace, regexp_extract(message, '^Deleted pod: (\S+)', 1), '', first_time, reason
        FROM event_versions
        WHERE reason = 'SuccessfulDelete' AND message LIKE 'Deleted pod: %' AND first_time IS NOT NULL
          AND ($1 < 0 OR (involved_namespace, regexp_extract(message, '^Deleted pod: (\S+)', 1))
                         IN (SELECT namespace, name FROM touched))
    ),
    lives AS (
        SELECT involved_namespace AS namespace, involved_name AS name, COALESCE(involved_uid, '') AS uid,
               first_time AS event_at
        FROM event_versions
        WHERE involved_kind = 'Pod' AND first_time IS NOT NULL
          AND reason IN ('Scheduled', 'Pulling', 'Pulled', 'Created', 'Started')
          AND ($1 < 0 OR (involved_namespace, involved_name) IN (SELECT namespace, name FROM touched))
    ),
    ordered AS (
        SELECT v.obs_id, v.namespace, v.name, v.uid, v.observed_at, v.change,
               lead(v.observed_at) OVER (PARTITION BY v.namespace, v.name, COALESCE(v.uid, '')
                   ORDER BY v.observed_at, TRY_CAST(v.resource_version AS HUGEINT) NULLS FIRST, v.obs_id) AS lead_at,
               s.next_uid_at
        FROM pod_versions v
        LEFT JOIN (
            -- Each uid's start, and the start of the next uid of its namespace/name.
            SELECT namespace, name, uid,
                   lead(start_at) OVER (PARTITION BY namespace, name ORDER BY start_at, uid) AS next_uid_at
            FROM (
                SELECT namespace, name, uid, COALESCE(min(created_at), min(observed_at)) AS start_at
                FROM pod_versions
                WHERE uid IS NOT NULL AND uid <> ''
                  AND ($1 < 0 OR (namespace, name) IN (SELECT namespace, name FROM touched))
                GROUP BY namespace, name, uid
            )
        ) AS s ON s.namespace = v.namespace AND s.name = v.name AND s.uid = v.uid
        WHERE $1 < 0 OR (v.namespace, v.name) IN (SELECT namespace, name FROM touched)
    ),
    gone AS (
        -- Per newest version (not a deletion): its earliest end evidence after it, no sign of life following.
        SELECT o.obs_id, min(e.event_at) AS gone_at
        FROM ordered o
        JOIN ends e ON e.namespace = o.namespace AND e.name = o.name AND e.event_at > o.observed_at
                   AND (e.uid = '' OR COALESCE(o.uid, '') = '' OR e.uid = o.uid)
        WHERE o.lead_at IS NULL AND o.change <> 'DELETED'
          AND NOT EXISTS (
              SELECT 1 FROM lives l
              WHERE l.namespace = o.namespace AND l.name = o.name
                AND (l.event_at > e.event_at OR (e.reason = 'Killing' AND l.event_at = e.event_at))
                AND (l.uid = '' OR COALESCE(o.uid, '') = '' OR l.uid = o.uid))
        GROUP BY o.obs_id
    )
    SELECT o.obs_id,
           CASE WHEN o.lead_at IS NOT NULL THEN o.lead_at
                ELSE least(CASE WHEN o.next_uid_at IS NOT NULL THEN greatest(o.observed_at, o.next_uid_at)
                                ELSE 'infinity'::TIMESTAMP END,
                           COALESCE(g.gone_at, 'infinity'::TIMESTAMP)) END AS next_at,
           o.observed_at = min(o.observed_at) OVER (PARTITION BY o.namespace, o.name, COALESCE(o.uid, ''))
             AND (o.lead_at IS NULL OR o.lead_at > o.observed_at) AS first
    FROM ordered o
    LEFT JOIN gone g ON g.obs_id = o.obs_id
) AS n
WHERE pod_versions.obs_id = n.obs_id
  AND (pod_versions.valid_until IS DISTINCT FROM n.next_at OR pod_versions.first_version IS DISTINCT FROM n.first);
