-- name: clear_requested_checkpoint_times
-- purpose: Removes the `requested_checkpoint_times` a committed batch can
--   change (at or after `requested_changed_since`; every row when $1 is
--   negative), after `clear_requested_checkpoints`.
-- params: $1 run_id BIGINT (negative: every pod version), $2 after_obs_id BIGINT (only versions stored after it)
-- columns: none (deletes)
DELETE FROM requested_checkpoint_times WHERE checkpoint_at >= requested_changed_since($1, $2);
