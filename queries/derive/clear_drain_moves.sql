-- name: clear_drain_moves
-- purpose: Empties `drain_moves`, `drain_episodes` (schema v12) and
--   `drain_moves_kept` before the moves are computed again
--   (`drains::keep_moves`, in the same transaction).
-- params: none
-- columns: none (deletes)
DELETE FROM drain_moves;
DELETE FROM drain_episodes;
DELETE FROM drain_moves_kept;
