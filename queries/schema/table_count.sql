-- name: table_count
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: How many tables, views and sequences the database file holds (a non-empty database
--   without kdrift_meta is not ours); this connection's TEMP tables (the ingest staging table)
--   are not the file's, nor are DuckDB's own views.
-- params: none
-- columns: n BIGINT
SELECT (SELECT count(*) FROM duckdb_tables() WHERE NOT temporary)
     + (SELECT count(*) FROM duckdb_views() WHERE NOT internal AND NOT temporary)
     + (SELECT count(*) FROM duckdb_sequences() WHERE NOT temporary) AS n;
