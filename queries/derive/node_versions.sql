-- name: derive_node_versions
-- purpose: Extracts cordon and readiness of the Node versions of one run (or of its latest batch) into `node_versions`,
--   with the fields the cluster model reads (`model`, computed at staging; the whole object when the staging
--   row has none).
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
      LIMIT 1),
    COALESCE(s.model, CAST(o.object AS VARCHAR)),
    NULL,  -- valid_until, first_version: set by derive_node_intervals
    NULL
FROM observations o
LEFT JOIN (
    -- The staged rows of this batch (still there at derive time), once per content.
    SELECT content_hash, any_value(model) AS model
    FROM staging_observations
    WHERE kind = 'Node'
    GROUP BY content_hash
) AS s ON s.content_hash = o.content_hash
WHERE o.run_id = $1 AND o.obs_id > $2 AND o.kind = 'Node';
