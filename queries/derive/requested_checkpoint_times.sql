-- name: derive_requested_checkpoint_times
-- purpose: Writes the `requested_checkpoint_times` after the latest one left:
--   every `hour_after` of a later change (the hours
--   `derive_requested_checkpoints` just wrote, also those where no node has
--   anything counted). Nothing when the batch has no pod version.
-- params: $1 run_id BIGINT (negative: every pod version), $2 after_obs_id BIGINT (only versions stored after it)
-- columns: none (inserts)
INSERT INTO requested_checkpoint_times
WITH since AS (SELECT requested_changed_since($1, $2) AS from_at),
latest AS (SELECT max(checkpoint_at) AS checkpoint_at FROM requested_checkpoint_times)
SELECT DISTINCT hour_after(c.changed_at) AS hour
FROM requested_changes c, latest, since
WHERE since.from_at IS NOT NULL AND (latest.checkpoint_at IS NULL OR c.changed_at > latest.checkpoint_at)
ORDER BY hour;
