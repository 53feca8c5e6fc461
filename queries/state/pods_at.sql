-- name: pods_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: The pods that existed at an instant, each as its latest version
--   observed at or before it (else, for dumps observed later, its earliest
--   version: marked estimated). Pods deleted by then, or created after it, are left out.
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR, node_name VARCHAR, observed_at TIMESTAMP,
--   estimated BOOLEAN (version observed after the instant), object VARCHAR (JSON text: the fields of the version the
--   cluster model reads: `pod_versions.model`, not the whole object)
WITH chosen AS (
    SELECT p.*, (p.observed_at > make_timestamp($1)) AS estimated
    FROM pod_versions p
    QUALIFY row_number() OVER (
        PARTITION BY p.namespace, p.name, COALESCE(p.uid, '')
        ORDER BY (p.observed_at <= make_timestamp($1)) DESC,
                 CASE WHEN p.observed_at <= make_timestamp($1) THEN epoch_us(p.observed_at) ELSE -epoch_us(p.observed_at) END DESC,
                 p.obs_id DESC
    ) = 1
)
SELECT c.namespace, c.name, COALESCE(c.uid, '') AS uid, c.node_name, c.observed_at, c.estimated, c.model AS object
FROM chosen c
WHERE NOT (c.change = 'DELETED' AND NOT c.estimated)
  AND (c.created_at IS NULL OR c.created_at <= make_timestamp($1))
ORDER BY c.namespace, c.name;
