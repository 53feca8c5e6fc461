-- name: owner_bindings
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('[{"namespace":"web","name":"api-7d4b9c-x2x9k"}]', '["node-1"]', epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: The rows of `pod_placements` (bound up to an instant, oldest
--   first) of some pods (`owner_pods`: the pods of the owners whose drain
--   moves `why-pending` follows), and every binding to some nodes.
-- params: $1 pods VARCHAR (a JSON array of {"namespace": NS, "name": NAME}),
--   $2 nodes VARCHAR (a JSON array of node names), $3 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   bound_at TIMESTAMP, owner_kind VARCHAR, owner_name VARCHAR, created_at TIMESTAMP,
--   known_from VARCHAR (event | object | both)
SELECT namespace, name, uid, node, bound_at, owner_kind, owner_name, created_at, known_from
FROM pod_bindings
WHERE bound_at <= make_timestamp($3)
  AND ((namespace, name) IN (SELECT p.namespace, p.name
                             FROM (SELECT unnest(from_json($1, '[{"namespace":"VARCHAR","name":"VARCHAR"}]')) AS p))
       OR node IN (SELECT unnest(from_json($2, '["VARCHAR"]'))))
ORDER BY bound_at, namespace, name, uid, node;
