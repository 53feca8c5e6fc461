-- name: owner_pods
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('[{"namespace":"web","owner":"api-7d4b9c"}]');
-- purpose: The pods of some owners, as the drain timeline's replacement
--   matching groups pods: every pod with a binding whose owner (the owner
--   reference's name, else the pod name without its last `-suffix`, as
--   `node_owners`) is one of them, and every pod with eviction evidence
--   whose name has one of them as its prefix. `why-pending` reads these
--   pods' bindings and evictions (`owner_bindings`, `owner_evictions`),
--   each pod whole, so that its own owner is found as the whole history
--   would find it.
-- params: $1 owners VARCHAR (a JSON array of {"namespace": NS, "owner": NAME})
-- columns: namespace VARCHAR, name VARCHAR
WITH owners AS (
    SELECT o.namespace, o.owner
    FROM (SELECT unnest(from_json($1, '[{"namespace":"VARCHAR","owner":"VARCHAR"}]')) AS o)
)
SELECT b.namespace, b.name FROM pod_bindings b
SEMI JOIN owners o ON o.namespace = b.namespace
    AND o.owner = CASE WHEN b.owner_kind IS NOT NULL AND b.owner_name IS NOT NULL THEN b.owner_name
                       ELSE NULLIF(regexp_extract(b.name, '(?s)^(.+)-[^-]*$', 1), '') END
UNION
SELECT e.namespace, e.name FROM eviction_evidence e
SEMI JOIN owners o ON o.namespace = e.namespace
    AND o.owner = NULLIF(regexp_extract(e.name, '(?s)^(.+)-[^-]*$', 1), '')
ORDER BY namespace, name;
