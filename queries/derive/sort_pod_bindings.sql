-- name: sort_pod_bindings
-- purpose: Rewrites `pod_bindings` in (node, bound_at) order (schema v12),
--   so that one node's bindings lie in one or two row groups again after
--   batches rewrote the rows of the pods they name at the end, and records
--   how many rows are now in order. Run by `Store::sort_pod_bindings` after
--   an ingest.
-- params: none
-- columns: none (DDL)
CREATE OR REPLACE TABLE pod_bindings AS
SELECT DISTINCT * FROM pod_bindings ORDER BY node, bound_at, namespace, name, uid;
UPDATE pod_bindings_sorted SET sorted_rows = (SELECT count(*) FROM pod_bindings), appended_rows = 0;
