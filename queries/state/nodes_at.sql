-- name: nodes_at
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: The nodes at an instant, each as its latest version observed at or
--   before it (else its earliest version after: estimated). Nodes deleted by
--   then, or created after it, are left out. The versions come from the
--   `node_versions_at` macro (schema v4: a range filter on version intervals).
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: name VARCHAR, observed_at TIMESTAMP, estimated BOOLEAN, object VARCHAR (JSON text: the fields of
--   the version the cluster model reads, `node_versions.model`, not the whole object)
SELECT v.name, v.observed_at, v.estimated, n.model AS object
FROM node_versions_at(CAST($1 AS VARCHAR)) v
JOIN node_versions n ON n.obs_id = v.obs_id
ORDER BY v.name;
