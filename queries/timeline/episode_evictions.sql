-- name: episode_evictions
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('[{"node":"node-2","from_us":1795831200000000,"to_us":1795834800000000}]', 0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: The rows of `pod_evictions` that a drain timeline can attach to
--   its node episodes: evidence naming a node inside one of that node's
--   ranges, plus evidence naming no node (NULL or '') between since and until (its node
--   is the pod's last binding, found by the caller), oldest first. Read
--   from `eviction_evidence`; at 10M events a pod's every deletion and
--   Killing is evidence (1.5M rows), of which the episodes keep a third.
-- params: $1 episodes VARCHAR (a JSON array of {"node": NAME, "from_us": N, "to_us": N}: a node and a range of UTC
--   microseconds, both inclusive; JSON, so that any node name passes),
--   $2 since_us BIGINT (UTC microseconds), $3 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   occurred_at TIMESTAMP, evidence VARCHAR (DisruptionTarget | Killing | Evicted |
--   NodeControllerEviction | TaintManagerEviction | Deleted), detail VARCHAR
WITH ranges AS (
    SELECT r.node, make_timestamp(r.from_us) AS from_at, make_timestamp(r.to_us) AS to_at
    FROM (SELECT unnest(from_json($1, '[{"node":"VARCHAR","from_us":"BIGINT","to_us":"BIGINT"}]')) AS r)
),
matched AS (
    SELECT e.* FROM eviction_evidence e
    SEMI JOIN ranges r ON r.node = e.node AND e.occurred_at >= r.from_at AND e.occurred_at <= r.to_at
    UNION ALL
    SELECT e.* FROM eviction_evidence e
    WHERE COALESCE(e.node, '') = '' AND e.occurred_at >= make_timestamp($2) AND e.occurred_at <= make_timestamp($3)
)
SELECT namespace, name, uid, node, occurred_at, evidence, detail
FROM matched
ORDER BY occurred_at, namespace, name, uid, evidence, detail;
