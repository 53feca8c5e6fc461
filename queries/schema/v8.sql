-- name: schema_v8
-- purpose: Migrates a store from schema version 7 to 8: the requested
--   amounts per node kept by ingest as changes and hourly checkpoints, so
--   that "what is requested on each node at T" reads one checkpoint and the
--   changes of at most an hour instead of every pod version interval
--   (`requested_by_node` joins every interval to the instants: at 10M
--   events, 20 instants cost the drain timeline ~3 s; kdrift issue 6).
--   What counts is what `requested_by_node` counts for the versions observed
--   at or before the instant: a pod version readable by the cluster model
--   (`model_error` NULL) that counts toward a node (`usage_node`) and is not
--   DELETED, from `greatest(observed_at, created_at)` until `valid_until`.
--   Versions observed after the instant (estimated) are not in these
--   tables: readers add them (`requested_extras_at`).
--   `requested_changes`: per instant and node, the summed change (+ when a
--   version starts counting, − when it stops). `requested_checkpoints`: per
--   hour boundary H after which some change happened in the hour up to H
--   (`requested_checkpoint_times`), the per-node sums of every change at or
--   before H (nodes with nothing counted have no row). The amounts at T =
--   the latest checkpoint at or before T, plus the changes after it up to T.
--   All three are rewritten from the earliest instant a committed batch can
--   change (`requested_changed_since`: its pod versions' earliest
--   observed_at; the intervals it reopens end no earlier), and filled for
--   every pod version by the migration (run id −1).
--   `hour_after(t)`: the hour boundary at or after t (the checkpoint that holds a change at t).
-- params: none
-- columns: none (DDL)
CREATE TABLE requested_changes (
    changed_at    TIMESTAMP,  -- UTC
    node          VARCHAR,
    pods          BIGINT,     -- pods that start (+) or stop (−) counting
    cpu_millis    HUGEINT,    -- millicores
    memory_bytes  HUGEINT     -- bytes
);
CREATE TABLE requested_checkpoints (
    checkpoint_at TIMESTAMP,  -- UTC, an hour boundary
    node          VARCHAR,
    pods          BIGINT,
    cpu_millis    HUGEINT,
    memory_bytes  HUGEINT
);
CREATE TABLE requested_checkpoint_times (
    checkpoint_at TIMESTAMP   -- UTC: a checkpoint, also when no node has anything counted at it
);
CREATE MACRO hour_after(t) AS
    CASE WHEN date_trunc('hour', t) = t THEN t ELSE date_trunc('hour', t) + INTERVAL 1 HOUR END;
CREATE MACRO requested_changed_since(run, after_obs) AS
    CASE WHEN run < 0 THEN '-infinity'::TIMESTAMP
         ELSE (SELECT min(observed_at) FROM pod_versions WHERE run_id = run AND obs_id > after_obs) END;
