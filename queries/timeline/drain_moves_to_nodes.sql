-- name: drain_moves_to_nodes
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(1, 10, '["node-1"]');
-- purpose: `drain_moves` of the operations numbered $1 to $2 whose
--   replacement was bound to one of some nodes, in the same order as
--   `drain_moves`: why-pending explains why a few nodes are full, and only
--   these moves brought a pod there. `list_contains` on the list, not a
--   join with it: the join read every column of every kept row before
--   matching (at 10M events 175,000 rows for 175 moves; ~85 → ~50 ms).
-- params: $1 first_operation BIGINT, $2 last_operation BIGINT, $3 nodes VARCHAR (a JSON array of node names)
-- columns: as drain_moves
SELECT operation, episode, node, namespace, name, uid, evicted_at, evidence, detail, owner,
       replacement_name, replacement_node, replacement_bound_at
FROM drain_moves
WHERE operation BETWEEN $1 AND $2
  AND list_contains(from_json($3, '["VARCHAR"]'), replacement_node)
ORDER BY operation, episode, evicted_at, namespace, name;
