-- name: last_version
-- purpose: The newest stored version of one object, the last in the version
--   order (observed_at, then resourceVersion as an integer, then obs_id; as
--   `derive_pod_intervals`), not the last ingested: the last state a
--   recorder knows of an object that vanished while it was not watching
--   (deleted during a watch gap), recorded again as DELETED.
-- params: $1 api_version VARCHAR, $2 kind VARCHAR, $3 namespace VARCHAR, $4 name VARCHAR
-- columns: object VARCHAR (JSON text)
SELECT object::VARCHAR AS object
FROM observations
WHERE api_version = $1 AND kind = $2 AND namespace = $3 AND name = $4
ORDER BY observed_at DESC, TRY_CAST(resource_version AS HUGEINT) DESC NULLS LAST, obs_id DESC
LIMIT 1;
