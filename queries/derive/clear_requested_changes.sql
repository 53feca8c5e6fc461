-- name: clear_requested_changes
-- purpose: Removes the `requested_changes` rows a committed batch can change
--   (at or after `requested_changed_since`; every row when $1 is negative;
--   none when the batch has no pod version), before
--   `derive_requested_changes` writes them again.
-- params: $1 run_id BIGINT (negative: every pod version), $2 after_obs_id BIGINT (only versions stored after it)
-- columns: none (deletes)
DELETE FROM requested_changes WHERE changed_at >= requested_changed_since($1, $2);
