-- name: sort_name_index
-- purpose: Rewrites `name_index` (schema v11) in (namespace, name, obs_id)
--   order, so that one name's entries lie in one or two row groups again
--   after batches appended theirs at the end, and records how many rows are
--   now in order. Run by `Store::sort_name_index` after an ingest.
-- params: none
-- columns: none (DDL)
CREATE OR REPLACE TABLE name_index AS
SELECT namespace, name, obs_id FROM name_index ORDER BY namespace, name, obs_id;
UPDATE name_index_sorted SET sorted_rows = (SELECT count(*) FROM name_index);
