-- name: derive_pod_first_seen_late
-- purpose: Sets `first_seen_late` (schema v14) of the pod versions one
--   committed batch added (every stored version when $1 is negative:
--   migration 14): true when the version is its pod's first version
--   (`first_version`, so this runs right after `derive_pod_intervals`, in
--   the same transaction) and was observed more than an hour after the
--   pod's creationTimestamp, or the pod has none. Versions of earlier
--   batches keep theirs: a version never gains `first_version` later, and
--   one that loses it may keep a true flag, which readers allow for (they
--   test `first_version` too). Query `requested_extras_at` relies on it.
-- params: $1 run_id BIGINT (negative: every run), $2 after_obs_id BIGINT (only versions after it)
-- columns: none (updates)
UPDATE pod_versions
-- The hour is taken from observed_at, never added to created_at: a
-- creationTimestamp can be DuckDB's latest timestamp, an hour before which
-- there is room, and none after (observed_at is chrono's, far inside it).
SET first_seen_late = first_version AND (created_at IS NULL OR observed_at - INTERVAL 1 HOUR > created_at)
WHERE obs_id > $2 AND ($1 < 0 OR run_id = $1);
