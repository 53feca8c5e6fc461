-- name: temp_directory
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Where DuckDB spills what does not fit under the memory limit
--   for this open store (issue 39): `<store>.tmp` beside the store file.
--   Not a `kdrift query` (no `-- access: read`): the path is the process's
--   own, read by `Reader::memory_settings`.
-- params: none
-- columns: temp_directory VARCHAR
SELECT current_setting('temp_directory') AS temp_directory;
