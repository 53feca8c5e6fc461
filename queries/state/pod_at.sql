-- name: pod_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q', epoch_us(TIMESTAMP '2026-11-28 05:00:00'), '');
-- purpose: One pod's version at an instant: the latest observed at or before
--   it, else the earliest after it (estimated); of versions observed at the
--   same instant, the last in the version order (resourceVersion as an
--   integer, then obs_id; as `derive_pod_intervals`, so the version `pods_at`
--   picks). Deleted versions included. With a uid, only that pod's versions
--   (and versions without a uid, taken only when it has none): a name reused
--   by a StatefulSet or a re-created Job names several pods, and the pod
--   explained is one of them. (A version stored without a namespace is
--   `default`'s: `derive_pod_versions`.)
-- params: $1 namespace VARCHAR, $2 name VARCHAR, $3 at_us BIGINT (UTC microseconds),
--   $4 uid VARCHAR ('' = whichever pod had the name)
-- columns: uid VARCHAR, change VARCHAR, node_name VARCHAR, observed_at TIMESTAMP, estimated BOOLEAN,
--   deleted_at TIMESTAMP, object JSON
SELECT COALESCE(p.uid, '') AS uid, p.change, p.node_name, p.observed_at,
       (p.observed_at > make_timestamp($3)) AS estimated, p.deleted_at, o.object
FROM pod_versions p
JOIN observations o ON o.obs_id = p.obs_id
WHERE p.name = $2 AND p.namespace = $1
  AND ($4 = '' OR COALESCE(p.uid, '') IN ($4, ''))
  -- Only skips row groups (the name index, schema v11): the conditions above decide.
  AND p.obs_id BETWEEN first_obs_naming($1, $2) AND last_obs_naming($1, $2)
ORDER BY ($4 <> '' AND COALESCE(p.uid, '') = $4) DESC,
         (p.observed_at <= make_timestamp($3)) DESC,
         CASE WHEN p.observed_at <= make_timestamp($3) THEN epoch_us(p.observed_at) ELSE -epoch_us(p.observed_at) END DESC,
         TRY_CAST(p.resource_version AS HUGEINT) DESC NULLS LAST, p.obs_id DESC
LIMIT 1;
