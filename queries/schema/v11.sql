-- name: schema_v11
-- purpose: Migrates a store from schema version 10 to 11: the name index
--   (and the namespaces of the stored pods, `pod_namespaces`).
--   The history is stored in arrival order, which is about time order, so
--   DuckDB can skip the row groups outside a time range but must read every
--   row group to find the rows of one object by name: at 10M events a
--   why-pending read every event and pod version five times over (the pod's
--   failures, bindings, deletion evidence and versions: ~0.4 s of ~1 s;
--   kdrift issue 6). `name_index` maps each object name to the obs_ids of
--   the stored rows that name it, and is kept sorted by name, so one name's
--   entries lie in one or two of its row groups; their lowest and highest
--   obs_id (`first_obs_naming`, `last_obs_naming`) then bound the obs_ids a
--   lookup reads in the history's own tables, which DuckDB turns into
--   skipped row groups. Rows indexed (`derive_name_index`, batch by batch
--   in the same transaction as the history, so the index is never behind):
--   every event version under its involved object (namespace, '' when
--   cluster-scoped; name), and a controller's "Created pod: NAME" /
--   "Deleted pod: NAME" (SuccessfulCreate / SuccessfulDelete) also under
--   (its namespace, NAME); every pod version under (namespace, name), and
--   one stored without a namespace also under `default`; every
--   node version under ('', name). A reader adds the bound next to its own
--   exact conditions, so the bound only skips reading and never decides a
--   row. Each batch appends its entries sorted among themselves;
--   `sort_name_index` (after an ingest, when the unsorted tail grew past an
--   eighth of the table) sorts the table whole again. `name_index_sorted`
--   says how many rows the last whole sort left in order.
-- params: none
-- columns: none (DDL)
CREATE TABLE name_index (
    namespace VARCHAR NOT NULL,  -- '' for cluster-scoped objects (nodes)
    name      VARCHAR NOT NULL,
    obs_id    BIGINT NOT NULL    -- an observation (event, pod or node version) that names the object
);
CREATE TABLE name_index_sorted (
    sorted_rows BIGINT NOT NULL  -- rows of name_index in (namespace, name, obs_id) order, from its start
);
INSERT INTO name_index_sorted VALUES (0);
-- The lowest and highest obs_id of the stored rows that name an object
-- (NULL when none does): `obs_id BETWEEN first_obs_naming(ns, n) AND
-- last_obs_naming(ns, n)` holds for every such row of event_versions,
-- pod_versions and node_versions.
CREATE MACRO first_obs_naming(ns, n) AS (SELECT min(obs_id) FROM name_index WHERE namespace = ns AND name = n);
CREATE MACRO last_obs_naming(ns, n) AS (SELECT max(obs_id) FROM name_index WHERE namespace = ns AND name = n);
-- Every namespace a stored Pod version has (append-only, like the
-- history: `derive_pod_namespaces` adds a batch's new ones). "Does the store
-- hold any Pod object of namespace N" (`unstored_namespaces`, at every
-- why-pending, skew and snapshot) read every pod version's namespace
-- before: 3.5M rows at 10M events, ~50 ms scanned and ~70 ms joined.
CREATE TABLE pod_namespaces (
    namespace VARCHAR NOT NULL  -- a pod stored without one is `default`'s, as the cluster model reads it
);
INSERT INTO pod_namespaces
SELECT DISTINCT CASE WHEN namespace = '' THEN 'default' ELSE namespace END FROM pod_versions;
-- The drain moves kept under schema 10 stay fresh: nothing they are matched
-- from changes here.
UPDATE drain_moves_kept SET schema_version = 11 WHERE schema_version = 10;
