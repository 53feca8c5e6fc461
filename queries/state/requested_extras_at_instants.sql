-- name: requested_extras_at_instants
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('1795928400000000,1795930000000000');
-- purpose: `requested_extras_at` at several instants in one query (as
--   `requested_at_instants` for `requested_since_checkpoint`): per instant,
--   the same four parts, each a range join of the instants to one filtered
--   scan of `pod_versions` (the first versions observed within the hour
--   after the instant; those flagged `first_seen_late` observed later; the
--   versions holding at the instant that the model cannot read or that
--   request other resources). Same rows per instant as `requested_extras_at`.
-- params: $1 instants VARCHAR (comma-separated UTC microseconds; `kdrift query` also takes RFC 3339 times)
-- columns: at_us BIGINT (UTC microseconds), namespace VARCHAR, name VARCHAR, usage_node VARCHAR,
--   requests_cpu BIGINT (millicores), requests_memory BIGINT (bytes), requests_other VARCHAR (JSON object),
--   model_error VARCHAR, unreadable VARCHAR ("Pod namespace/name: why", as `pods_summary_at`; NULL when readable),
--   scheduled_after BOOLEAN (PodScheduled turned True after the instant), estimated BOOLEAN
WITH i AS (
    SELECT DISTINCT CAST(trim(s) AS BIGINT) AS at_us, make_timestamp(CAST(trim(s) AS BIGINT)) AS at_ts
    FROM (SELECT unnest(string_split($1, ',')) AS s)
    WHERE trim(s) <> ''
),
v AS (
    -- Estimated, first observed within the hour after the instant: the common case.
    SELECT i.at_us, i.at_ts, p.namespace, p.name, p.usage_node, p.requests_cpu, p.requests_memory, p.requests_other,
           p.model_error, p.scheduled_at, true AS estimated
    FROM i JOIN pod_versions p ON p.observed_at > i.at_ts AND p.observed_at <= i.at_ts + INTERVAL 1 HOUR
    WHERE p.first_version AND (p.created_at <= i.at_ts OR p.created_at IS NULL)
    UNION ALL
    -- Estimated, first observed later: `first_seen_late` (schema v14), which few row groups hold.
    SELECT i.at_us, i.at_ts, p.namespace, p.name, p.usage_node, p.requests_cpu, p.requests_memory, p.requests_other,
           p.model_error, p.scheduled_at, true
    FROM i JOIN pod_versions p ON p.observed_at > i.at_ts + INTERVAL 1 HOUR
    WHERE p.first_seen_late AND p.first_version AND (p.created_at <= i.at_ts OR p.created_at IS NULL)
    UNION ALL
    SELECT i.at_us, i.at_ts, p.namespace, p.name, p.usage_node, p.requests_cpu, p.requests_memory, p.requests_other,
           p.model_error, p.scheduled_at, false
    FROM i JOIN pod_versions p ON p.observed_at <= i.at_ts AND p.valid_until > i.at_ts
    WHERE p.model_error IS NOT NULL AND p.change <> 'DELETED' AND (p.created_at IS NULL OR p.created_at <= i.at_ts)
    UNION ALL
    SELECT i.at_us, i.at_ts, p.namespace, p.name, p.usage_node, p.requests_cpu, p.requests_memory, p.requests_other,
           p.model_error, p.scheduled_at, false
    FROM i JOIN pod_versions p ON p.observed_at <= i.at_ts AND p.valid_until > i.at_ts
    WHERE p.requests_other IS NOT NULL AND p.model_error IS NULL AND p.usage_node IS NOT NULL
      AND p.change <> 'DELETED' AND (p.created_at IS NULL OR p.created_at <= i.at_ts)
)
SELECT at_us, namespace, name, usage_node, requests_cpu, requests_memory, requests_other, model_error,
       CASE WHEN model_error IS NOT NULL THEN
           'Pod ' || namespace || '/' || name || ': ' ||
           CASE WHEN starts_with(model_error, 'pod ' || namespace || '/' || name || ': ')
                THEN model_error[length('pod ' || namespace || '/' || name || ': ') + 1:]
                ELSE model_error END
       END AS unreadable,
       COALESCE(scheduled_at > at_ts, false) AS scheduled_after,
       estimated
FROM v
ORDER BY at_us, namespace, name, estimated;
