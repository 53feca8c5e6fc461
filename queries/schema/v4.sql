-- name: schema_v4
-- purpose: Migrates a store from schema version 3 to 4, so that the state at
--   an instant is a range filter and "requested per node at T" one SQL
--   aggregate (kdrift issue 6: 150,000 pods, millions of versions).
--   `pod_versions` and `node_versions` get `valid_until` (the next version's
--   observed_at for the same pod — namespace, name, uid — or node;
--   'infinity' for the newest: a version is the pod's state for T in
--   [observed_at, valid_until)) and `first_version` (the version chosen, marked estimated,
--   for an instant before every version of the object: the last of those
--   observed at the earliest time). Both are written by
--   `derive_pod_intervals` / `derive_node_intervals` after each batch.
--   `pod_versions` (and the staging table) also get what the version adds to
--   its node's requested amounts, computed at ingest by
--   `kdrift_rebalance::model_fields::pod_usage_fields`: `usage_node` (the
--   node it counts toward: bound and not Succeeded/Failed), `requests_cpu`
--   (millicores), `requests_memory` (bytes), `requests_other` (JSON object
--   of the other resources, NULL when none) and `model_error` (why the model
--   cannot read the pod; NULL when it can). Versions stored before the
--   migration get these from their `model` (the store's migration step
--   fills `pod_usage_backfill` in Rust, then `schema_v4_backfill` copies it).
--   `event_only_bindings` holds the bindings the store knows only from
--   Scheduled events (rewritten by `derive_event_only_bindings` after each
--   batch), so that the state at an instant does not search the history.
--   Two table macros give the versions at instants, once for every query that
--   needs them (`pods_at`, `nodes_at`, `requested_by_node`, ...):
--   `pod_versions_at(instants)` and `node_versions_at(instants)`, where
--   `instants` is a VARCHAR of comma-separated UTC microseconds. Per instant
--   (`at_us`), every column of the version chosen for each pod or node but
--   `model` (join on obs_id for it: carrying the text through the range join
--   costs more than the join) plus `estimated` (observed after the instant): the version whose interval
--   holds the instant, else the first version when every version is later;
--   deleted objects (a DELETED version that is not estimated) and objects
--   created after the instant are left out.
-- params: none
-- columns: none (DDL)
ALTER TABLE staging_observations ADD COLUMN usage_node VARCHAR;
ALTER TABLE staging_observations ADD COLUMN requests_cpu BIGINT;
ALTER TABLE staging_observations ADD COLUMN requests_memory BIGINT;
ALTER TABLE staging_observations ADD COLUMN requests_other VARCHAR;
ALTER TABLE staging_observations ADD COLUMN model_error VARCHAR;
ALTER TABLE pod_versions ADD COLUMN valid_until TIMESTAMP;
ALTER TABLE pod_versions ADD COLUMN first_version BOOLEAN;
ALTER TABLE pod_versions ADD COLUMN usage_node VARCHAR;
ALTER TABLE pod_versions ADD COLUMN requests_cpu BIGINT;
ALTER TABLE pod_versions ADD COLUMN requests_memory BIGINT;
ALTER TABLE pod_versions ADD COLUMN requests_other VARCHAR;
ALTER TABLE pod_versions ADD COLUMN model_error VARCHAR;
ALTER TABLE node_versions ADD COLUMN valid_until TIMESTAMP;
ALTER TABLE node_versions ADD COLUMN first_version BOOLEAN;
CREATE TABLE event_only_bindings (
    namespace   VARCHAR NOT NULL,
    name        VARCHAR NOT NULL,
    uid         VARCHAR NOT NULL,       -- '' when the event does not name it
    node        VARCHAR NOT NULL,
    bound_at    TIMESTAMP NOT NULL,     -- the Scheduled event's first time, UTC
    owner_kind  VARCHAR,                -- from the owner's SuccessfulCreate event
    owner_name  VARCHAR,
    created_at  TIMESTAMP
);
CREATE TABLE pod_usage_backfill (
    obs_id           BIGINT NOT NULL,
    usage_node       VARCHAR,
    requests_cpu     BIGINT,
    requests_memory  BIGINT,
    requests_other   VARCHAR,
    model_error      VARCHAR
);
CREATE MACRO pod_versions_at(instants) AS TABLE
WITH i AS (
    SELECT DISTINCT CAST(trim(s) AS BIGINT) AS at_us
    FROM (SELECT unnest(string_split(instants, ',')) AS s)
    WHERE trim(s) <> ''
),
chosen AS (
    SELECT i.at_us, p.* EXCLUDE (model), false AS estimated
    FROM i
    JOIN pod_versions p
      ON p.observed_at <= make_timestamp(i.at_us)
     AND p.valid_until > make_timestamp(i.at_us)
    UNION ALL
    SELECT i.at_us, p.* EXCLUDE (model), true AS estimated
    FROM i
    JOIN pod_versions p ON p.first_version AND p.observed_at > make_timestamp(i.at_us)
)
SELECT *
FROM chosen
WHERE NOT (change = 'DELETED' AND NOT estimated)
  AND (created_at IS NULL OR created_at <= make_timestamp(at_us));
CREATE MACRO node_versions_at(instants) AS TABLE
WITH i AS (
    SELECT DISTINCT CAST(trim(s) AS BIGINT) AS at_us
    FROM (SELECT unnest(string_split(instants, ',')) AS s)
    WHERE trim(s) <> ''
),
chosen AS (
    SELECT i.at_us, n.* EXCLUDE (model), false AS estimated
    FROM i
    JOIN node_versions n
      ON n.observed_at <= make_timestamp(i.at_us)
     AND n.valid_until > make_timestamp(i.at_us)
    UNION ALL
    SELECT i.at_us, n.* EXCLUDE (model), true AS estimated
    FROM i
    JOIN node_versions n ON n.first_version AND n.observed_at > make_timestamp(i.at_us)
)
SELECT *
FROM chosen
WHERE NOT (change = 'DELETED' AND NOT estimated)
  AND (created_at IS NULL OR created_at <= make_timestamp(at_us));
