-- name: usage_windows
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: The committed Prometheus query windows of measured usage, newest
--   first, with the run that committed each (see `kdrift ingest prometheus
--   --resume`).
-- params: none
-- columns: pull_key VARCHAR, window_start TIMESTAMP, window_end TIMESTAMP, run_id BIGINT,
--   samples_read BIGINT, committed_at TIMESTAMP
SELECT pull_key, window_start, window_end, run_id, samples_read, committed_at
FROM usage_windows
ORDER BY window_end DESC, pull_key;
