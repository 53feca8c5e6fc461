-- name: drain_moves_of_owners
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(1, 10, '[{"namespace":"web","owner":"api-7d4b9c"}]');
-- purpose: `drain_moves` of the operations numbered $1 to $2 for the pods of
--   some owners only (why-pending follows the owners of the pods on the
--   nodes it explains): the owner name of `owner` (`Kind/name`: after the
--   last `/`), else the
--   pod name without its last `-suffix` (the analyze crate's
--   `owner_key_of_matched`), in the same order as `drain_moves`. String
--   functions, not regexp_extract: a regular expression per kept row was
--   two thirds of this query at 10M events (175,000 rows; 110 → 35 ms).
--   Kubernetes names are ASCII, so characters and bytes agree.
-- params: $1 first_operation BIGINT, $2 last_operation BIGINT,
--   $3 owners VARCHAR (JSON array of {"namespace": …, "owner": …})
-- columns: as drain_moves
WITH owners AS (
    SELECT o.namespace, o.owner
    FROM (SELECT unnest(from_json($3, '[{"namespace":"VARCHAR","owner":"VARCHAR"}]')) AS o)
)
SELECT m.operation, m.episode, m.node, m.namespace, m.name, m.uid, m.evicted_at, m.evidence, m.detail, m.owner,
       m.replacement_name, m.replacement_node, m.replacement_bound_at
FROM drain_moves m
SEMI JOIN owners o ON o.namespace = m.namespace
    AND o.owner = CASE WHEN strpos(m.owner, '/') > 0 THEN split_part(m.owner, '/', -1)
                       WHEN strpos(m.name, '-') > 0
                       THEN NULLIF(left(m.name, length(m.name) - strpos(reverse(m.name), '-')), '') END
WHERE m.operation BETWEEN $1 AND $2
ORDER BY m.operation, m.episode, m.evicted_at, m.namespace, m.name;
