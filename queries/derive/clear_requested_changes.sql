-- name: clear_requested_changes
-- purpose: Removes the `requested_changes` rows a committed batch can change
--   (at or after `requested_changed_since`, or the earliest start of a batch's pod that
--   took another uid's namespace/name (it ends that uid's versions); every row when $1 is negative;
--   none when the batch has no pod version), before
--   `derive_requested_changes` writes them again.
-- params: $1 run_id BIGINT (negative: every pod version), $2 after_obs_id BIGINT (only versions stored after it)
-- columns: none (deletes)
DELETE FROM requested_changes WHERE changed_at >= least(requested_changed_since($1, $2), (
    -- A pod that takes the namespace/name of another uid ends that uid's
    -- interval at its start (`derive_pod_intervals`), which can be earlier
    -- than its observed_at: the earliest such start in the batch.
    SELECT min(least(b.observed_at, COALESCE(b.created_at, b.observed_at))) FROM pod_versions b
    WHERE b.run_id = $1 AND b.obs_id > $2 AND b.uid IS NOT NULL AND b.uid <> ''
      AND EXISTS (SELECT 1 FROM pod_versions a WHERE a.namespace = b.namespace AND a.name = b.name
                  AND a.uid IS NOT NULL AND a.uid <> '' AND a.uid <> b.uid)));
