-- name: clear_requested_checkpoints
-- purpose: Removes the `requested_checkpoints` rows a committed batch can
--   change (at or after `requested_changed_since`; every row when $1 is
--   negative), before `derive_requested_checkpoints` writes them again.
--   Runs before `clear_requested_checkpoint_times`.
-- params: $1 run_id BIGINT (negative: every pod version), $2 after_obs_id BIGINT (only versions stored after it)
-- columns: none (deletes)
DELETE FROM requested_checkpoints WHERE checkpoint_at >= requested_changed_since($1, $2);
