-- name: nodes_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: The nodes at an instant, each as its latest version observed at or
--   before it (else its earliest version after: estimated). Nodes deleted by
--   then, or created after it, are left out.
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: name VARCHAR, observed_at TIMESTAMP, estimated BOOLEAN, object VARCHAR (JSON text: the fields of
--   the version the cluster model reads, `node_versions.model`, not the whole object)
WITH chosen AS (
    SELECT n.*, (n.observed_at > make_timestamp($1)) AS estimated
    FROM node_versions n
    QUALIFY row_number() OVER (
        PARTITION BY n.name
        ORDER BY (n.observed_at <= make_timestamp($1)) DESC,
                 CASE WHEN n.observed_at <= make_timestamp($1) THEN epoch_us(n.observed_at) ELSE -epoch_us(n.observed_at) END DESC,
                 n.obs_id DESC
    ) = 1
)
SELECT c.name, c.observed_at, c.estimated, c.model AS object
FROM chosen c
WHERE NOT (c.change = 'DELETED' AND NOT c.estimated)
  AND (c.created_at IS NULL OR c.created_at <= make_timestamp($1))
ORDER BY c.name;
