-- name: node_owners
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('["node-1"]', epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: The owners of every pod bound to one of the given nodes up to an
--   instant (from `pod_bindings`): the namespace and the owner's name — the
--   owner reference's name, else the pod name without its last `-suffix`
--   (`web-7d4b9c-x2x9k` → `web-7d4b9c`; the rule of the drain timeline's
--   replacement matching). A pod evicted by a drain is replaced by a pod of
--   its own owner, so only these owners' moves can have sent pods to the
--   nodes: `why-pending` follows them instead of every move of the history.
-- params: $1 nodes VARCHAR (a JSON array of node names), $2 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, owner VARCHAR
SELECT DISTINCT namespace, owner
FROM (
    SELECT namespace,
           CASE WHEN owner_kind IS NOT NULL AND owner_name IS NOT NULL THEN owner_name
                ELSE NULLIF(regexp_extract(name, '(?s)^(.+)-[^-]*$', 1), '') END AS owner
    FROM pod_bindings
    WHERE node IN (SELECT unnest(from_json($1, '["VARCHAR"]'))) AND bound_at <= make_timestamp($2)
)
WHERE owner IS NOT NULL
ORDER BY namespace, owner;
