-- name: pod_evictions
-- access: read
-- audience: user
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
--   message; NULL when none says. Read from `eviction_evidence`, which ingest
--   keeps up to date (`derive_eviction_evidence`).
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   occurred_at TIMESTAMP, evidence VARCHAR (DisruptionTarget | Killing | Evicted |
--   NodeControllerEviction | TaintManagerEviction | Deleted), detail VARCHAR
SELECT namespace, name, uid, node, occurred_at, evidence, detail
FROM eviction_evidence
WHERE occurred_at >= make_timestamp($1) AND occurred_at <= make_timestamp($2)
ORDER BY occurred_at, namespace, name, uid, evidence, detail;
