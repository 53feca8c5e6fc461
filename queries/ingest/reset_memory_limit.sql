-- name: reset_memory_limit
-- purpose: Gives DuckDB back its default memory limit (80 % of RAM) when an
--   ingest run ends (`limit_memory` set it for the run).
-- params: none
-- columns: none
RESET memory_limit;
