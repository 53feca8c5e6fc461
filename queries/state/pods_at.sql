-- name: pods_at
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: The pods that existed at an instant, each as its latest version
--   observed at or before it (else, for dumps observed later, its earliest
--   version: marked estimated). Pods deleted by then, or created after it, are left out,
--   and so are pods whose newest version ended at evidence that they were evicted or
--   stopped after it (a Descheduled, Evicted, Preempted, … event, a Killing with no
--   sign of life after it: `valid_until`, queries/derive/pod_intervals.sql, schema v18).
--   A range filter on the version intervals (`valid_until`, `first_version`,
--   schema v4), not a window over every version: the rule of the
--   `pod_versions_at` macro, written out for one instant so that the scan
--   filters the intervals first and reads `model` only for the rows kept.
--   Rows come in store order (DuckDB keeps insertion order), not sorted: ordering 150,000
--   rows that carry their model text was half of this query's time (kdrift issue 6);
--   `ClusterAt::load` sorts by (namespace, name) itself. Add `ORDER BY namespace, name` to read it by eye.
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR, node_name VARCHAR, observed_at TIMESTAMP,
--   estimated BOOLEAN (version observed after the instant), object VARCHAR (JSON text: the fields of the version the
--   cluster model reads: `pod_versions.model`, not the whole object)
SELECT p.namespace, p.name, COALESCE(p.uid, '') AS uid, p.node_name, p.observed_at, false AS estimated,
       p.model AS object
FROM pod_versions p
WHERE p.observed_at <= make_timestamp($1) AND p.valid_until > make_timestamp($1)
  AND p.change <> 'DELETED'
  AND (p.created_at IS NULL OR p.created_at <= make_timestamp($1))
UNION ALL
SELECT p.namespace, p.name, COALESCE(p.uid, '') AS uid, p.node_name, p.observed_at, true AS estimated,
       p.model AS object
FROM pod_versions p
WHERE p.first_version AND p.observed_at > make_timestamp($1)
  AND (p.created_at IS NULL OR p.created_at <= make_timestamp($1));
