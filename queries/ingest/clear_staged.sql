-- name: clear_staged
-- purpose: Empties the staging table of the rows with seq in [$1, $2]:
--   a batch (all its seqs) once committed, or one part of it, or the one
--   object DuckDB could not store alone under the memory limit (issue 34).
-- params: $1 from_seq BIGINT, $2 to_seq BIGINT
-- columns: none (returns the number of rows deleted)
DELETE FROM staging_observations WHERE seq BETWEEN $1 AND $2;
