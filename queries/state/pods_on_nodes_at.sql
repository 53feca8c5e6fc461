-- name: pods_on_nodes_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'), '["node-1"]', 'batch', 'nightly-x');
-- purpose: The pods counting toward the given nodes at an instant that
--   `pods_read_whole_at` leaves to the sums (the versions `pods_at` picks,
--   observed at or before the instant, readable, without host ports or
--   inter-pod terms), but the pending pod: the rest of the pods why-pending
--   shows on the nodes it explains, by obs_id for `pod_models`.
-- params: $1 at_us BIGINT (UTC microseconds), $2 nodes VARCHAR (a JSON array of node names),
--   $3 namespace VARCHAR, $4 name VARCHAR (the pending pod)
-- columns: obs_id BIGINT, namespace VARCHAR, name VARCHAR, usage_node VARCHAR
SELECT p.obs_id, p.namespace, p.name, p.usage_node
FROM pod_versions p
WHERE p.observed_at <= make_timestamp($1) AND p.valid_until > make_timestamp($1)
  AND p.change <> 'DELETED'
  AND (p.created_at IS NULL OR p.created_at <= make_timestamp($1))
  AND p.scheduling_terms IS false AND p.model_error IS NULL
  AND NOT (p.name = $4 AND p.namespace = $3)
  AND list_contains(from_json($2, '["VARCHAR"]'), p.usage_node)
ORDER BY p.namespace, p.name, p.obs_id;
