-- name: bench_read_json_baseline
-- purpose: The ingest benchmark's baseline (BENCHMARKS.md): DuckDB's own
--   JSON reader loading a VictoriaLogs NDJSON export into a table, in the
--   benchmark's process, on a scratch database (never a kdrift store).
--   Columns are auto-detected from the whole file (sample_size -1), as a
--   user would load it.
-- params: $1 path VARCHAR (the NDJSON file)
-- columns: none (creates table baseline_rows)
CREATE TABLE baseline_rows AS
SELECT * FROM read_json($1, format = 'newline_delimited', sample_size = -1);
