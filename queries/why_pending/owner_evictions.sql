-- name: owner_evictions
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('[{"namespace":"web","name":"api-7d4b9c-x2x9k"}]', 0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: The rows of `pod_evictions` (between two instants, oldest first)
--   of some pods (`owner_pods`): the evictions whose replacements
--   `why-pending` follows to the nodes it explains. Not cut to the node
--   episodes' ranges as `episode_evictions` is: the caller attaches each
--   piece to an episode only inside its range, and these pods' evidence is
--   small.
-- params: $1 pods VARCHAR (a JSON array of {"namespace": NS, "name": NAME}),
--   $2 since_us BIGINT (UTC microseconds), $3 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   occurred_at TIMESTAMP, evidence VARCHAR (DisruptionTarget | Killing | Evicted |
--   NodeControllerEviction | TaintManagerEviction | Deleted), detail VARCHAR
SELECT namespace, name, uid, node, occurred_at, evidence, detail
FROM eviction_evidence
WHERE occurred_at >= make_timestamp($2) AND occurred_at <= make_timestamp($3)
  AND (namespace, name) IN (SELECT p.namespace, p.name
                            FROM (SELECT unnest(from_json($1, '[{"namespace":"VARCHAR","name":"VARCHAR"}]')) AS p))
ORDER BY occurred_at, namespace, name, uid, evidence, detail;
