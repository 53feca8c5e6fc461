-- name: schema_v1
-- purpose: Creates the kdrift store, schema version 1. The store is
--   event-sourced and append-only: `observations` keeps every observed object
--   version whole (events, pods, nodes, ...); `ingest_runs`, `ingest_files` and
--   `ingest_errors` record where each came from. Every other table is derived
--   from `observations` by the queries in queries/derive/ and can be rebuilt.
-- params: none
-- columns: none (DDL)

-- A Kubernetes time string as a UTC TIMESTAMP: RFC 3339 with any offset
-- (converted to UTC), NULL when missing, unparseable, or Go's zero time
-- (0001-01-01T00:00:00Z, which means "unset").
CREATE MACRO k8s_time(s) AS (
    CASE
        WHEN TRY_CAST(TRY_CAST(s AS TIMESTAMPTZ) AS TIMESTAMP) < TIMESTAMP '1971-01-01' THEN NULL
        ELSE TRY_CAST(TRY_CAST(s AS TIMESTAMPTZ) AS TIMESTAMP)
    END
);

CREATE TABLE kdrift_meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

-- One row per ingest run (`kdrift ingest ...`, `kdrift demo`).
CREATE TABLE ingest_runs (
    run_id          BIGINT PRIMARY KEY,
    source_kind     VARCHAR NOT NULL,   -- file | api | victorialogs | demo | kdrift
    location        VARCHAR NOT NULL,   -- paths, URL or scenario name, as given
    started_at      TIMESTAMP NOT NULL, -- UTC
    finished_at     TIMESTAMP,          -- UTC; NULL while running; a run closed after a crash: when it was closed
    status          VARCHAR NOT NULL,   -- running | ok | partial | failed
    records_read    BIGINT NOT NULL DEFAULT 0,
    events_added    BIGINT NOT NULL DEFAULT 0,
    objects_added   BIGINT NOT NULL DEFAULT 0,
    duplicates      BIGINT NOT NULL DEFAULT 0,
    errors          BIGINT NOT NULL DEFAULT 0,
    kdrift_version  VARCHAR NOT NULL
);

-- Per file (or window, or stream) of a run.
CREATE TABLE ingest_files (
    run_id        BIGINT NOT NULL,
    location      VARCHAR NOT NULL,
    format        VARCHAR NOT NULL,     -- json | yaml | ndjson | victorialogs-ndjson | records
    records_read  BIGINT NOT NULL,
    events_read   BIGINT NOT NULL,
    objects_read  BIGINT NOT NULL,
    skipped       BIGINT NOT NULL,      -- documents that are not objects kdrift keeps
    errors        BIGINT NOT NULL
);

CREATE TABLE ingest_errors (
    run_id      BIGINT NOT NULL,
    location    VARCHAR NOT NULL,
    line        BIGINT,                 -- 1-based, when known
    column_no   BIGINT,                 -- 1-based, when known
    item        BIGINT,                 -- 0-based index in a List's items, when relevant
    message     VARCHAR NOT NULL
);

-- Every observed object version, whole. Append-only.
CREATE TABLE observations (
    obs_id                 BIGINT PRIMARY KEY,
    run_id                 BIGINT NOT NULL,
    observed_at            TIMESTAMP NOT NULL,  -- UTC; see observed_at_estimated
    observed_at_estimated  BOOLEAN NOT NULL,    -- true: newest timestamp inside the object (a dump has no observation time)
    change                 VARCHAR NOT NULL,    -- LISTED | ADDED | MODIFIED | DELETED
    kind                   VARCHAR NOT NULL,
    api_version            VARCHAR NOT NULL,
    namespace              VARCHAR NOT NULL,    -- '' for cluster-scoped objects
    name                   VARCHAR NOT NULL,
    uid                    VARCHAR,
    resource_version       VARCHAR,
    content_hash           UBIGINT NOT NULL,    -- FNV-1a 64 of change, apiVersion, kind and the canonical JSON: the dedupe key
    location               VARCHAR NOT NULL,    -- file path (or URL) it came from
    line                   BIGINT,              -- 1-based line in that file, when known
    object                 JSON NOT NULL        -- the whole object (old internal-type keys normalised to camelCase)
);

-- Bulk loads land here through the Appender, then commit_observations.sql
-- moves the new rows into `observations` (dedupe by content_hash).
CREATE TABLE staging_observations (
    seq                    BIGINT NOT NULL,
    observed_at_us         BIGINT NOT NULL,     -- microseconds since the Unix epoch, UTC
    observed_at_estimated  BOOLEAN NOT NULL,
    change                 VARCHAR NOT NULL,
    kind                   VARCHAR NOT NULL,
    api_version            VARCHAR NOT NULL,
    namespace              VARCHAR NOT NULL,
    name                   VARCHAR NOT NULL,
    uid                    VARCHAR,
    resource_version       VARCHAR,
    content_hash           UBIGINT NOT NULL,
    location               VARCHAR NOT NULL,
    line                   BIGINT,
    object                 VARCHAR NOT NULL
);

-- Derived: one row per observed Event version, both event APIs normalised.
CREATE TABLE event_versions (
    obs_id               BIGINT NOT NULL,
    run_id               BIGINT NOT NULL,
    observed_at          TIMESTAMP NOT NULL,
    event_key            VARCHAR NOT NULL,  -- namespace/name, or uid:<uid> when the name is missing
    namespace            VARCHAR NOT NULL,
    name                 VARCHAR NOT NULL,
    uid                  VARCHAR,
    api_version          VARCHAR NOT NULL,
    type                 VARCHAR,
    reason               VARCHAR,
    message              VARCHAR,           -- '(combined from similar events): ' stripped
    action               VARCHAR,
    involved_kind        VARCHAR,
    involved_namespace   VARCHAR,
    involved_name        VARCHAR,
    involved_uid         VARCHAR,
    reporting_component  VARCHAR,
    source_host          VARCHAR,
    first_time           TIMESTAMP,
    last_time            TIMESTAMP,         -- never NULL after derivation: falls back to observed_at
    count                BIGINT NOT NULL    -- >= 1 (0 or missing counts as 1)
);

-- Derived: one row per observed Pod version.
CREATE TABLE pod_versions (
    obs_id            BIGINT NOT NULL,
    run_id            BIGINT NOT NULL,
    observed_at       TIMESTAMP NOT NULL,
    change            VARCHAR NOT NULL,
    namespace         VARCHAR NOT NULL,
    name              VARCHAR NOT NULL,
    uid               VARCHAR,
    resource_version  VARCHAR,
    node_name         VARCHAR,
    phase             VARCHAR,
    created_at        TIMESTAMP,
    deleted_at        TIMESTAMP,
    owner_kind        VARCHAR,
    owner_name        VARCHAR
);

-- Derived: one row per observed Node version.
CREATE TABLE node_versions (
    obs_id            BIGINT NOT NULL,
    run_id            BIGINT NOT NULL,
    observed_at       TIMESTAMP NOT NULL,
    change            VARCHAR NOT NULL,
    name              VARCHAR NOT NULL,
    uid               VARCHAR,
    resource_version  VARCHAR,
    created_at        TIMESTAMP,
    unschedulable     BOOLEAN NOT NULL,
    ready             VARCHAR              -- status of the Ready condition: True | False | Unknown | NULL
);

-- The current view of each event: the version with the highest count wins
-- (kubernetes-events.md §4: never sum re-sent copies).
CREATE VIEW events AS
SELECT *
FROM event_versions
QUALIFY row_number() OVER (
    PARTITION BY event_key
    ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC
) = 1;
