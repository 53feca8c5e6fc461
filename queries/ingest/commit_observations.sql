-- name: commit_observations
-- purpose: Moves the staged object versions of a run into `observations`,
--   keeping only versions the store has never seen (same content_hash = same
--   change of the same object with the same content: re-ingesting a file adds
--   nothing). Within the batch the first copy wins.
-- params: $1 run_id BIGINT
-- columns: none (returns the number of rows inserted)
INSERT INTO observations
SELECT
    base.max_id + row_number() OVER (ORDER BY fresh.seq) AS obs_id,
    $1 AS run_id,
    make_timestamp(fresh.observed_at_us),
    fresh.observed_at_estimated,
    fresh.change,
    fresh.kind,
    fresh.api_version,
    fresh.namespace,
    fresh.name,
    fresh.uid,
    fresh.resource_version,
    fresh.content_hash,
    fresh.location,
    fresh.line,
    fresh.object::JSON
FROM (
    SELECT s.*
    FROM staging_observations s
    ANTI JOIN observations o ON o.content_hash = s.content_hash
    QUALIFY row_number() OVER (PARTITION BY s.content_hash ORDER BY s.seq) = 1
) AS fresh,
(SELECT COALESCE(max(obs_id), 0) AS max_id FROM observations) AS base;
