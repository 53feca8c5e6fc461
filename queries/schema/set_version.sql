-- name: set_schema_version
-- purpose: Records the schema version of a new store.
-- params: $1 version VARCHAR
-- columns: none
INSERT INTO kdrift_meta VALUES ('schema_version', $1);
