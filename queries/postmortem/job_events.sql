-- name: job_events
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640');
-- purpose: What the Job and CronJob controllers said about one Job, oldest
--   first: its own events (SuccessfulCreate, SuccessfulDelete, Completed,
--   DeadlineExceeded, BackoffLimitExceeded, ...) and the CronJob's events
--   that name it (Created job, SawCompletedJob).
-- params: $1 namespace VARCHAR, $2 job VARCHAR
-- columns: occurred_at TIMESTAMP, kind VARCHAR (Job | CronJob), type VARCHAR, reason VARCHAR,
--   message VARCHAR, count BIGINT
SELECT first_time AS occurred_at, involved_kind AS kind, COALESCE(type, '') AS type, reason,
       COALESCE(message, '') AS message, count
FROM (
    -- The `events` view's choice among these events' versions only (reason
    -- and involved object never change between versions; the view
    -- windows over every event version of the store first).
    SELECT * FROM event_versions WHERE involved_namespace = $1 AND involved_kind IN ('Job', 'CronJob')
          AND (involved_kind = 'CronJob' OR involved_name = $2)
    QUALIFY row_number() OVER (PARTITION BY event_key
        ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
)
WHERE involved_namespace = $1
  AND ((involved_kind = 'Job' AND involved_name = $2)
       OR (involved_kind = 'CronJob' AND (message = 'Created job ' || $2
                                          OR message LIKE 'Saw completed job: ' || $2 || ',%')))
ORDER BY occurred_at, kind, reason, message;
