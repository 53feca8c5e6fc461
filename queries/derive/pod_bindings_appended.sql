-- name: pod_bindings_appended
-- purpose: Counts the `pod_bindings` rows one committed batch appended
--   (after `derive_pod_bindings`, in its transaction), out of the node
--   order the last whole sort left (schema v12).
-- params: $1 rows BIGINT
-- columns: none (updates)
UPDATE pod_bindings_sorted SET appended_rows = appended_rows + $1;
