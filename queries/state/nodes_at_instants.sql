-- name: nodes_at_instants
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('1795928400000000,1795932000000000');
-- purpose: `nodes_at` at several instants in one query (the `node_versions_at`
--   macro). A version that holds at several instants comes once per instant
--   with the same obs_id, and its object only on the first of those rows
--   (the earliest instant): the reader parses each version once, and 5,000
--   node objects are not copied out 20 times (at 20 instants that copy was
--   most of the drain timeline's time at 1M events).
-- params: $1 instants VARCHAR (comma-separated UTC microseconds; `kdrift query` also takes RFC 3339 times)
-- columns: at_us BIGINT, name VARCHAR, obs_id BIGINT, estimated BOOLEAN,
--   object VARCHAR (JSON text: `node_versions.model`; NULL when an earlier row has the same obs_id)
WITH v AS (
    SELECT at_us, name, obs_id, estimated,
           row_number() OVER (PARTITION BY obs_id ORDER BY at_us) = 1 AS first
    FROM node_versions_at($1)
)
SELECT v.at_us, v.name, v.obs_id, v.estimated, n.model AS object
FROM v
LEFT JOIN node_versions n ON v.first AND n.obs_id = v.obs_id
ORDER BY v.at_us, v.name;
