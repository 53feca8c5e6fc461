-- name: clear_staging
-- purpose: Empties the bulk-load staging table (left over by a crash, or before a run).
-- params: none
-- columns: none
DELETE FROM staging_observations;
