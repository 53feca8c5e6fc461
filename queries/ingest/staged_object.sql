-- name: staged_object
-- purpose: Where one staged object came from and what it is, without its
--   JSON: the input error of an object DuckDB could not store alone under
--   the memory limit names it (issue 34).
-- params: $1 seq BIGINT
-- columns: location VARCHAR, line BIGINT (1-based, NULL when unknown), item BIGINT (0-based, NULL),
--   kind VARCHAR, namespace VARCHAR, name VARCHAR, bytes BIGINT (the object's compact JSON)
SELECT location, line, item, kind, namespace, name, bytes
FROM staging_observations
WHERE seq = $1;
