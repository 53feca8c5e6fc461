-- name: time_span_plausible
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(now()::TIMESTAMP + INTERVAL 1 DAY));
-- purpose: `time_span` without the instants outside [$1, $2]: an event
--   dated 9999-12-31 (or before 1970) is kept in the store and flagged when
--   it is ingested, but never defines "now" or a report's range (kdrift
--   issue 34). Asked only when `time_span`'s answer falls outside those
--   bounds, since it scans the columns (time_span reads their statistics).
-- params: $1 lower_us BIGINT (UTC microseconds), $2 upper_us BIGINT (UTC microseconds)
-- columns: first_at TIMESTAMP, last_at TIMESTAMP
SELECT least((SELECT min(observed_at) FROM observations
              WHERE observed_at BETWEEN make_timestamp($1) AND make_timestamp($2)),
             (SELECT min(first_time) FROM event_versions
              WHERE first_time BETWEEN make_timestamp($1) AND make_timestamp($2)),
             (SELECT min(last_time) FROM event_versions
              WHERE last_time BETWEEN make_timestamp($1) AND make_timestamp($2))) AS first_at,
       greatest((SELECT max(observed_at) FROM observations
                 WHERE observed_at BETWEEN make_timestamp($1) AND make_timestamp($2)),
                (SELECT max(first_time) FROM event_versions
                 WHERE first_time BETWEEN make_timestamp($1) AND make_timestamp($2)),
                (SELECT max(last_time) FROM event_versions
                 WHERE last_time BETWEEN make_timestamp($1) AND make_timestamp($2))) AS last_at;
