-- name: derive_node_versions
-- purpose: Extracts cordon and readiness of the Node versions of one run (or of its latest batch) into `node_versions`,
--   with the fields the cluster model reads (`model`, computed at staging; the whole object when the staging
--   row has none). Creation time, cordon and the Ready condition's status are the
--   staged row's `fields` (queries/src/fields.rs), taken out in Rust: the object
--   is not parsed here (issue 39).
-- params: $1 run_id BIGINT, $2 after_obs_id BIGINT (only observations after it: one committed batch of a long run; 0 for all)
-- columns: none (inserts)
INSERT INTO node_versions
SELECT
    obs_id,
    $1 AS run_id,
    make_timestamp(observed_at_us),
    change,
    name,
    uid,
    resource_version,
    k8s_time(fields[1]),
    COALESCE(TRY_CAST(fields[2] AS BOOLEAN), false),
    fields[3],
    COALESCE(model, CAST(object AS VARCHAR)),
    NULL,  -- valid_until, first_version: set by derive_node_intervals
    NULL
-- The versions this batch stores, straight from the staging table
-- (numbered by `number_staged`; none before `$2`): one scan, no join.
FROM staging_observations
WHERE obs_id IS NOT NULL AND obs_id > $2 AND kind = 'Node';
