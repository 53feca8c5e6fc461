-- name: rebalance_latest_runs
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: kdrift's own rebalance runs (the RebalanceRun records `kdrift
--   rebalance apply` and `kdrift rebalance run` append): the newest run of
--   each outcome (Succeeded, Stopped, Refused), newest first. `kdrift check`
--   reads the newest Succeeded one (the dead-man check of the nightly run).
-- params: none
-- columns: outcome VARCHAR, name VARCHAR, started_at TIMESTAMP, finished_at TIMESTAMP,
--   planned BIGINT, evicted BIGINT, blocked BIGINT, skipped BIGINT, failed BIGINT
SELECT outcome, name, started_at, finished_at, planned, evicted, blocked, skipped, failed
FROM (
    SELECT
        object->>'$.status.outcome' AS outcome,
        name,
        k8s_time(object->>'$.status.startedAt') AS started_at,
        k8s_time(object->>'$.status.finishedAt') AS finished_at,
        TRY_CAST(object->>'$.status.planned' AS BIGINT) AS planned,
        TRY_CAST(object->>'$.status.evicted' AS BIGINT) AS evicted,
        TRY_CAST(object->>'$.status.blocked' AS BIGINT) AS blocked,
        TRY_CAST(object->>'$.status.skipped' AS BIGINT) AS skipped,
        TRY_CAST(object->>'$.status.failed' AS BIGINT) AS failed
    FROM observations
    WHERE kind = 'RebalanceRun' AND api_version = 'kdrift.io/v1alpha1'
)
WHERE outcome IS NOT NULL AND finished_at IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY outcome ORDER BY finished_at DESC, name DESC) = 1
ORDER BY finished_at DESC, name DESC;
