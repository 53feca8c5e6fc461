-- name: derive_node_versions
-- purpose: Extracts cordon and readiness of the Node versions of one run (or of its latest batch) into `node_versions`.
-- params: $1 run_id BIGINT, $2 after_obs_id BIGINT (only observations after it: one committed batch of a long run; 0 for all)
-- columns: none (inserts)
INSERT INTO node_versions
SELECT
    o.obs_id,
    o.run_id,
    o.observed_at,
    o.change,
    o.name,
    o.uid,
    o.resource_version,
    k8s_time(o.object->>'$.metadata.creationTimestamp'),
    COALESCE(TRY_CAST(o.object->>'$.spec.unschedulable' AS BOOLEAN), false),
    (SELECT c->>'status'
       FROM (SELECT unnest(json_extract(o.object, '$.status.conditions[*]')) AS c)
      WHERE c->>'type' = 'Ready'
      LIMIT 1)
FROM observations o
WHERE o.run_id = $1 AND o.obs_id > $2 AND o.kind = 'Node';
