-- name: table_count
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: How many tables the database has (a non-empty database without kdrift_meta is not ours);
--   this connection's TEMP tables (the ingest staging table) are not the file's.
-- params: none
-- columns: n BIGINT
SELECT count(*) AS n FROM duckdb_tables() WHERE NOT temporary;
