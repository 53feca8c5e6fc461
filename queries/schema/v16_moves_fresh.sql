-- name: schema_v16_moves_fresh
-- purpose: The drain moves kept under schema 15 stay fresh after a v15 →
--   v16 migration that changed no usage column (`schema_v16_usage_changed`):
--   the moves read nothing the new model fields add.
-- params: none
-- columns: none (updates)
UPDATE drain_moves_kept SET schema_version = 16 WHERE schema_version = 15;
