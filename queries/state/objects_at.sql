-- name: objects_at
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('Node', epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: The objects of one kind (Namespace, PodDisruptionBudget,
--   PriorityClass, ...) at an instant, each as its latest version observed at
--   or before it (else its earliest version after: estimated); of versions
--   observed at the same instant, the last in the version order
--   (resourceVersion as an integer, then obs_id; as `derive_pod_intervals`).
--   Objects deleted by then, or created after it, are left out.
-- params: $1 kind VARCHAR, $2 at_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR, observed_at TIMESTAMP, estimated BOOLEAN, object JSON
WITH chosen AS (
    SELECT o.obs_id, o.namespace, o.name, o.uid, o.change, o.observed_at, o.object,
           (o.observed_at > make_timestamp($2)) AS estimated
    FROM observations o
    WHERE o.kind = $1
    QUALIFY row_number() OVER (
        PARTITION BY o.namespace, o.name
        ORDER BY (o.observed_at <= make_timestamp($2)) DESC,
                 CASE WHEN o.observed_at <= make_timestamp($2) THEN epoch_us(o.observed_at) ELSE -epoch_us(o.observed_at) END DESC,
                 TRY_CAST(o.resource_version AS HUGEINT) DESC NULLS LAST, o.obs_id DESC
    ) = 1
)
SELECT c.namespace, c.name, COALESCE(c.uid, '') AS uid, c.observed_at, c.estimated, c.object
FROM chosen c
WHERE NOT (c.change = 'DELETED' AND NOT c.estimated)
  AND COALESCE(TRY_CAST(c.object->>'$.metadata.creationTimestamp' AS TIMESTAMP) <= make_timestamp($2), true)
ORDER BY c.namespace, c.name;
