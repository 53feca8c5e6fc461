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
--   The placement fields are the staged row's `fields`, taken out in Rust
--   (issue 39: parsing a Pod of 40 MiB here failed under a 128 MiB limit).
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
    k8s_time(f[7]),
    k8s_time(f[8]),
    f[9],
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
    -- The versions this batch stores, straight from the staging table
    -- (numbered by `number_staged`; none before `$2`): one scan, no join.
    -- A pod stored without a namespace is `default`'s, as the API
    -- server and the cluster model read it and as events about it name it.
    -- `fields`: spec.nodeName, status.phase, creationTimestamp, deletionTimestamp,
    -- the first owner's kind and name, the PodScheduled=True time, the
    -- DisruptionTarget=True time and "reason: message" (queries/src/fields.rs):
    -- neither the object nor the model (which keeps the annotations) is parsed here.
    SELECT obs_id, $1 AS run_id, make_timestamp(observed_at_us) AS observed_at, change,
           COALESCE(NULLIF(namespace, ''), 'default') AS namespace, name, uid, resource_version,
           fields AS f, COALESCE(model, CAST(object AS VARCHAR)) AS model,
           usage_node, requests_cpu, requests_memory, requests_other, model_error, labels, scheduling_terms
    FROM staging_observations
    WHERE obs_id IS NOT NULL AND obs_id > $2 AND kind = 'Pod'
);
