-- name: pods_at_count
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: How many rows `pods_at` gives at an instant (the same versions,
--   without reading their models): what `ClusterAt::load` sizes its lists
--   with before it streams them, so that 150,000 pod models are read into
--   memory allocated once, never copied into a list twice as large as it
--   grows (kdrift issue 39: the copies were a quarter of the load's time).
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: pods BIGINT
SELECT (SELECT count(*)
        FROM pod_versions p
        WHERE p.observed_at <= make_timestamp($1) AND p.valid_until > make_timestamp($1)
          AND p.change <> 'DELETED'
          AND (p.created_at IS NULL OR p.created_at <= make_timestamp($1)))
     + (SELECT count(*)
        FROM pod_versions p
        WHERE p.first_version AND p.observed_at > make_timestamp($1)
          AND (p.created_at IS NULL OR p.created_at <= make_timestamp($1))) AS pods;
