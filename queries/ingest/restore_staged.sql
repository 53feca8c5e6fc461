-- name: restore_staged
-- purpose: The last step of making the staging table anew with the rows
--   still staged (`keep_staged`): moves them back from `staging_kept`
--   into the staging table `create_staging` made again, and drops
--   `staging_kept`.
-- params: none
-- columns: none (DDL)
INSERT INTO staging_observations SELECT * FROM staging_kept;
DROP TABLE temp.staging_kept;
