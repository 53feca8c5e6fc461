-- name: name_index_unsorted
-- purpose: How many `name_index` rows batches appended since its last whole
--   sort, and how many that sort left in order.
-- params: none
-- columns: unsorted BIGINT, sorted BIGINT
SELECT (SELECT count(*) FROM name_index) - (SELECT max(sorted_rows) FROM name_index_sorted) AS unsorted,
       (SELECT max(sorted_rows) FROM name_index_sorted) AS sorted;
