-- name: derive_pod_versions
-- purpose: Extracts placement columns of the Pod versions of one run (or of its latest batch) into `pod_versions`,
--   with the fields the cluster model reads (`model`, computed at staging; the whole object when the staging
--   row has none) and, read from them, when the pod was bound (PodScheduled=True) and its eviction mark
--   (DisruptionTarget=True: time, "reason: message"), and what the version adds to its node's requested amounts
--   (schema v4: `usage_node`, `requests_*`, `model_error`, computed at staging; NULL when the staging row has
--   none; schema v10: `labels`, `scheduling_terms`, likewise). `valid_until` and `first_version` are left NULL here: `derive_pod_intervals` sets them next
--   (schema v14: `first_seen_late` too, set by `derive_pod_first_seen_late` after it).
--   A version stored without a namespace is `default`'s (schema v12: every
--   reader keys pods by the namespace as the cluster model reads it).
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
    f[6],
    model,
    (SELECT k8s_time(c->>'lastTransitionTime') FROM (SELECT unnest(conditions) AS c)
      WHERE c->>'type' = 'PodScheduled' AND c->>'status' = 'True' LIMIT 1),
    (SELECT k8s_time(c->>'lastTransitionTime') FROM (SELECT unnest(conditions) AS c)
      WHERE c->>'type' = 'DisruptionTarget' AND c->>'status' = 'True' LIMIT 1),
    (SELECT COALESCE(c->>'reason', '') || CASE WHEN c->>'message' IS NULL THEN '' ELSE ': ' || (c->>'message') END
       FROM (SELECT unnest(conditions) AS c)
      WHERE c->>'type' = 'DisruptionTarget' AND c->>'status' = 'True' LIMIT 1),
    NULL,
    NULL,
    usage_node,
    requests_cpu,
    requests_memory,
    requests_other,
    model_error,
    labels,
    scheduling_terms,
    NULL
FROM (
    SELECT x.*,
           -- The model keeps only the PodScheduled and DisruptionTarget conditions: small to parse.
           json_extract(x.model, '$.status.conditions[*]') AS conditions
    FROM (
        SELECT o.obs_id, o.run_id, o.observed_at, o.change, o.namespace, o.name, o.uid, o.resource_version, o.f,
               COALESCE(s.model, CAST(o.object AS VARCHAR)) AS model,
               s.usage_node, s.requests_cpu, s.requests_memory, s.requests_other, s.model_error,
               s.labels, s.scheduling_terms
        FROM (
            -- A pod stored without a namespace is `default`'s, as the API
            -- server and the cluster model read it and as events about it name it.
            SELECT obs_id, run_id, observed_at, change, COALESCE(NULLIF(namespace, ''), 'default') AS namespace,
                   name, uid, resource_version, content_hash,
                   -- One parse of each object: every field at once (1-based list).
                   json_extract_string(object, [
                       '$.spec.nodeName', '$.status.phase', '$.metadata.creationTimestamp',
                       '$.metadata.deletionTimestamp', '$.metadata.ownerReferences[0].kind',
                       '$.metadata.ownerReferences[0].name'
                   ]) AS f,
                   object
            FROM observations
            WHERE run_id = $1 AND obs_id > $2 AND kind = 'Pod'
        ) AS o
        LEFT JOIN (
            -- The staged rows of this batch (still there at derive time), once per content.
            SELECT content_hash, any_value(model) AS model, any_value(usage_node) AS usage_node,
                   any_value(requests_cpu) AS requests_cpu, any_value(requests_memory) AS requests_memory,
                   any_value(requests_other) AS requests_other, any_value(model_error) AS model_error,
                   any_value(labels) AS labels, any_value(scheduling_terms) AS scheduling_terms
            FROM staging_observations
            WHERE kind = 'Pod'
            GROUP BY content_hash
        ) AS s ON s.content_hash = o.content_hash
    ) AS x
);
