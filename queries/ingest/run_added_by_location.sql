-- name: run_added_by_location
-- purpose: How many new object versions each file of a run added.
-- params: $1 run_id BIGINT
-- columns: location VARCHAR, added BIGINT
SELECT location, count(*) AS added
FROM observations
WHERE run_id = $1
GROUP BY location;
