-- name: keep_staged
-- purpose: The first step of making the staging table anew with the rows
--   still staged (`restore_staged` is the last, `create_staging` between):
--   copies them into a TEMP table of their own, then drops the staging
--   table. A batch split in parts (an object too big for the memory limit
--   among good ones) deletes each part's rows once committed, and the
--   object's row once left out, but DuckDB keeps a deleted row's strings
--   in the table's blocks, counted against the memory limit
--   (`drop_staging`): one Event of 60 MiB left out under --memory-limit
--   64MiB held them, and every item after it in its List was refused as
--   "storing it alone" too (issue 34, break-it 40 F1). Run in one
--   transaction with the two others.
-- params: none
-- columns: none (DDL)
CREATE OR REPLACE TEMP TABLE staging_kept AS SELECT * FROM temp.staging_observations;
DROP TABLE temp.staging_observations;
