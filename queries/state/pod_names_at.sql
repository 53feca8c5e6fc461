-- name: pod_names_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: The namespace and name of every pod stored at an instant, readable
--   or not (the versions `pods_at` picks), without their models: what tells a
--   pod known only from events (one the store has no version of) from a
--   stored one, when events show bindings the store may lack.
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR
SELECT p.namespace, p.name
FROM pod_versions p
WHERE p.observed_at <= make_timestamp($1) AND p.valid_until > make_timestamp($1)
  AND p.change <> 'DELETED'
  AND (p.created_at IS NULL OR p.created_at <= make_timestamp($1))
UNION ALL
SELECT p.namespace, p.name
FROM pod_versions p
WHERE p.first_version AND p.observed_at > make_timestamp($1)
  AND (p.created_at IS NULL OR p.created_at <= make_timestamp($1));
