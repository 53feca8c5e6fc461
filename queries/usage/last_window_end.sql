-- name: usage_last_window_end
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('<pull key>');
-- purpose: Where `kdrift ingest prometheus --resume` continues a pull: the
--   end of its last committed window (NULL when none was committed).
-- params: $1 pull_key VARCHAR
-- columns: window_end TIMESTAMP, window_end_us BIGINT (UTC microseconds)
SELECT max(window_end) AS window_end, epoch_us(max(window_end)) AS window_end_us
FROM usage_windows
WHERE pull_key = $1;
