-- name: number_staged
-- purpose: Gives the staged object versions of a run that the store has
--   never seen their obs_id (`staging_observations.obs_id`; the others keep
--   NULL): same content_hash = same change of the same object with the same
--   content, so re-ingesting a file adds nothing. Within the batch the first
--   copy (lowest seq) wins; the kept versions get obs_ids after the store's
--   largest, in seq order. Decided over (seq, content_hash) alone: only the
--   obs_id column is written. `commit_observations` and the `derive_*`
--   queries then read the numbered rows straight from the staging table, in
--   one scan each, with no join that would hold a whole object (issue 39:
--   a join's hash table held a Pod of 40 MiB, past a 128 MiB limit).
--   Only the staged rows with seq in [$1, $2] are numbered: a batch is
--   committed whole (all its seqs), or, when DuckDB ran out of memory
--   committing it, in parts (issue 34: `RunWriter`'s split commit); the
--   rows of later parts that repeat an earlier part's are then found in
--   `observations`.
-- params: $1 from_seq BIGINT, $2 to_seq BIGINT
-- columns: none (returns the number of rows numbered)
UPDATE staging_observations AS s
SET obs_id = kept.obs_id
FROM (
    SELECT
        first.seq,
        base.max_id + row_number() OVER (ORDER BY first.seq) AS obs_id
    FROM (
        SELECT min(st.seq) AS seq
        FROM staging_observations st
        ANTI JOIN observations o ON o.content_hash = st.content_hash
        WHERE st.seq BETWEEN $1 AND $2
        GROUP BY st.content_hash
    ) AS first,
    (SELECT COALESCE(max(obs_id), 0) AS max_id FROM observations) AS base
) AS kept
WHERE s.seq = kept.seq;
