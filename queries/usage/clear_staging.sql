-- name: usage_clear_staging
-- purpose: Empties this connection's staging table of usage samples.
-- params: none
-- columns: none
DELETE FROM staging_usage;
