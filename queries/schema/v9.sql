-- name: schema_v9
-- purpose: Migrates a store from schema version 8 to 9: the drain
--   timeline's moves kept in the store. Matching every eviction of every
--   rolling drain to its replacement reads every binding and every piece of
--   eviction evidence of the history (at 10M events, 820,000 bindings and
--   500,000 pieces of evidence: most of a 3.7 s timeline; kdrift issue 6),
--   so it is done once after the history changes (after each `kdrift
--   ingest`, by the analyze crate's `drains::keep_moves`) and the timeline
--   reads one row per moved pod. The rules are the analyze crate's
--   (`drains::moves`); the rows are valid for the history they were
--   computed from only: `drain_moves_kept` records which (the highest
--   obs_id then, the schema version and the rules' version), and a reader
--   that finds another computes the moves from the history instead.
--   `drain_moves`: one row per pod evicted or stopped on a node during a
--   node episode, with its replacement when the store shows one.
-- params: none
-- columns: none (DDL)
CREATE TABLE drain_moves (
    operation            INTEGER,    -- 1-based operation number over the whole store (time order)
    episode              INTEGER,    -- 0-based position of the node episode in its operation (by start, then node)
    node                 VARCHAR,    -- the episode's node: the node the pod left
    namespace            VARCHAR,
    name                 VARCHAR,
    uid                  VARCHAR,    -- '' when unknown
    evicted_at           TIMESTAMP,  -- UTC: the earliest evidence
    evidence             VARCHAR,    -- the kinds of evidence in the order first seen, comma-separated
    detail               VARCHAR,    -- the DisruptionTarget reason or the eviction event's message
    owner                VARCHAR,    -- Kind/name, when known
    replacement_name     VARCHAR,    -- the replacement pod (same namespace); NULL: none in the store
    replacement_node     VARCHAR,
    replacement_bound_at TIMESTAMP   -- UTC
);
CREATE TABLE drain_moves_kept (
    observed_through BIGINT,    -- the highest obs_id of observations the moves were computed from
    schema_version   BIGINT,    -- the store's schema version then
    rules_version    BIGINT,    -- the version of the analyze crate's move rules
    operations       BIGINT,    -- operations found
    moves            BIGINT,    -- rows of drain_moves
    kept_at          TIMESTAMP  -- UTC, when computed (wall clock)
);
