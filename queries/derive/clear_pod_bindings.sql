-- name: clear_pod_bindings
-- purpose: Removes the `pod_bindings` rows of the pods one committed batch
--   names (`batch_pods`; every row when $1 is negative), before
--   `derive_pod_bindings` writes them again.
-- params: $1 run_id BIGINT (negative: every pod), $2 after_obs_id BIGINT (only pods named after it)
-- columns: none (deletes)
DELETE FROM pod_bindings
WHERE $1 < 0 OR (namespace, name) IN (SELECT namespace, name FROM batch_pods($1, $2));
