-- name: event_only_placements
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: The pods bound to a node at or before an instant that the store
--   knows only from the scheduler's Scheduled event ("Successfully assigned
--   NS/POD to NODE"): no stored Pod version with a node matches them (same
--   namespace and name, same uid when both have one). The rows of
--   `pod_placements` with known_from = 'event', without reading any pod
--   object: what the state at an instant adds to the stored pods. The owner
--   comes from the controller's SuccessfulCreate event ("Created pod: POD").
--   Read from `pod_bindings`, which ingest keeps up to date
--   (`derive_pod_bindings`).
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   bound_at TIMESTAMP, owner_kind VARCHAR, owner_name VARCHAR, created_at TIMESTAMP,
--   known_from VARCHAR (always event)
SELECT namespace, name, uid, node, bound_at, owner_kind, owner_name, created_at, 'event' AS known_from
FROM pod_bindings
WHERE known_from = 'event' AND bound_at <= make_timestamp($1)
ORDER BY bound_at, namespace, name, uid, node;
