-- name: run_sources
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Which kinds of source the store's runs came from (file, api, victorialogs, demo, kdrift).
-- params: none
-- columns: source_kind VARCHAR, runs BIGINT
SELECT source_kind, count(*) AS runs
FROM ingest_runs
GROUP BY source_kind
ORDER BY source_kind;
