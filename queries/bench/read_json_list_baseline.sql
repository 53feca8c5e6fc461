-- name: bench_read_json_list_baseline
-- purpose: The List ingest benchmark's baseline (BENCHMARKS.md): DuckDB's
--   own JSON reader loading a kubectl List (`kubectl get pods -A -o json`,
--   one JSON document) into a table of one row per item, in the
--   benchmark's process, on a scratch database (never a kdrift store).
--   The whole document is one JSON object, so the object size limit is
--   raised to 1 GiB; columns are auto-detected from the whole file.
-- params: $1 path VARCHAR (the List file)
-- columns: none (creates table baseline_rows)
CREATE TABLE baseline_rows AS
SELECT unnest(items) AS item
FROM read_json($1, format = 'auto', sample_size = -1, maximum_object_size = 1073741824);
