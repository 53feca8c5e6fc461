-- name: derive_pod_versions
-- purpose: Extracts placement columns of the Pod versions of one run (or of its latest batch) into `pod_versions`.
-- params: $1 run_id BIGINT, $2 after_obs_id BIGINT (only observations after it: one committed batch of a long run; 0 for all)
-- columns: none (inserts)
INSERT INTO pod_versions
SELECT
    obs_id,
    run_id,
    observed_at,
    change,
    namespace,
    name,
    uid,
    resource_version,
    NULLIF(object->>'$.spec.nodeName', ''),
    NULLIF(object->>'$.status.phase', ''),
    k8s_time(object->>'$.metadata.creationTimestamp'),
    k8s_time(object->>'$.metadata.deletionTimestamp'),
    object->>'$.metadata.ownerReferences[0].kind',
    object->>'$.metadata.ownerReferences[0].name'
FROM observations
WHERE run_id = $1 AND obs_id > $2 AND kind = 'Pod';
