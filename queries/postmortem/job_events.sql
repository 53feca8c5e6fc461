-- name: job_events
-- access: read
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
FROM events
WHERE involved_namespace = $1
  AND ((involved_kind = 'Job' AND involved_name = $2)
       OR (involved_kind = 'CronJob' AND (message = 'Created job ' || $2
                                          OR message LIKE 'Saw completed job: ' || $2 || ',%')))
ORDER BY occurred_at, kind, reason, message;
