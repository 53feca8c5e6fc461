-- name: schema_v12
-- purpose: Migrates a store from schema version 11 to 12: what why-pending
--   reads about a few nodes, laid out to be read by node (kdrift issue 6).
--   `drain_episodes`: one row per node episode of every drain operation,
--   kept with the drain moves (`drains::keep_moves`, same transaction, same
--   freshness record `drain_moves_kept`): why a node is full needs the
--   operations' spans and the episodes of that node only, which the drain
--   timeline otherwise groups from every node signal of the history (at 10M
--   events 55,000 signals, ~170 ms of a ~730 ms why-pending). Its rows
--   come with the moves: a store migrated here has none, and its kept moves
--   (recorded under schema 11) are stale until the next ingest keeps both.
--   `pod_bindings` is sorted by node (then bound_at): one node's bindings
--   then lie in a row group or two, which DuckDB skips to for `node = X`
--   (at 10M events, 820,000 bindings: ~20 ms for five nodes, against ~100
--   ms in insertion order). Batches rewrite the rows of the pods they name
--   at the end of the table; `pod_bindings_sorted` counts the rows in order
--   at the last whole sort and those appended since, and
--   `sort_pod_bindings` (after an ingest, when the appended rows reach an
--   eighth of the sorted ones) sorts the table whole again.
--   From schema 12 on, a pod version stored without a namespace is
--   `default`'s and an event naming none for its pod is about the pod in the
--   event's namespace, as derived (`derive_pod_versions`,
--   `derive_event_versions`); a store that kept any under '' gets them
--   renamed and every table keyed by pod derived again
--   (`schema_v12_default_namespace`, run by `Store::migrate`).
-- params: none
-- columns: none (DDL)
-- Stores written by development builds between the name index and
-- `pod_namespaces` (both schema 11) lack the latter.
CREATE TABLE IF NOT EXISTS pod_namespaces (
    namespace VARCHAR NOT NULL
);
INSERT INTO pod_namespaces
SELECT DISTINCT CASE WHEN namespace = '' THEN 'default' ELSE namespace END FROM pod_versions
WHERE NOT EXISTS (SELECT 1 FROM pod_namespaces);
CREATE TABLE drain_episodes (
    operation  INTEGER NOT NULL,    -- 1-based operation number, as drain_moves
    episode    INTEGER NOT NULL,    -- 0-based position in the operation, as drain_moves
    node       VARCHAR NOT NULL,
    started_at TIMESTAMP NOT NULL,  -- UTC: the first signal
    last_at    TIMESTAMP NOT NULL,  -- UTC: when it ended, else its last signal
    back_at    TIMESTAMP            -- UTC: Ready again after NotReady, else uncordoned, else ended; NULL: not back
);
CREATE TABLE pod_bindings_sorted (
    sorted_rows   BIGINT NOT NULL,  -- rows of pod_bindings in (node, bound_at) order from its start at the last sort
    appended_rows BIGINT NOT NULL   -- rows batches appended since
);
INSERT INTO pod_bindings_sorted VALUES (0, 0);
-- Once each (derived twice before schema 12 when two Scheduled events named
-- one binding: `derive_pod_bindings`).
CREATE OR REPLACE TABLE pod_bindings AS
SELECT DISTINCT * FROM pod_bindings ORDER BY node, bound_at, namespace, name, uid;
UPDATE pod_bindings_sorted SET sorted_rows = (SELECT count(*) FROM pod_bindings);
