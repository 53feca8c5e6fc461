-- name: owner_samples
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: For every pod owner (ReplicaSet, Job, DaemonSet, StatefulSet, ...)
--   the stored object nearest to an instant that shows its pods' requests:
--   one of its pods (ownerReferences; the fields the cluster model reads,
--   `pod_versions.model`) and the owner itself (its
--   spec.template), each the latest version observed at or before the
--   instant, else the earliest after (of versions observed at the same
--   instant, the last in the version order: resourceVersion as an integer,
--   then obs_id; as `derive_pod_intervals`). Requests of pods known only from
--   Scheduled events are estimated from these.
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, owner_name VARCHAR, source VARCHAR (pod | template),
--   observed_at TIMESTAMP, object JSON
WITH pods AS (
    SELECT p.namespace, p.owner_name, 'pod' AS source, p.observed_at, CAST(p.model AS JSON) AS object
    FROM pod_versions p
    WHERE p.owner_name IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY p.namespace, p.owner_name
        ORDER BY (p.observed_at <= make_timestamp($1)) DESC,
                 CASE WHEN p.observed_at <= make_timestamp($1) THEN epoch_us(p.observed_at) ELSE -epoch_us(p.observed_at) END DESC,
                 TRY_CAST(p.resource_version AS HUGEINT) DESC NULLS LAST, p.obs_id DESC
    ) = 1
),
templates AS (
    SELECT o.namespace, o.name AS owner_name, 'template' AS source, o.observed_at, o.object
    FROM observations o
    WHERE o.kind IN ('ReplicaSet', 'Job', 'DaemonSet', 'StatefulSet', 'ReplicationController')
      AND json_exists(o.object, '$.spec.template.spec')
    QUALIFY row_number() OVER (
        PARTITION BY o.namespace, o.kind, o.name
        ORDER BY (o.observed_at <= make_timestamp($1)) DESC,
                 CASE WHEN o.observed_at <= make_timestamp($1) THEN epoch_us(o.observed_at) ELSE -epoch_us(o.observed_at) END DESC,
                 TRY_CAST(o.resource_version AS HUGEINT) DESC NULLS LAST, o.obs_id DESC
    ) = 1
)
SELECT namespace, owner_name, source, observed_at, object
FROM (SELECT * FROM pods UNION ALL SELECT * FROM templates)
ORDER BY namespace, owner_name, source, observed_at;
