-- name: drain_moves_to_node
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(1, 10, 'node-1');
-- purpose: `drain_moves` of the operations numbered $1 to $2 whose
--   replacement was bound to one node, in the same order as `drain_moves`:
--   why-pending explains why a few nodes are full, and only these moves
--   brought a pod there. One node per query: `drains::keep_moves` writes
--   the rows in replacement-node order (schema v12), so DuckDB skips to the
--   node's row group for `replacement_node = X`; a list of nodes (IN,
--   `list_contains`, a join) reads every kept row (at 10M events 175,000
--   rows for 175 moves).
-- params: $1 first_operation BIGINT, $2 last_operation BIGINT, $3 node VARCHAR
-- columns: as drain_moves
SELECT operation, episode, node, namespace, name, uid, evicted_at, evidence, detail, owner,
       replacement_name, replacement_node, replacement_bound_at
FROM drain_moves
WHERE operation BETWEEN $1 AND $2
  AND replacement_node = $3
ORDER BY operation, episode, evicted_at, namespace, name;
