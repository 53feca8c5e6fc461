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
--   A namespace/name is held by one pod at a time (a StatefulSet recreates
--   `db-0` under a new uid, on the node it left when pinned there): the
--   newest version of a uid ends, instead of at 'infinity', when the next
--   uid of its namespace/name (by start: creationTimestamp, else its first
--   observed_at) starts, and never before its own observed_at. Versions
--   without a uid are left out of that rule (a manifest and a dump of one pod).
--   So every uid of a namespace/name that has a version in the batch is
--   recomputed, also those of earlier batches.
-- params: $1 run_id BIGINT (negative: every pod), $2 after_obs_id BIGINT (only names seen after it; 0 for all)
-- columns: none (updates)
UPDATE pod_versions
SET valid_until = n.next_at, first_version = n.first
FROM (
    SELECT obs_id,
           CASE WHEN lead_at IS NOT NULL THEN lead_at
                WHEN next_uid_at IS NOT NULL THEN greatest(observed_at, next_uid_at)
                ELSE 'infinity'::TIMESTAMP END AS next_at,
           observed_at = min(observed_at) OVER (PARTITION BY namespace, name, COALESCE(uid, ''))
             AND (lead_at IS NULL OR lead_at > observed_at) AS first
    FROM (
        SELECT v.obs_id, v.namespace, v.name, v.uid, v.observed_at,
               lead(v.observed_at) OVER (PARTITION BY v.namespace, v.name, COALESCE(v.uid, '')
                   ORDER BY v.observed_at, TRY_CAST(v.resource_version AS HUGEINT) NULLS FIRST, v.obs_id) AS lead_at,
               s.next_uid_at
        FROM pod_versions v
        LEFT JOIN (
            -- Each uid's start, and the start of the next uid of its namespace/name.
            SELECT namespace, name, uid,
                   lead(start_at) OVER (PARTITION BY namespace, name ORDER BY start_at, uid) AS next_uid_at
            FROM (
                SELECT namespace, name, uid, COALESCE(min(created_at), min(observed_at)) AS start_at
                FROM pod_versions
                WHERE uid IS NOT NULL AND uid <> ''
                  AND ($1 < 0 OR (namespace, name) IN (
                      SELECT namespace, name FROM pod_versions WHERE run_id = $1 AND obs_id > $2))
                GROUP BY namespace, name, uid
            )
        ) AS s ON s.namespace = v.namespace AND s.name = v.name AND s.uid = v.uid
        WHERE $1 < 0 OR (v.namespace, v.name) IN (
            SELECT namespace, name FROM pod_versions WHERE run_id = $1 AND obs_id > $2)
    )
) AS n
WHERE pod_versions.obs_id = n.obs_id
  AND (pod_versions.valid_until IS DISTINCT FROM n.next_at OR pod_versions.first_version IS DISTINCT FROM n.first);
