-- name: pod_filter_fields_at
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(epoch_us(TIMESTAMP '2026-11-28 05:00:00'));
-- purpose: The pods at an instant (the versions `pods_at` picks, in the same
--   store order), each with only what kube-scheduler's filters read of an
--   existing pod (schema v10; the rebalance crate's `filter_fields`): the
--   node it counts toward, its effective requests and its labels. `whole`
--   marks the versions that must be read whole (`pod_models`): host ports
--   or inter-pod (anti-)affinity terms (`scheduling_terms`; NULL, from a
--   store that never computed it, counts as true), a model the cluster model
--   cannot read (`model_error`), or a version observed after the instant
--   (estimated: whether it was bound yet is read from its conditions).
--   why-pending reads this instead of 150,000 models (kdrift issue 6).
-- params: $1 at_us BIGINT (UTC microseconds)
-- columns: obs_id BIGINT, namespace VARCHAR, name VARCHAR, uid VARCHAR (NULL when the version has none),
--   usage_node VARCHAR (NULL: counts toward no node), requests_cpu BIGINT (millicores),
--   requests_memory BIGINT (bytes), requests_other VARCHAR (JSON object), labels VARCHAR (JSON object),
--   whole BOOLEAN, estimated BOOLEAN
SELECT p.obs_id, p.namespace, p.name, p.uid, p.usage_node, p.requests_cpu, p.requests_memory, p.requests_other,
       p.labels, (p.scheduling_terms IS NOT false OR p.model_error IS NOT NULL) AS whole, false AS estimated
FROM pod_versions p
WHERE p.observed_at <= make_timestamp($1) AND p.valid_until > make_timestamp($1)
  AND p.change <> 'DELETED'
  AND (p.created_at IS NULL OR p.created_at <= make_timestamp($1))
UNION ALL
SELECT p.obs_id, p.namespace, p.name, p.uid, p.usage_node, p.requests_cpu, p.requests_memory, p.requests_other,
       p.labels, true AS whole, true AS estimated
FROM pod_versions p
WHERE p.first_version AND p.observed_at > make_timestamp($1)
  AND (p.created_at IS NULL OR p.created_at <= make_timestamp($1));
