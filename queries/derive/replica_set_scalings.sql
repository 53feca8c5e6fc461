-- name: derive_replica_set_scalings
-- purpose: Copies the ScalingReplicaSet event versions (schema v13) of one
--   committed batch (every stored one when $1 is negative: migration 13)
--   from `event_versions` into `replica_set_scalings`, which query
--   `scale_ups` reads. Runs right after `derive_event_versions`, in the
--   same transaction.
-- params: $1 run_id BIGINT (negative: every run), $2 after_obs_id BIGINT (only versions after it)
-- columns: none (inserts)
INSERT INTO replica_set_scalings
SELECT obs_id, observed_at, event_key, involved_namespace, involved_name, message, first_time, last_time, count
FROM event_versions
WHERE obs_id > $2 AND ($1 < 0 OR run_id = $1) AND reason = 'ScalingReplicaSet'
ORDER BY obs_id;
