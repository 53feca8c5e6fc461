-- name: known_objects
-- purpose: The objects of one resource the Kubernetes API sources (`kdrift
--   ingest api`, `kdrift record`: runs with source_kind 'api') last saw
--   alive (their newest version from those runs, in the version order:
--   observed_at, then resourceVersion as an integer, then obs_id; as
--   `derive_pod_intervals`), with their resourceVersion: what a (re)started
--   recorder already has. Its first list skips these when unchanged and
--   records as DELETED those no longer listed.
-- params: $1 api_version VARCHAR, $2 kind VARCHAR, $3 namespace VARCHAR ('' = every namespace)
-- columns: namespace VARCHAR, name VARCHAR, resource_version VARCHAR, uid VARCHAR
SELECT namespace, name, COALESCE(resource_version, '') AS resource_version, COALESCE(uid, '') AS uid
FROM (
    SELECT o.namespace, o.name, o.resource_version, o.uid, o.change
    FROM observations o
    JOIN ingest_runs r ON r.run_id = o.run_id
    WHERE r.source_kind = 'api' AND o.api_version = $1 AND o.kind = $2 AND ($3 = '' OR o.namespace = $3)
    QUALIFY row_number() OVER (PARTITION BY o.namespace, o.name
        ORDER BY o.observed_at DESC, TRY_CAST(o.resource_version AS HUGEINT) DESC NULLS LAST, o.obs_id DESC) = 1
) AS latest
WHERE change <> 'DELETED'
ORDER BY namespace, name;
