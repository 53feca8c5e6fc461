-- name: schema_v5
-- purpose: Migrates a store from schema version 4 to 5, so that the drain
--   timeline and why-pending read bindings and eviction evidence from tables
--   instead of deriving them from the whole history on every run (kdrift
--   issue 6: at 10M events `pod_placements` took 10 s and `pod_evictions`
--   6.6 s). `pod_bindings` holds every binding of a pod to a node (what
--   `pod_placements` returns; the rows with known_from = 'event' are what
--   `event_only_bindings` held, so that table goes), `eviction_evidence`
--   every piece of evidence that a pod was evicted or stopped (what
--   `pod_evictions` returns). Both are rewritten after each batch for the
--   pods the batch names (`batch_pods`), and filled for every pod by the
--   migration (`derive_pod_bindings` / `derive_eviction_evidence` with a
--   negative run id).
--   `batch_pods(run_id, after_obs_id)`: the (namespace, name) of every pod one
--   committed batch names — a Pod version of the batch, or a Scheduled,
--   SuccessfulCreate ("Created pod: POD"), Killing, Evicted,
--   NodeControllerEviction or TaintManagerEviction event. A pod's bindings
--   and evidence depend only on those rows of that pod.
-- params: none
-- columns: none (DDL)
DROP TABLE IF EXISTS event_only_bindings;
CREATE TABLE pod_bindings (
    namespace   VARCHAR,
    name        VARCHAR,
    uid         VARCHAR,    -- '' when unknown
    node        VARCHAR,
    bound_at    TIMESTAMP,  -- UTC: the Scheduled event's first time, else PodScheduled=True, else observed
    owner_kind  VARCHAR,    -- ownerReferences, else the owner's SuccessfulCreate event
    owner_name  VARCHAR,
    created_at  TIMESTAMP,  -- metadata.creationTimestamp, else the SuccessfulCreate event
    known_from  VARCHAR     -- event | object | both
);
CREATE TABLE eviction_evidence (
    namespace    VARCHAR,
    name         VARCHAR,
    uid          VARCHAR,    -- '' when unknown
    node         VARCHAR,    -- NULL when the evidence names none
    occurred_at  TIMESTAMP,  -- UTC
    evidence     VARCHAR,    -- DisruptionTarget | Killing | Evicted | NodeControllerEviction | TaintManagerEviction | Deleted
    detail       VARCHAR
);
CREATE MACRO batch_pods(run, after_obs) AS TABLE
SELECT namespace, name FROM pod_versions WHERE run_id = run AND obs_id > after_obs
UNION
SELECT involved_namespace, involved_name
FROM event_versions
WHERE run_id = run AND obs_id > after_obs AND involved_kind = 'Pod'
  AND reason IN ('Scheduled', 'Killing', 'Evicted', 'NodeControllerEviction', 'TaintManagerEviction')
UNION
SELECT involved_namespace, regexp_extract(message, '^Created pod: (\S+)', 1)
FROM event_versions
WHERE run_id = run AND obs_id > after_obs AND reason = 'SuccessfulCreate' AND message LIKE 'Created pod: %';
