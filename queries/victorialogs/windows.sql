-- name: vl_windows
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: The committed VictoriaLogs query windows, newest first, with the
--   run that committed each (see `kdrift ingest victorialogs --resume`).
-- params: none
-- columns: pull_key VARCHAR, window_start TIMESTAMP, window_end TIMESTAMP, run_id BIGINT,
--   rows_read BIGINT, committed_at TIMESTAMP
SELECT pull_key, window_start, window_end, run_id, rows_read, committed_at
FROM vl_windows
ORDER BY window_end DESC, pull_key;
