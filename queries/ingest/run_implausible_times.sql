-- name: run_implausible_times
-- purpose: The object versions and events one run stored with a time
--   outside [$2, $3] (before 1970, or more than a day after the ingest):
--   how many, and the earliest stored of them as an example. They are kept
--   (they are what the input said) and `kdrift ingest file` warns; the
--   analyses never take them as "now" or as a report's range
--   (`latest_observation_plausible`, `time_span_plausible`).
-- params: $1 run_id BIGINT, $2 lower_us BIGINT (UTC microseconds), $3 upper_us BIGINT (UTC microseconds)
-- columns: versions BIGINT, kind VARCHAR, namespace VARCHAR, name VARCHAR, odd_at TIMESTAMP
WITH odd AS (
    SELECT o.obs_id, o.kind, o.namespace, o.name,
           CASE WHEN o.observed_at NOT BETWEEN make_timestamp($2) AND make_timestamp($3) THEN o.observed_at
                WHEN e.first_time NOT BETWEEN make_timestamp($2) AND make_timestamp($3) THEN e.first_time
                ELSE e.last_time END AS odd_at
    FROM observations o
    LEFT JOIN event_versions e ON e.obs_id = o.obs_id
    WHERE o.run_id = $1
      AND (o.observed_at NOT BETWEEN make_timestamp($2) AND make_timestamp($3)
           OR e.first_time NOT BETWEEN make_timestamp($2) AND make_timestamp($3)
           OR e.last_time NOT BETWEEN make_timestamp($2) AND make_timestamp($3))
)
SELECT count(*) AS versions, arg_min(kind, obs_id) AS kind, arg_min(namespace, obs_id) AS namespace,
       arg_min(name, obs_id) AS name, arg_min(odd_at, obs_id) AS odd_at
FROM odd
HAVING count(*) > 0;
