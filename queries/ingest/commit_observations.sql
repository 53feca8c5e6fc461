-- name: commit_observations
-- purpose: Moves the staged object versions of a run into `observations`,
--   keeping only versions the store has never seen (same content_hash = same
--   change of the same object with the same content: re-ingesting a file adds
--   nothing). Within the batch the first copy (lowest seq) wins; the kept
--   versions get obs_ids after the store's largest, in seq order.
--   Which rows to keep, and their obs_ids, are decided over (seq,
--   content_hash) alone; the whole rows are read once, in the final join.
--   (A window over the whole staged rows sorted every object text: 40 % of
--   this statement's time at 100,000 rows; kdrift issue 6.) No ORDER BY: the
--   join emits the staged rows in their order, and were it not to, the
--   batch's rows still fill the same row groups, whose obs_id ranges (what
--   `obs_id > $after` filters skip by) stay the batch's.
-- params: $1 run_id BIGINT
-- columns: none (returns the number of rows inserted)
WITH kept AS (
    SELECT
        first.seq,
        base.max_id + row_number() OVER (ORDER BY first.seq) AS obs_id
    FROM (
        SELECT min(s.seq) AS seq
        FROM staging_observations s
        ANTI JOIN observations o ON o.content_hash = s.content_hash
        GROUP BY s.content_hash
    ) AS first,
    (SELECT COALESCE(max(obs_id), 0) AS max_id FROM observations) AS base
)
INSERT INTO observations
SELECT
    kept.obs_id,
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
FROM staging_observations AS fresh
JOIN kept ON kept.seq = fresh.seq;
