-- name: checkpoint
-- purpose: Writes everything the WAL holds into the database file (a new
--   store is checkpointed before it is moved into place: its file alone
--   must hold the whole schema).
-- params: none
-- columns: none
CHECKPOINT;
