-- name: time_span
-- access: read
-- cli: runs in the duckdb shell on the store file as it is.
-- purpose: The first and the last instant the store knows about: object
--   versions' observation times and events' first and last times. The
--   default time range of `kdrift report`. NULLs when the store is empty.
-- params: none
-- columns: first_at TIMESTAMP, last_at TIMESTAMP
WITH instants AS (
    SELECT observed_at AS instant FROM observations
    UNION ALL
    SELECT first_time FROM event_versions WHERE first_time IS NOT NULL
    UNION ALL
    SELECT last_time FROM event_versions WHERE last_time IS NOT NULL
)
SELECT min(instant) AS first_at, max(instant) AS last_at
FROM instants;
