-- name: schema_v15
-- purpose: Migrates a store from schema version 14 to 15: the two columns
--   holding whole objects, `observations.object` (every object version) and
--   `pod_versions.model` (each pod version's model), stored with zstd
--   compression instead of DuckDB's automatic choice (dictionary/FSST). On
--   the 1M-event benchmark store `object` took 3,686 blocks of 256 KiB
--   (921 MiB) and takes 260 (65 MiB); a batch's commit, which compresses
--   what it appends, takes about half the time (kdrift issue 6,
--   BENCHMARKS.md "Session 27"). Queries scan the columns as fast as before;
--   fetching scattered single rows costs about twice as much (milliseconds
--   for thousands of rows).
--   DuckDB cannot change a column's compression in place, so both tables
--   are rebuilt: same columns, same order, same constraints, rows in the
--   order they were stored (`observations` by obs_id; `pod_versions` as its
--   batches appended them, which range filters on its times rely on). The `events` view and the
--   macros name the table, not its identity, and read the new one. The
--   space the old table held is reused by later writes (DuckDB does not
--   shrink the file). No derived table changes: the drain moves kept under
--   schema 14 stay fresh.
-- params: none
-- columns: none (DDL)
CREATE TABLE observations_v15 (
    obs_id                 BIGINT PRIMARY KEY,
    run_id                 BIGINT NOT NULL,
    observed_at            TIMESTAMP NOT NULL,
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
    object                 JSON NOT NULL USING COMPRESSION zstd
);
INSERT INTO observations_v15 BY NAME SELECT * FROM observations;
DROP TABLE observations;
ALTER TABLE observations_v15 RENAME TO observations;

CREATE TABLE pod_versions_v15 (
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
    owner_name        VARCHAR,
    model             VARCHAR USING COMPRESSION zstd,
    scheduled_at      TIMESTAMP,
    disrupted_at      TIMESTAMP,
    disruption        VARCHAR,
    valid_until       TIMESTAMP,
    first_version     BOOLEAN,
    usage_node        VARCHAR,
    requests_cpu      BIGINT,
    requests_memory   BIGINT,
    requests_other    VARCHAR,
    model_error       VARCHAR,
    labels            VARCHAR,
    scheduling_terms  BOOLEAN,
    first_seen_late   BOOLEAN
);
INSERT INTO pod_versions_v15 BY NAME SELECT * FROM pod_versions;
DROP TABLE pod_versions;
ALTER TABLE pod_versions_v15 RENAME TO pod_versions;
UPDATE drain_moves_kept SET schema_version = 15 WHERE schema_version = 14;
