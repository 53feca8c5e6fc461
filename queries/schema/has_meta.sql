-- name: has_meta
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Whether the database has kdrift's metadata table (is a kdrift store).
-- params: none
-- columns: n BIGINT (0 or 1)
SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'kdrift_meta';
