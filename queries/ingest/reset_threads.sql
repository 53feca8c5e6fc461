-- name: reset_threads
-- purpose: Gives DuckDB back its default thread count (one per core) when an
--   ingest run's writer goes (`writer_threads` lowered it): the analyses and
--   the sorts after a run scan on every core.
-- params: none
-- columns: none
RESET threads;
