-- name: schema_v17
-- purpose: Migrates a store from schema version 16 to 17: measured usage
--   (kdrift issue 37). `usage_samples` holds the CPU and memory nodes and
--   pods actually used, as an append-only time series: one row per object,
--   instant and source, whose stored values are never changed (a NULL
--   measure is filled when the range is pulled again with its query:
--   usage/fill_samples.sql); ingesting the same samples again adds
--   nothing (dedup key: kind, object — the node, or namespace/pod — sampled_at,
--   source). Compact for 30 days × 5,000 nodes × 30 s (432 M rows): plain
--   columns (no JSON per sample), integers for the amounts, rows appended
--   in time order per window so that a range of `sampled_at` reads few row groups.
--   `usage_windows`: the Prometheus query windows whose samples were
--   committed, one row per window, written in the same transaction as its
--   samples (`kdrift ingest prometheus --resume` continues after the last).
--   IF NOT EXISTS: the tests' fixtures of older stores (a current store set
--   back to an older version by hand) may keep these tables; a real store
--   below version 17 has neither.
-- params: none
-- columns: none (DDL)
CREATE TABLE IF NOT EXISTS usage_samples (
    kind          VARCHAR NOT NULL,     -- 'node' | 'pod'
    node          VARCHAR,              -- a node sample's node; the node a pod ran on (NULL when unknown)
    namespace     VARCHAR,              -- pods only
    pod           VARCHAR,              -- pods only
    sampled_at    TIMESTAMP NOT NULL,   -- UTC, µs: the instant the sample measures
    cpu_millis    BIGINT,               -- CPU used, millicores (rounded to the nearest); NULL: not measured
    memory_bytes  BIGINT,               -- memory working set, bytes (rounded to the nearest); NULL: not measured
    source        VARCHAR NOT NULL,     -- 'metrics-api' | 'prometheus' | 'kubectl-top'
    run_id        BIGINT NOT NULL       -- the ingest run that stored it
);
CREATE TABLE IF NOT EXISTS usage_windows (
    pull_key      VARCHAR NOT NULL,     -- what identifies a pull: base URL, step and queries (no credentials)
    window_start  TIMESTAMP NOT NULL,   -- UTC, inclusive
    window_end    TIMESTAMP NOT NULL,   -- UTC, exclusive
    run_id        BIGINT NOT NULL,      -- the ingest run that committed the window's samples
    samples_read  BIGINT NOT NULL,      -- samples the window returned (after merging cpu and memory)
    committed_at  TIMESTAMP NOT NULL    -- UTC
);
-- The drain moves kept under schema 16 stay fresh: no table they are
-- computed from changes here.
UPDATE drain_moves_kept SET schema_version = 17 WHERE schema_version = 16;
