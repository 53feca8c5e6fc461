-- name: latest_observation
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: The store's newest observation time (any kind): "now" for the
--   analyses that look at the cluster as the store last saw it. NULL when the
--   store holds no object.
-- params: none
-- columns: observed_at TIMESTAMP
SELECT max(observed_at) AS observed_at
FROM observations;
