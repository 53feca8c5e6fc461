-- name: pod_placements
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: Every pod bound to a node between two instants, oldest binding
--   first: from the scheduler's Scheduled event ("Successfully assigned NS/POD
--   to NODE", its time) and from the first stored Pod version with
--   spec.nodeName (its PodScheduled condition's lastTransitionTime, else when
--   it was observed). The owner comes from the pod's ownerReferences, else
--   from the controller's SuccessfulCreate event ("Created pod: POD");
--   creation from metadata.creationTimestamp, else from that event. Read
--   from `pod_bindings`, which ingest keeps up to date (`derive_pod_bindings`).
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   bound_at TIMESTAMP, owner_kind VARCHAR, owner_name VARCHAR, created_at TIMESTAMP,
--   known_from VARCHAR (event | object | both)
SELECT namespace, name, uid, node, bound_at, owner_kind, owner_name, created_at, known_from
FROM pod_bindings
WHERE bound_at >= make_timestamp($1) AND bound_at <= make_timestamp($2)
ORDER BY bound_at, namespace, name, uid, node;
