-- name: clear_event_only_bindings
-- purpose: Removes the `event_only_bindings` rows of the pods one committed
--   batch names (every row when $1 is negative), before
--   `derive_event_only_bindings` writes them again: the pods named by a
--   Scheduled or SuccessfulCreate event or a bound Pod version of the batch.
-- params: $1 run_id BIGINT (negative: every pod), $2 after_obs_id BIGINT (only pods named after it)
-- columns: none (deletes)
DELETE FROM event_only_bindings
WHERE $1 < 0 OR (namespace, name) IN (
    SELECT involved_namespace, involved_name
    FROM event_versions
    WHERE run_id = $1 AND obs_id > $2 AND reason = 'Scheduled' AND involved_kind = 'Pod'
    UNION
    SELECT involved_namespace, regexp_extract(message, '^Created pod: (\S+)', 1)
    FROM event_versions
    WHERE run_id = $1 AND obs_id > $2 AND reason = 'SuccessfulCreate' AND message LIKE 'Created pod: %'
    UNION
    SELECT namespace, name FROM pod_versions WHERE run_id = $1 AND obs_id > $2 AND node_name IS NOT NULL
);
