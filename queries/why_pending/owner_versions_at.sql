-- name: owner_versions_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('Job', 'media', 'backup-29930640', epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: The objects of one kind in one namespace ('' for cluster-scoped
--   kinds), of one name or of every name (''), each as its version current
--   at an instant: the latest observed at or before it, else the earliest
--   after it (estimated: a dump taken later); of versions observed at the
--   same instant, the last in the version order (resourceVersion as an
--   integer, then obs_id; as `objects_at`). DELETED versions are kept: a
--   deleted Job's last version still holds the template its pods were
--   created from (why-pending's pod from its owner's template).
-- params: $1 kind VARCHAR, $2 namespace VARCHAR, $3 name VARCHAR ('' = every name), $4 at_us BIGINT (UTC microseconds)
-- columns: name VARCHAR, observed_at TIMESTAMP, estimated BOOLEAN, object JSON
SELECT o.name, o.observed_at, (o.observed_at > make_timestamp($4)) AS estimated, o.object
FROM observations o
WHERE o.kind = $1 AND o.namespace = $2 AND ($3 = '' OR o.name = $3)
QUALIFY row_number() OVER (
    PARTITION BY o.name
    ORDER BY (o.observed_at <= make_timestamp($4)) DESC,
             CASE WHEN o.observed_at <= make_timestamp($4) THEN epoch_us(o.observed_at) ELSE -epoch_us(o.observed_at) END DESC,
             TRY_CAST(o.resource_version AS HUGEINT) DESC NULLS LAST, o.obs_id DESC
) = 1
ORDER BY o.name;
