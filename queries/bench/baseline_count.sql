-- name: bench_baseline_count
-- purpose: Rows the ingest benchmark's baseline loaded (queries/bench/read_json_baseline.sql).
-- params: none
-- columns: rows BIGINT
SELECT count(*) AS rows FROM baseline_rows;
