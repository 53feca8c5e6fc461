-- name: schema_v16_pod_objects
-- purpose: One slice of the whole Pod objects a v15 → v16 migration derives
--   the models of: a range of obs_id, so that each slice reads only its row
--   groups of `observations` (stored in obs_id order) and holds a bounded
--   number of objects in memory.
-- params: $1 from_obs_id BIGINT (inclusive), $2 to_obs_id BIGINT (exclusive)
-- columns: obs_id BIGINT, object VARCHAR (JSON text)
SELECT obs_id, CAST(object AS VARCHAR)
FROM observations
WHERE obs_id >= $1 AND obs_id < $2 AND kind = 'Pod'
ORDER BY obs_id;
