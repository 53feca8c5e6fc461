-- name: get_schema_version
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: The store's schema version.
-- params: none
-- columns: value VARCHAR
SELECT value FROM kdrift_meta WHERE key = 'schema_version';
