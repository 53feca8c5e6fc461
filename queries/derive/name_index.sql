-- name: derive_name_index
-- purpose: Appends the `name_index` entries (schema v11) of one committed
--   batch's event, pod and node versions (every stored version when $2 is
--   0: migration 11), sorted by (namespace, name, obs_id) among themselves:
--   an event version under its involved object, and a controller's
--   "Created pod: NAME" / "Deleted pod: NAME" event also under the pod it
--   names; a pod version under its namespace and name (`default` for one
--   stored without a namespace: `derive_pod_versions`); a node version
--   under ('', name).
-- params: $1 run_id BIGINT (negative: every run), $2 after_obs_id BIGINT (only versions after it)
-- columns: none (inserts)
INSERT INTO name_index
SELECT namespace, name, obs_id
FROM (
    SELECT COALESCE(involved_namespace, '') AS namespace, involved_name AS name, obs_id
    FROM event_versions
    WHERE obs_id > $2 AND ($1 < 0 OR run_id = $1) AND involved_name IS NOT NULL
    UNION ALL
    -- 'Created pod: ' and 'Deleted pod: ' are 13 characters long.
    SELECT COALESCE(involved_namespace, ''), substr(message, 14), obs_id
    FROM event_versions
    WHERE obs_id > $2 AND ($1 < 0 OR run_id = $1)
      AND ((reason = 'SuccessfulCreate' AND starts_with(message, 'Created pod: '))
        OR (reason = 'SuccessfulDelete' AND starts_with(message, 'Deleted pod: ')))
    UNION ALL
    SELECT namespace, name, obs_id
    FROM pod_versions
    WHERE obs_id > $2 AND ($1 < 0 OR run_id = $1)
    UNION ALL
    SELECT '', name, obs_id
    FROM node_versions
    WHERE obs_id > $2 AND ($1 < 0 OR run_id = $1)
)
ORDER BY namespace, name, obs_id;
