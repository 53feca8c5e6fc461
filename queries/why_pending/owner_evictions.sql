-- name: owner_evictions
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('[{"node":"node-2","from_us":1795831200000000,"to_us":1795834800000000}]', 0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'), '[{"namespace":"web","owner":"api-7d4b9c"}]');
-- purpose: The rows of `episode_evictions` whose pod belongs to one of some
--   owners, as `owner_bindings` picks its pods (a binding of one of the
--   owners, or a pod name with one of them as its prefix): the evictions
--   whose replacements `why-pending` follows to the nodes it explains.
-- params: $1 episodes VARCHAR (a JSON array of {"node": NAME, "from_us": N, "to_us": N}),
--   $2 since_us BIGINT (UTC microseconds), $3 until_us BIGINT (UTC microseconds),
--   $4 owners VARCHAR (a JSON array of {"namespace": NS, "owner": NAME})
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   occurred_at TIMESTAMP, evidence VARCHAR (DisruptionTarget | Killing | Evicted |
--   NodeControllerEviction | TaintManagerEviction | Deleted), detail VARCHAR
WITH ranges AS (
    SELECT r.node, make_timestamp(r.from_us) AS from_at, make_timestamp(r.to_us) AS to_at
    FROM (SELECT unnest(from_json($1, '[{"node":"VARCHAR","from_us":"BIGINT","to_us":"BIGINT"}]')) AS r)
),
owners AS (
    SELECT o.namespace, o.owner
    FROM (SELECT unnest(from_json($4, '[{"namespace":"VARCHAR","owner":"VARCHAR"}]')) AS o)
),
owned AS (
    SELECT b.namespace, b.name FROM pod_bindings b
    SEMI JOIN owners o ON o.namespace = b.namespace
        AND o.owner = CASE WHEN b.owner_kind IS NOT NULL AND b.owner_name IS NOT NULL THEN b.owner_name
                           ELSE NULLIF(regexp_extract(b.name, '(?s)^(.+)-[^-]*$', 1), '') END
),
matched AS (
    SELECT e.* FROM eviction_evidence e
    SEMI JOIN ranges r ON r.node = e.node AND e.occurred_at >= r.from_at AND e.occurred_at <= r.to_at
    UNION ALL
    SELECT e.* FROM eviction_evidence e
    WHERE COALESCE(e.node, '') = '' AND e.occurred_at >= make_timestamp($2) AND e.occurred_at <= make_timestamp($3)
)
SELECT namespace, name, uid, node, occurred_at, evidence, detail
FROM matched m
WHERE (namespace, name) IN (SELECT namespace, name FROM owned)
   OR (namespace, NULLIF(regexp_extract(name, '(?s)^(.+)-[^-]*$', 1), '')) IN (SELECT namespace, owner FROM owners)
ORDER BY occurred_at, namespace, name, uid, evidence, detail;
