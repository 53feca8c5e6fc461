-- name: drain_episodes_on_nodes
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(10, '["node-1"]');
-- purpose: The kept episodes (schema v12 `drain_episodes`) of some nodes
--   in the operations numbered up to $1, in the timeline's order
--   (operation, then position): when each node came back, which tells
--   why-pending which pods landed on it in the burst that followed.
-- params: $1 last_operation BIGINT, $2 nodes VARCHAR (a JSON array of node names)
-- columns: operation INTEGER, episode INTEGER, node VARCHAR, back_at TIMESTAMP
SELECT operation, episode, node, back_at
FROM drain_episodes
WHERE operation <= $1
  AND list_contains(from_json($2, '["VARCHAR"]'), node)
ORDER BY operation, episode;
