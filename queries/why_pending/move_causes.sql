-- name: move_causes
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: The events that say who moved a pod, between two instants,
--   oldest first: what `why-pending` names as the cause of a pod's arrival
--   (its replacement of an evicted pod of the same owner, or its owner's
--   scale-up). One row per event (the `events` view's choice among these
--   versions only), cause:
--   - descheduler: an events.k8s.io Event with action `Descheduled`, reason
--     = the plugin name, note "pod evicted from NODE node by
--     sigs.k8s.io/descheduler" (v0.26-v0.31) or "pod eviction from NODE
--     node by sigs.k8s.io/descheduler" (>= v0.32; descheduler
--     pkg/descheduler/evictions/evictions.go, `EvictPod`); failures
--     (`EvictionFailed`, "... failed: ...") are left out; by = the plugin;
--   - kdrift: kdrift's own `Evicted` (reportingComponent kdrift, "pod
--     evicted from NODE node by kdrift (rebalance RUN, eviction N...)";
--     rebalance/src/execute/record.rs); by = the run;
--   - karpenter: `Evicted` "Evicted pod: REASON" ("Evicted pod" before
--     v1: pkg/controllers/node/termination/eviction), `Disrupted` "Deleting
--     the pod to accommodate the terminationTime ..." (karpenter
--     pkg/controllers/node/termination/terminator/events/events.go); by =
--     REASON (Underutilized, Drifted, Empty, ...) or terminationTime;
--   - cluster-autoscaler: `ScaleDown` "deleting pod for node scale down"
--     (cluster-autoscaler core/scaledown/actuation/drain.go, `evictPod`);
--   - node-controller: `NodeControllerEviction` / `TaintManagerEviction`
--     "Marking for deletion Pod NS/NAME" (not "Cancelling ...");
--   - hpa: the HorizontalPodAutoscaler's `SuccessfulRescale` "New size: N;
--     reason: ..." (name = the HPA, by = N): its Deployment's scale-up follows.
--   The node is the one the event names, else the pod's latest binding at or
--   before the event (`pod_bindings`), else NULL; the owner is that
--   binding's, else NULL.
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: cause VARCHAR (descheduler | kdrift | karpenter | cluster-autoscaler | node-controller | hpa),
--   by VARCHAR, namespace VARCHAR, name VARCHAR, node VARCHAR, occurred_at TIMESTAMP,
--   owner_kind VARCHAR, owner_name VARCHAR, message VARCHAR
WITH chosen AS (
    SELECT * FROM event_versions
    WHERE first_time >= make_timestamp($1) AND first_time <= make_timestamp($2)
      AND involved_name IS NOT NULL AND involved_name <> ''
      AND (action = 'Descheduled'
           OR (involved_kind = 'Pod' AND reason IN ('Evicted', 'Disrupted', 'ScaleDown',
                                                    'NodeControllerEviction', 'TaintManagerEviction'))
           OR (involved_kind = 'HorizontalPodAutoscaler' AND reason = 'SuccessfulRescale'))
    QUALIFY row_number() OVER (PARTITION BY event_key
        ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
),
causes AS (
    SELECT CASE
               WHEN action = 'Descheduled' AND involved_kind = 'Pod' AND COALESCE(type, 'Normal') = 'Normal'
                    AND reason <> 'EvictionFailed' AND message NOT LIKE '%failed%'
                    AND regexp_matches(message, '^pod evict(ed|ion) from \S* ?node by sigs\.k8s\.io/descheduler')
                   THEN 'descheduler'
               WHEN reason = 'Evicted' AND reporting_component = 'kdrift' THEN 'kdrift'
               WHEN reason = 'Evicted' AND (message LIKE 'Evicted pod: %' OR message = 'Evicted pod') THEN 'karpenter'
               WHEN reason = 'Disrupted' AND message LIKE 'Deleting the pod to accommodate the terminationTime%'
                   THEN 'karpenter'
               WHEN reason = 'ScaleDown' AND message LIKE 'deleting pod for node scale down%' THEN 'cluster-autoscaler'
               WHEN reason IN ('NodeControllerEviction', 'TaintManagerEviction')
                    AND message LIKE 'Marking for deletion Pod%' THEN 'node-controller'
               WHEN involved_kind = 'HorizontalPodAutoscaler' AND reason = 'SuccessfulRescale'
                    AND message LIKE 'New size: %' THEN 'hpa'
           END AS cause,
           CASE
               WHEN action = 'Descheduled' THEN reason
               WHEN reporting_component = 'kdrift' THEN NULLIF(regexp_extract(message, '\(rebalance ([^,)]+)', 1), '')
               WHEN reason = 'Evicted' THEN NULLIF(trim(substr(message, length('Evicted pod: ') + 1)), '')
               WHEN reason = 'Disrupted' THEN 'terminationTime'
               WHEN reason = 'ScaleDown' THEN 'scale-down'
               WHEN involved_kind = 'HorizontalPodAutoscaler' THEN regexp_extract(message, '^New size: (\d+)', 1)
               ELSE reason
           END AS by,
           involved_namespace AS namespace, involved_name AS name,
           COALESCE(NULLIF(regexp_extract(message, 'evict(?:ed|ion) from (\S+) node by', 1), ''),
                    NULLIF(regexp_extract(message, 'from Node (\S+)', 1), ''),
                    CASE WHEN reason IN ('NodeControllerEviction', 'TaintManagerEviction') THEN source_host END)
               AS named_node,
           first_time AS occurred_at, message, event_key
    FROM chosen
)
SELECT c.cause, c.by, c.namespace, c.name,
       COALESCE(c.named_node, b.node) AS node, c.occurred_at, b.owner_kind, b.owner_name, c.message
FROM causes c
-- The pod's latest binding at or before the event (none for an HPA).
LEFT JOIN pod_bindings b
       ON c.cause <> 'hpa' AND b.namespace = c.namespace AND b.name = c.name AND b.bound_at <= c.occurred_at
WHERE c.cause IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY c.event_key ORDER BY b.bound_at DESC NULLS LAST) = 1
ORDER BY c.occurred_at, c.cause, c.namespace, c.name;
