-- name: derive_node_signals
-- purpose: Writes the `node_signals` rows (schema v6) of the nodes one
--   committed batch names (`batch_nodes`; every node when $1 is negative: a
--   migration): what happened to each node, one row per signal — cordon /
--   uncordon (spec.unschedulable turning true / false between two stored
--   Node versions, or NodeNotSchedulable / NodeSchedulable events),
--   not_ready / ready (the Ready condition leaving / reaching True, or
--   NodeNotReady / NodeReady events), rebooted (a new
--   status.nodeInfo.bootID of the same Node uid, or Rebooted events),
--   starting (the kubelet's Starting), registered (RegisteredNode),
--   deleting_pods (the node controller's DeletingAllPods), removing
--   (RemovingNode), drain (AKS's Drain). An aggregated event (count > 1)
--   gives a signal at its first and at its last time. A node's first stored
--   version gives cordon / not_ready when it already shows them, at the
--   unschedulable taint's timeAdded / the Ready condition's
--   lastTransitionTime (estimated). "Between two stored Node versions"
--   means two neighbours in the version order (observed_at, then
--   resourceVersion as an integer, then obs_id; as `derive_node_intervals`),
--   so that a cordon and an uncordon observed at the same instant come in
--   the order the apiserver wrote them, whatever order they were ingested
--   in. A node's signals depend only on its own versions and events;
--   `clear_node_signals` first removes those nodes' rows. The
--   `node_signals` query reads the table.
-- params: $1 run_id BIGINT (negative: every node), $2 after_obs_id BIGINT (only nodes named after it)
-- columns: none (inserts)
INSERT INTO node_signals
WITH touched AS (
    SELECT name FROM batch_nodes($1, $2)
),
versions AS (
    SELECT n.name, n.uid, n.observed_at, n.unschedulable, n.ready, o.observed_at_estimated,
           n.model->>'$.status.nodeInfo.bootID' AS boot_id,
           (SELECT k8s_time(t->>'timeAdded')
              FROM (SELECT unnest(json_extract(n.model, '$.spec.taints[*]')) AS t)
             WHERE t->>'key' = 'node.kubernetes.io/unschedulable' LIMIT 1) AS cordon_taint_at,
           (SELECT k8s_time(c->>'lastTransitionTime')
              FROM (SELECT unnest(json_extract(n.model, '$.status.conditions[*]')) AS c)
             WHERE c->>'type' = 'Ready' LIMIT 1) AS ready_since,
           lag(n.unschedulable) OVER w AS prev_unschedulable,
           lag(n.ready) OVER w AS prev_ready,
           lag(n.model->>'$.status.nodeInfo.bootID') OVER w AS prev_boot_id,
           lag(n.uid) OVER w AS prev_uid,
           lag(n.observed_at) OVER w AS prev_observed_at
    FROM node_versions n
    -- Only the flag from the observation: the fields come from the version's model (no whole objects read).
    JOIN (SELECT obs_id, observed_at_estimated FROM observations WHERE kind = 'Node') o ON o.obs_id = n.obs_id
    WHERE n.change <> 'DELETED'
      AND ($1 < 0 OR n.name IN (SELECT name FROM touched))
    -- The version order: observed_at, then resourceVersion (as an integer), then obs_id.
    WINDOW w AS (PARTITION BY n.name
                 ORDER BY n.observed_at, TRY_CAST(n.resource_version AS HUGEINT) NULLS FIRST, n.obs_id)
),
from_objects AS (
    SELECT name AS node,
           CASE WHEN prev_observed_at IS NULL
                THEN COALESCE(least(cordon_taint_at, observed_at), observed_at) ELSE observed_at END AS occurred_at,
           'cordon' AS signal, 'object' AS source, 'spec.unschedulable' AS reason,
           'spec.unschedulable: true' AS detail,
           observed_at_estimated OR prev_observed_at IS NULL AS estimated
    FROM versions
    WHERE unschedulable AND NOT COALESCE(prev_unschedulable, false)
    UNION ALL
    SELECT name, observed_at, 'uncordon', 'object', 'spec.unschedulable', 'spec.unschedulable: false',
           observed_at_estimated
    FROM versions
    WHERE NOT unschedulable AND prev_unschedulable
    UNION ALL
    SELECT name,
           CASE WHEN prev_observed_at IS NULL
                THEN COALESCE(least(ready_since, observed_at), observed_at) ELSE observed_at END,
           'not_ready', 'object', 'Ready', 'Ready: ' || ready,
           observed_at_estimated OR prev_observed_at IS NULL
    FROM versions
    WHERE ready IS NOT NULL AND ready <> 'True' AND (prev_observed_at IS NULL OR prev_ready = 'True')
    UNION ALL
    SELECT name, observed_at, 'ready', 'object', 'Ready', 'Ready: True', observed_at_estimated
    FROM versions
    WHERE ready = 'True' AND prev_ready IS NOT NULL AND prev_ready <> 'True'
    UNION ALL
    SELECT name, observed_at, 'rebooted', 'object', 'status.nodeInfo.bootID', 'boot id ' || boot_id,
           observed_at_estimated
    FROM versions
    WHERE boot_id IS NOT NULL AND prev_boot_id IS NOT NULL AND boot_id <> prev_boot_id
      AND COALESCE(uid, '') = COALESCE(prev_uid, '')
),
node_events AS (
    SELECT involved_name AS node, first_time, last_time, count, reason, message,
           CASE reason
               WHEN 'NodeNotSchedulable' THEN 'cordon'
               WHEN 'NodeSchedulable' THEN 'uncordon'
               WHEN 'NodeNotReady' THEN 'not_ready'
               WHEN 'NodeReady' THEN 'ready'
               WHEN 'Rebooted' THEN 'rebooted'
               WHEN 'Starting' THEN 'starting'
               WHEN 'RegisteredNode' THEN 'registered'
               WHEN 'DeletingAllPods' THEN 'deleting_pods'
               WHEN 'RemovingNode' THEN 'removing'
               WHEN 'Drain' THEN 'drain'
           END AS signal
    FROM event_versions
    WHERE involved_kind = 'Node' AND involved_name IS NOT NULL AND involved_name <> ''
      AND ($1 < 0 OR involved_name IN (SELECT name FROM touched))
      AND reason IN ('NodeNotSchedulable', 'NodeSchedulable', 'NodeNotReady', 'NodeReady', 'Rebooted',
                     'Starting', 'RegisteredNode', 'DeletingAllPods', 'RemovingNode', 'Drain')
    -- The `events` view's choice among these versions only (reason and involved object never change).
    QUALIFY row_number() OVER (PARTITION BY event_key
        ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
),
from_events AS (
    SELECT node, first_time AS occurred_at, signal, 'event' AS source, reason, message AS detail, false AS estimated
    FROM node_events
    UNION ALL
    SELECT node, last_time, signal, 'event', reason, message, false
    FROM node_events
    WHERE count > 1 AND last_time > first_time
)
SELECT node, occurred_at, signal, source, reason, detail, estimated
FROM (SELECT * FROM from_objects UNION ALL SELECT * FROM from_events);
