-- name: duckdb_version
-- access: read
-- cli: runs as it is in the duckdb shell (no parameters)
-- purpose: The version of the DuckDB library kdrift is built with
--   (`kdrift version`): its release and source id, e.g. v2.0.0 d54cbbe3df.
-- params: none
-- columns: library_version VARCHAR, source_id VARCHAR
SELECT library_version, source_id FROM pragma_version();
