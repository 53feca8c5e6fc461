-- name: owner_bindings
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('[{"namespace":"web","owner":"api-7d4b9c"}]', '["node-1"]', epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: The rows of `pod_placements` (bound up to an instant, oldest
--   first) that a drain's moves of some owners can use, and every binding to
--   some nodes: the bindings of every pod that has a binding of one of the
--   owners (owner reference's name, else the pod name without its last
--   `-suffix`, as `node_owners`) or eviction evidence whose pod name has
--   one of them as its prefix — each such pod with all its bindings, so
--   that its own owner is found as the whole history would find it.
-- params: $1 owners VARCHAR (a JSON array of {"namespace": NS, "owner": NAME}),
--   $2 nodes VARCHAR (a JSON array of node names), $3 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   bound_at TIMESTAMP, owner_kind VARCHAR, owner_name VARCHAR, created_at TIMESTAMP,
--   known_from VARCHAR (event | object | both)
WITH owners AS (
    SELECT o.namespace, o.owner
    FROM (SELECT unnest(from_json($1, '[{"namespace":"VARCHAR","owner":"VARCHAR"}]')) AS o)
),
pods AS (
    SELECT b.namespace, b.name FROM pod_bindings b
    SEMI JOIN owners o ON o.namespace = b.namespace
        AND o.owner = CASE WHEN b.owner_kind IS NOT NULL AND b.owner_name IS NOT NULL THEN b.owner_name
                           ELSE NULLIF(regexp_extract(b.name, '(?s)^(.+)-[^-]*$', 1), '') END
    UNION
    SELECT e.namespace, e.name FROM eviction_evidence e
    SEMI JOIN owners o ON o.namespace = e.namespace
        AND o.owner = NULLIF(regexp_extract(e.name, '(?s)^(.+)-[^-]*$', 1), '')
)
SELECT namespace, name, uid, node, bound_at, owner_kind, owner_name, created_at, known_from
FROM pod_bindings
WHERE bound_at <= make_timestamp($3)
  AND ((namespace, name) IN (SELECT namespace, name FROM pods)
       OR node IN (SELECT unnest(from_json($2, '["VARCHAR"]'))))
ORDER BY bound_at, namespace, name, uid, node;
