-- name: bindings_to_node
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('node-1', epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: Every binding to one node up to an instant, oldest first (the
--   rows of `pod_placements` for that node): which pods why-pending's
--   explained nodes received, and when. One node per query: `pod_bindings`
--   is sorted by node (schema v12), and DuckDB skips to a node's row group
--   or two for `node = X`, but reads every row group for a list of nodes
--   (IN or `list_contains`: at 10M events ~100 ms for five nodes, against
--   ~20 ms for five single-node queries).
-- params: $1 node VARCHAR, $2 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   bound_at TIMESTAMP, owner_kind VARCHAR, owner_name VARCHAR, created_at TIMESTAMP,
--   known_from VARCHAR (event | object | both)
SELECT namespace, name, uid, node, bound_at, owner_kind, owner_name, created_at, known_from
FROM pod_bindings
WHERE node = $1 AND bound_at <= make_timestamp($2)
ORDER BY bound_at, namespace, name, uid, node;
