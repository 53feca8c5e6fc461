-- name: run_node_uids
-- purpose: Node names that one run stored with more than one uid, with the
--   files they came from: dumps of two clusters given together (their
--   `minikube` nodes become one node of the store), or a node deleted and
--   re-created under its name between two dumps. `kdrift ingest file` warns.
-- params: $1 run_id BIGINT
-- columns: name VARCHAR, uids BIGINT, locations VARCHAR[]
SELECT name, count(DISTINCT uid) AS uids, list(DISTINCT location ORDER BY location) AS locations
FROM observations
WHERE run_id = $1 AND kind = 'Node' AND uid IS NOT NULL AND uid <> ''
GROUP BY name
HAVING count(DISTINCT uid) > 1
ORDER BY name;
