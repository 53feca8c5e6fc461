-- name: pod_evictions
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: Evidence that a pod was evicted or stopped on a node between two
--   instants, one row per piece of evidence, oldest first: the
--   DisruptionTarget condition appearing in a stored Pod version (reason
--   EvictionByEvictionAPI, DeletionByTaintManager, ...; at its
--   lastTransitionTime), the kubelet's Killing (containers stopped; restarts
--   after a failed probe are left out), the kubelet's Evicted, the node
--   controller's NodeControllerEviction ("Marking for deletion Pod X from Node
--   Y") and TaintManagerEviction, and a Pod's DELETED version. The node is the
--   pod's spec.nodeName, the event's source host, or the node named in the
--   message; NULL when none says.
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   occurred_at TIMESTAMP, evidence VARCHAR (DisruptionTarget | Killing | Evicted |
--   NodeControllerEviction | TaintManagerEviction | Deleted), detail VARCHAR
WITH disruption AS (
    -- The first version of each pod with DisruptionTarget=True (derived at ingest: `disruption`).
    SELECT p.namespace, p.name, COALESCE(p.uid, '') AS uid, p.node_name AS node,
           COALESCE(p.disrupted_at, p.observed_at) AS occurred_at, p.disruption AS detail
    FROM pod_versions p
    WHERE p.disruption IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY p.namespace, p.name, COALESCE(p.uid, '') ORDER BY p.observed_at, p.obs_id) = 1
),
from_events AS (
    SELECT involved_namespace AS namespace, involved_name AS name, COALESCE(involved_uid, '') AS uid,
           CASE WHEN reason IN ('NodeControllerEviction')
                THEN NULLIF(regexp_extract(message, 'from Node (\S+)', 1), '')
                ELSE source_host END AS node,
           first_time AS occurred_at, reason AS evidence, message AS detail
    FROM (
        -- The `events` view's choice among the pods' eviction-like versions only.
        SELECT * FROM event_versions
        WHERE involved_kind = 'Pod' AND reason IN ('Killing', 'Evicted', 'NodeControllerEviction', 'TaintManagerEviction')
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    WHERE NOT (reason = 'Killing' AND (message LIKE '%will be restarted%' OR message LIKE '%failed liveness%'
                                       OR message LIKE '%failed startup%'))
      AND NOT (reason = 'TaintManagerEviction' AND message LIKE 'Cancelling%')
),
deleted AS (
    SELECT p.namespace, p.name, COALESCE(p.uid, '') AS uid, p.node_name AS node, p.observed_at AS occurred_at,
           'Deleted' AS evidence, 'pod deleted' AS detail
    FROM pod_versions p
    WHERE p.change = 'DELETED'
)
SELECT namespace, name, uid, node, occurred_at, evidence, detail
FROM (
    SELECT namespace, name, uid, node, occurred_at, 'DisruptionTarget' AS evidence, detail FROM disruption
    UNION ALL SELECT * FROM from_events
    UNION ALL SELECT * FROM deleted
)
WHERE occurred_at >= make_timestamp($1) AND occurred_at <= make_timestamp($2)
ORDER BY occurred_at, namespace, name, uid, evidence, detail;
