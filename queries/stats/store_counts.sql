-- name: store_counts
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: What the store holds: object versions, distinct events, event
--   versions, distinct pods and nodes, ingest runs.
-- params: none
-- columns: observations BIGINT, events BIGINT, event_versions BIGINT, pods BIGINT, nodes BIGINT, runs BIGINT
SELECT
    (SELECT count(*) FROM observations) AS observations,
    (SELECT count(*) FROM events) AS events,
    (SELECT count(*) FROM event_versions) AS event_versions,
    (SELECT count(DISTINCT namespace || '/' || name) FROM pod_versions) AS pods,
    (SELECT count(DISTINCT name) FROM node_versions) AS nodes,
    (SELECT count(*) FROM ingest_runs) AS runs;
