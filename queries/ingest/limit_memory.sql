-- name: limit_memory
-- purpose: Caps DuckDB's memory (buffer pool, hash tables, sorts; DuckDB
--   spills the rest to disk) while an ingest run is open, so that ingest's
--   peak RSS stays bounded whatever the input size (BENCHMARKS.md, issue 6).
--   Undone by `reset_memory_limit` when the run ends.
-- params: $1 limit VARCHAR (a DuckDB size, e.g. '128MB')
-- columns: none
SET memory_limit = $1;
