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
    NULLIF(f[1], ''),
    NULLIF(f[2], ''),
    k8s_time(f[3]),
    k8s_time(f[4]),
    f[5],
    f[6]
FROM (
    SELECT obs_id, run_id, observed_at, change, namespace, name, uid, resource_version,
           -- One parse of each object: every field at once (1-based list).
           json_extract_string(object, [
               '$.spec.nodeName', '$.status.phase', '$.metadata.creationTimestamp',
               '$.metadata.deletionTimestamp', '$.metadata.ownerReferences[0].kind',
               '$.metadata.ownerReferences[0].name'
           ]) AS f
    FROM observations
    WHERE run_id = $1 AND obs_id > $2 AND kind = 'Pod'
);
