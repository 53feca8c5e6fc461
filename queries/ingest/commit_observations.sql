-- name: commit_observations
-- purpose: Moves the staged object versions of a run that `number_staged`
--   gave an obs_id (the versions the store has never seen, first copy of
--   each within the batch) into `observations`. One scan of the staging
--   table, in seq order (the order obs_ids were given in): the batch's rows
--   fill the same row groups, whose obs_id ranges (what `obs_id > $after`
--   filters skip by) stay the batch's. The object is stored as staged
--   (compact JSON from serde_json, staged as JSON): no cast parses it again
--   (issue 39: the VARCHAR to JSON cast parsed a Pod of 40 MiB, past a
--   128 MiB limit).
-- params: $1 run_id BIGINT
-- columns: none (returns the number of rows inserted)
INSERT INTO observations
SELECT
    obs_id,
    $1 AS run_id,
    make_timestamp(observed_at_us),
    observed_at_estimated,
    change,
    kind,
    api_version,
    namespace,
    name,
    uid,
    resource_version,
    content_hash,
    location,
    line,
    object
FROM staging_observations
WHERE obs_id IS NOT NULL;
