-- name: time_span
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file as it is.
-- purpose: The first and the last instant the store knows about: object
--   versions' observation times and events' first and last times. The
--   default time range of `kdrift report`. NULLs when the store is empty.
--   Each column's min and max on its own: DuckDB answers those from the
--   column statistics without a scan (a UNION of the columns scanned every
--   row: 12 ms at 1M events, growing with the store; `kdrift skew --at`
--   asks it on every call).
-- params: none
-- columns: first_at TIMESTAMP, last_at TIMESTAMP
SELECT least((SELECT min(observed_at) FROM observations),
             (SELECT min(first_time) FROM event_versions),
             (SELECT min(last_time) FROM event_versions)) AS first_at,
       greatest((SELECT max(observed_at) FROM observations),
                (SELECT max(first_time) FROM event_versions),
                (SELECT max(last_time) FROM event_versions)) AS last_at;
