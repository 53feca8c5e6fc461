-- name: pod_bindings_unsorted
-- purpose: How many `pod_bindings` rows batches appended since its last
--   whole sort, and how many that sort left in order (schema v12).
-- params: none
-- columns: unsorted BIGINT, sorted BIGINT
SELECT max(appended_rows) AS unsorted, max(sorted_rows) AS sorted FROM pod_bindings_sorted;
