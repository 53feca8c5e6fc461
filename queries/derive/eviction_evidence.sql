-- name: derive_eviction_evidence
-- purpose: Writes the `eviction_evidence` rows (schema v5) of the pods one
--   committed batch names (`batch_pods`; every pod when $1 is negative: a
--   migration): evidence that a pod was evicted or stopped on a node — the
--   DisruptionTarget condition appearing in a stored Pod version (the first
--   in the version order: observed_at, then resourceVersion as an integer,
--   then obs_id; reason EvictionByEvictionAPI, DeletionByTaintManager, ...;
--   at its lastTransitionTime), the kubelet's Killing (containers stopped; restarts
--   after a failed probe are left out), the kubelet's Evicted, the node
--   controller's NodeControllerEviction ("Marking for deletion Pod X from Node
--   Y") and TaintManagerEviction, and a Pod's DELETED version. The node is the
--   pod's spec.nodeName, the event's source host, or the node named in the
--   message; NULL when none says. Evidence depends only on its pod's rows;
--   `clear_eviction_evidence` first removes those pods' rows. `pod_evictions`
--   reads the table.
-- params: $1 run_id BIGINT (negative: every pod), $2 after_obs_id BIGINT (only pods named after it)
-- columns: none (inserts)
INSERT INTO eviction_evidence
WITH touched AS (
    SELECT namespace, name FROM batch_pods($1, $2)
),
disruption AS (
    -- The first version of each pod with DisruptionTarget=True (derived at ingest: `disruption`).
    SELECT p.namespace, p.name, COALESCE(p.uid, '') AS uid, p.node_name AS node,
           COALESCE(p.disrupted_at, p.observed_at) AS occurred_at, 'DisruptionTarget' AS evidence,
           p.disruption AS detail
    FROM pod_versions p
    WHERE p.disruption IS NOT NULL
      AND ($1 < 0 OR (p.namespace, p.name) IN (SELECT namespace, name FROM touched))
    QUALIFY row_number() OVER (PARTITION BY p.namespace, p.name, COALESCE(p.uid, '')
        ORDER BY p.observed_at, TRY_CAST(p.resource_version AS HUGEINT) NULLS FIRST, p.obs_id) = 1
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
          -- An event naming no pod is evidence about none (and no batch could clear its row).
          AND involved_name IS NOT NULL AND involved_namespace IS NOT NULL
          AND ($1 < 0 OR (involved_namespace, involved_name) IN (SELECT namespace, name FROM touched))
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
      AND ($1 < 0 OR (p.namespace, p.name) IN (SELECT namespace, name FROM touched))
)
SELECT * FROM disruption
UNION ALL SELECT * FROM from_events
UNION ALL SELECT * FROM deleted;
