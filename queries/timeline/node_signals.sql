-- name: node_signals
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: What happened to each node between two instants, one row per
--   signal, oldest first: cordon / uncordon (spec.unschedulable turning
--   true / false between two stored Node versions, or NodeNotSchedulable /
--   NodeSchedulable events), not_ready / ready (the Ready condition leaving /
--   reaching True, or NodeNotReady / NodeReady events), rebooted (a new
--   status.nodeInfo.bootID of the same Node uid, or Rebooted events), starting (the kubelet's
--   Starting), registered (RegisteredNode), deleting_pods (the node
--   controller's DeletingAllPods), removing (RemovingNode), drain (AKS's
--   Drain). An aggregated event (count > 1) gives a signal at its first and
--   at its last time. A node's first stored version gives cordon / not_ready
--   when it already shows them, at the unschedulable taint's timeAdded / the
--   Ready condition's lastTransitionTime (estimated). Read from
--   `node_signals`, which ingest keeps up to date (`derive_node_signals`).
--   A cordon of a node's first stored version with no taint time (at that
--   version's observed_at: the node was unschedulable when first seen, e.g.
--   an old cluster's control-plane node) gets the detail
--   'spec.unschedulable: true when first seen': cordoned before the history
--   starts, not a drain that begins at the first observation.
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: node VARCHAR, occurred_at TIMESTAMP, signal VARCHAR, source VARCHAR (object | event),
--   reason VARCHAR (event reason, or the object field), detail VARCHAR, estimated BOOLEAN
SELECT s.node, s.occurred_at, s.signal, s.source, s.reason,
       CASE WHEN s.signal = 'cordon' AND s.source = 'object' AND s.occurred_at = f.first_seen
            THEN 'spec.unschedulable: true when first seen' ELSE s.detail END AS detail,
       s.estimated
FROM node_signals s
LEFT JOIN (SELECT name, min(observed_at) AS first_seen FROM node_versions GROUP BY name) f ON f.name = s.node
WHERE s.occurred_at >= make_timestamp($1) AND s.occurred_at <= make_timestamp($2)
ORDER BY s.node, s.occurred_at, s.source DESC, s.signal, s.reason, detail;
