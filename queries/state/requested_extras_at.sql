-- name: requested_extras_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(1795928400000000);
-- purpose: The pod versions stored at an instant (the `pod_versions_at`
--   macro's) that the requested-amount checkpoints (schema v8) leave to the
--   reader: every version observed after the instant (estimated: the first
--   version of a pod created at or before it), and the versions observed at
--   or before it that the model cannot read (`model_error`) or that request
--   resources other than cpu and memory (`requests_other`, counted toward a
--   node). Each part is a plain range or null test on one table, so that
--   DuckDB prunes row groups (one query per instant): the versions observed
--   after the instant are read from the hour after it, plus those flagged
--   `first_seen_late` (a first version observed after the instant's hour
--   and created at or before the instant was observed over an hour after
--   its creation: the flag's contract, queries/schema/v14.sql).
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, usage_node VARCHAR, requests_cpu BIGINT (millicores),
--   requests_memory BIGINT (bytes), requests_other VARCHAR (JSON object), model_error VARCHAR,
--   unreadable VARCHAR ("Pod namespace/name: why", as `pods_summary_at`; NULL when readable),
--   scheduled_after BOOLEAN (PodScheduled turned True after the instant), estimated BOOLEAN
WITH v AS (
    -- Estimated, first observed within the hour after the instant: the common case.
    SELECT namespace, name, usage_node, requests_cpu, requests_memory, requests_other, model_error, scheduled_at, true AS estimated FROM pod_versions
    WHERE first_version AND observed_at > make_timestamp($1) AND observed_at <= make_timestamp($1) + INTERVAL 1 HOUR
      AND (created_at <= make_timestamp($1) OR created_at IS NULL)
    UNION ALL
    -- Estimated, first observed later: more than an hour after creation (or
    -- without a creationTimestamp), so `first_seen_late` (schema v14), which
    -- few row groups hold.
    SELECT namespace, name, usage_node, requests_cpu, requests_memory, requests_other, model_error, scheduled_at, true FROM pod_versions
    WHERE first_seen_late AND first_version AND observed_at > make_timestamp($1) + INTERVAL 1 HOUR
      AND (created_at <= make_timestamp($1) OR created_at IS NULL)
    UNION ALL
    SELECT namespace, name, usage_node, requests_cpu, requests_memory, requests_other, model_error, scheduled_at, false FROM pod_versions
    WHERE model_error IS NOT NULL
      AND observed_at <= make_timestamp($1) AND valid_until > make_timestamp($1) AND change <> 'DELETED'
      AND (created_at IS NULL OR created_at <= make_timestamp($1))
    UNION ALL
    SELECT namespace, name, usage_node, requests_cpu, requests_memory, requests_other, model_error, scheduled_at, false FROM pod_versions
    WHERE requests_other IS NOT NULL AND model_error IS NULL AND usage_node IS NOT NULL
      AND observed_at <= make_timestamp($1) AND valid_until > make_timestamp($1) AND change <> 'DELETED'
      AND (created_at IS NULL OR created_at <= make_timestamp($1))
)
SELECT namespace, name, usage_node, requests_cpu, requests_memory, requests_other, model_error,
       CASE WHEN model_error IS NOT NULL THEN
           'Pod ' || namespace || '/' || name || ': ' ||
           CASE WHEN starts_with(model_error, 'pod ' || namespace || '/' || name || ': ')
                THEN model_error[length('pod ' || namespace || '/' || name || ': ') + 1:]
                ELSE model_error END
       END AS unreadable,
       COALESCE(scheduled_at > make_timestamp($1), false) AS scheduled_after,
       estimated
FROM v
ORDER BY namespace, name, estimated;
