-- name: create_staging
-- purpose: Creates this connection's bulk-load staging table, if it has
--   none yet: a TEMP table (per connection, never written to the store's
--   file or its WAL), where a run's records land through the Appender
--   before `commit_observations` moves the new ones into `observations`.
--   Its columns are in the order `RunWriter::append` appends them. It
--   shadows the store's own `staging_observations` (schema v1, unchanged
--   so that older kdrift versions still write through it), which made
--   every 8,192-row appender flush a commit to the WAL, and checkpoints
--   compress rows deleted moments later (BENCHMARKS.md, session 24).
--   `fields` holds what the derivations read of an Event, Pod or Node,
--   taken out in Rust (queries/src/fields.rs), and `obs_id` the number
--   `number_staged` gives a version to store: no statement of a batch's
--   commit parses an object or joins it (issue 39). `item` (the object's
--   0-based index in its List) and `bytes` (its compact JSON's length)
--   name an object that a batch commit leaves out when DuckDB cannot
--   store it alone under the memory limit (issue 34: `staged_object`).
-- params: none
-- columns: none (DDL)
CREATE TEMP TABLE IF NOT EXISTS staging_observations (
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
    object                 JSON NOT NULL,       -- compact JSON (serde_json's): not parsed again
    model                  VARCHAR,             -- model_fields as JSON (pods and nodes)
    usage_node             VARCHAR,
    requests_cpu           BIGINT,              -- millicores
    requests_memory        BIGINT,              -- bytes
    requests_other         VARCHAR,
    model_error            VARCHAR,
    labels                 VARCHAR,
    scheduling_terms       BOOLEAN,
    fields                 VARCHAR[],           -- what the derivations read of an Event, Pod or Node (src/fields.rs)
    obs_id                 BIGINT,              -- set by number_staged for the versions to store, else NULL
    item                   BIGINT,              -- 0-based index in the enclosing List's items, when in one
    bytes                  BIGINT NOT NULL      -- length of `object`, bytes
);
