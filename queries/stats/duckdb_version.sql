-- name: duckdb_version
-- cli: runs as it is in the duckdb shell (no parameters)
-- purpose: The version of the DuckDB library kdrift is built with
--   (`kdrift version`): its release and source id, e.g. v2.0.0 d54cbbe3df.
--   Not a `kdrift query` (no `-- access: read`): it asks the library, not
--   the store, and an in-memory database answers it.
-- params: none
-- columns: library_version VARCHAR, source_id VARCHAR
SELECT library_version, source_id FROM pragma_version();
