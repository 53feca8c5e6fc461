-- name: drain_moves
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(1, 10);
-- purpose: The kept moves of the operations numbered $1 to $2 (1-based,
--   both inclusive), per operation and episode in the order the timeline
--   lists them (earliest evidence, then namespace and name).
-- params: $1 first_operation BIGINT, $2 last_operation BIGINT
-- columns: operation INTEGER, episode INTEGER, node VARCHAR, namespace VARCHAR, name VARCHAR, uid VARCHAR,
--   evicted_at TIMESTAMP, evidence VARCHAR, detail VARCHAR, owner VARCHAR, replacement_name VARCHAR,
--   replacement_node VARCHAR, replacement_bound_at TIMESTAMP
SELECT operation, episode, node, namespace, name, uid, evicted_at, evidence, detail, owner,
       replacement_name, replacement_node, replacement_bound_at
FROM drain_moves
WHERE operation BETWEEN $1 AND $2
ORDER BY operation, episode, evicted_at, namespace, name;
