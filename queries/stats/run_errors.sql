-- name: run_errors
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(1);
-- purpose: The errors one ingest run recorded (query `runs` gives the run
--   ids), in the order recorded: input records that could not be stored
--   (file, line, column, List item), the error that stopped the run, or the
--   note that the run was closed as abandoned because its process ended
--   without closing it (killed).
-- params: $1 run_id BIGINT
-- columns: location VARCHAR, line BIGINT, column_no BIGINT, item BIGINT, message VARCHAR
SELECT location, line, column_no, item, message
FROM ingest_errors
WHERE run_id = $1
ORDER BY rowid;
