-- name: max_obs_id
-- purpose: The highest obs_id in the store (0 when empty): observations
--   committed after it are the batch being committed.
-- params: none
-- columns: max_obs_id BIGINT
SELECT COALESCE(max(obs_id), 0) AS max_obs_id FROM observations;
