-- name: pods_summary_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('1795928400000000');
-- purpose: Per instant, what `requested_by_node` does not say about the pods
--   stored at it (the `pod_versions_at` macro): how many there are, how many
--   were observed after the instant (estimated), and the pods the cluster
--   model cannot read ("Pod namespace/name: why", left out of the amounts;
--   the model's own `pod namespace/name: ` prefix is not repeated).
--   An instant with no pod has no row. The unreadable list is read by a
--   subquery over the few pods with a model error: built inside the
--   aggregate it cost a string per stored pod (28 of 44 ms at 150,000 pods).
--   The analyses read the estimated count and the unreadable pods from
--   `requested_extras_at` (schema v8, one instant at a time); this query
--   computes them directly from the version intervals, for `kdrift query`.
-- params: $1 instants VARCHAR (comma-separated UTC microseconds; `kdrift query` also takes RFC 3339 times)
-- columns: at_us BIGINT, pods BIGINT, estimated BIGINT, unreadable VARCHAR[]
WITH v AS (SELECT * FROM pod_versions_at($1))
SELECT at_us,
       count(*) AS pods,
       count(*) FILTER (WHERE estimated) AS estimated,
       COALESCE((SELECT list('Pod ' || u.namespace || '/' || u.name || ': ' ||
                             CASE WHEN starts_with(u.model_error, 'pod ' || u.namespace || '/' || u.name || ': ')
                                  THEN u.model_error[length('pod ' || u.namespace || '/' || u.name || ': ') + 1:]
                                  ELSE u.model_error END
                             ORDER BY u.namespace, u.name)
                 FROM v u
                 WHERE u.model_error IS NOT NULL AND u.at_us = v.at_us), []) AS unreadable
FROM v
GROUP BY at_us
ORDER BY at_us;
