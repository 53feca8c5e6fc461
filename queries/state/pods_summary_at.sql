-- name: pods_summary_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('1795928400000000');
-- purpose: Per instant, what `requested_by_node` does not say about the pods
--   stored at it (the `pod_versions_at` macro): how many there are, how many
--   were observed after the instant (estimated), and the pods the cluster
--   model cannot read ("Pod namespace/name: why", left out of the amounts;
--   the model's own `pod namespace/name: ` prefix is not repeated).
--   An instant with no pod has no row.
-- params: $1 instants VARCHAR (comma-separated UTC microseconds; `kdrift query` also takes RFC 3339 times)
-- columns: at_us BIGINT, pods BIGINT, estimated BIGINT, unreadable VARCHAR[]
SELECT at_us,
       count(*) AS pods,
       count(*) FILTER (WHERE estimated) AS estimated,
       COALESCE(list('Pod ' || namespace || '/' || name || ': ' ||
                     CASE WHEN starts_with(model_error, 'pod ' || namespace || '/' || name || ': ')
                          THEN model_error[length('pod ' || namespace || '/' || name || ': ') + 1:]
                          ELSE model_error END
                     ORDER BY namespace, name)
                  FILTER (WHERE model_error IS NOT NULL), []) AS unreadable
FROM pod_versions_at($1)
GROUP BY at_us
ORDER BY at_us;
