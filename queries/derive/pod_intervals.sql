-- name: derive_pod_intervals
-- purpose: Sets `valid_until` and `first_version` of the versions of every pod
--   (namespace, name, uid) that has a version in one run (or in its latest
--   batch), or of every pod when $1 is negative (a migration). Versions are
--   in the version order, the order `pods_at` picks in and every query that
--   orders or picks versions uses (schema v7): by observed_at, then by
--   resourceVersion as an integer (an etcd revision: of two versions
--   observed at the same instant, as a watch file's or a dump's estimated
--   times often are, the apiserver wrote the higher one later; a
--   resourceVersion that is missing or not an integer sorts before those
--   that are), then by obs_id (ingest order, when nothing else tells). A
--   version holds from its observed_at until the next one's ('infinity' for
--   the newest: a plain range, which DuckDB pushes into its scans; empty for
--   all but the last of versions tied on observed_at); `first_version`
--   marks the last version, in that order, observed at the pod's earliest
--   time (the one an instant before every version gets, estimated).
--   Versions that arrive out of order (an older dump ingested later) reopen
--   the intervals of their pod.
-- params: $1 run_id BIGINT (negative: every pod), $2 after_obs_id BIGINT (only keys seen after it; 0 for all)
-- columns: none (updates)
UPDATE pod_versions
SET valid_until = n.next_at, first_version = n.first
FROM (
    SELECT obs_id, COALESCE(lead_at, 'infinity'::TIMESTAMP) AS next_at,
           observed_at = min(observed_at) OVER (PARTITION BY namespace, name, COALESCE(uid, ''))
             AND (lead_at IS NULL OR lead_at > observed_at) AS first
    FROM (
        SELECT obs_id, namespace, name, uid, observed_at,
               lead(observed_at) OVER (PARTITION BY namespace, name, COALESCE(uid, '')
                   ORDER BY observed_at, TRY_CAST(resource_version AS HUGEINT) NULLS FIRST, obs_id) AS lead_at
        FROM pod_versions
        WHERE $1 < 0 OR (namespace, name, COALESCE(uid, '')) IN (
            SELECT namespace, name, COALESCE(uid, '') FROM pod_versions WHERE run_id = $1 AND obs_id > $2)
    )
) AS n
WHERE pod_versions.obs_id = n.obs_id
  AND (pod_versions.valid_until IS DISTINCT FROM n.next_at OR pod_versions.first_version IS DISTINCT FROM n.first);
