-- name: usage_create_staging
-- purpose: Creates this connection's (TEMP) staging table of usage samples,
--   if missing: a window's samples are appended there, then moved into
--   `usage_samples` by `usage_commit_samples`.
-- params: none
-- columns: none (DDL)
CREATE TEMP TABLE IF NOT EXISTS staging_usage (
    kind          VARCHAR NOT NULL,
    node          VARCHAR,
    namespace     VARCHAR,
    pod           VARCHAR,
    at_us         BIGINT NOT NULL,      -- UTC µs
    cpu_millis    BIGINT,
    memory_bytes  BIGINT,
    source        VARCHAR NOT NULL
);
