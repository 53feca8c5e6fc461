-- name: nodes_at_instants
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('1795928400000000,1795932000000000');
-- purpose: `nodes_at` at several instants in one query (the `node_versions_at`
--   macro). A version that holds at several instants comes once per instant
--   with the same obs_id: read its object once.
-- params: $1 instants VARCHAR (comma-separated UTC microseconds; `kdrift query` also takes RFC 3339 times)
-- columns: at_us BIGINT, name VARCHAR, obs_id BIGINT, estimated BOOLEAN, object VARCHAR (JSON text: `node_versions.model`)
SELECT v.at_us, v.name, v.obs_id, v.estimated, n.model AS object
FROM node_versions_at($1) v
JOIN node_versions n ON n.obs_id = v.obs_id
ORDER BY v.at_us, v.name;
