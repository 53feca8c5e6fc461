-- name: update_schema_version
-- purpose: Records the schema version a migration brought the store to.
-- params: $1 version VARCHAR
-- columns: none
UPDATE kdrift_meta SET value = $1 WHERE key = 'schema_version';
