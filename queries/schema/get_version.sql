-- name: get_schema_version
-- access: read
-- purpose: The store's schema version.
-- params: none
-- columns: value VARCHAR
SELECT value FROM kdrift_meta WHERE key = 'schema_version';
