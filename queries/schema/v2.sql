-- name: schema_v2
-- purpose: Migrates a store from schema version 1 to 2 (applied after v1.sql
--   on a new store). Adds `vl_windows`: the VictoriaLogs query windows whose
--   rows were committed, one row per window, written in the same transaction
--   as the window's observations. `kdrift ingest victorialogs --resume`
--   continues after the last committed window of the same pull.
-- params: none
-- columns: none (DDL)
CREATE TABLE vl_windows (
    pull_key      VARCHAR NOT NULL,     -- what identifies a pull: base URL, tenant, layout and --filter (no credentials)
    window_start  TIMESTAMP NOT NULL,   -- UTC, inclusive
    window_end    TIMESTAMP NOT NULL,   -- UTC, exclusive
    run_id        BIGINT NOT NULL,      -- the ingest run that committed the window's rows
    rows_read     BIGINT NOT NULL,      -- response lines (rows) the window returned
    committed_at  TIMESTAMP NOT NULL    -- UTC
);
