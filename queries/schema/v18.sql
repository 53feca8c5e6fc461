-- name: schema_v18
-- purpose: Migrates a store from schema version 17 to 18: a stored pod
--   stops counting on its node at the evidence that it was evicted or
--   stopped after its newest stored version (kdrift new-user trial 46,
--   finding 1: a dump older than the descheduler's evictions kept the
--   evicted pods on their node in `skew` and `pods_at` while their
--   replacements counted on theirs). The rule is `derive_pod_intervals`'
--   (queries/derive/pod_intervals.sql), which a batch now runs for every pod
--   it names: its versions, its Pod events, a controller's SuccessfulDelete
--   "Deleted pod: POD". So `requested_changed_since(run_id, after_obs_id)`
--   is also, for every pod the batch names, the earliest observed_at of the
--   newest version of each (namespace, name, uid) stored before the batch:
--   an interval the batch's events end or reopen, or that a newer version
--   of the batch ends at its own start instead of at older evidence, changes
--   there or later, never earlier. The
--   migration derives every version interval and the requested amounts
--   again (`after_migration`).
--   Also `kubelet_admission_refusal(reason, component)`: whether an Event
--   is the kubelet refusing a pod at admission (the pod is Failed and never
--   ran), one list for pod_rejections, refused_pods and refusal_loops.
-- params: none
-- columns: none (DDL)
CREATE OR REPLACE MACRO kubelet_admission_refusal(reason, component) AS
    (reason LIKE 'OutOf%'
     OR reason IN ('UnexpectedAdmissionError', 'UnexpectedPredicateFailureType', 'InvalidNodeInfo', 'NodeAffinity',
                   'NodeShutdown', 'PodOSNotSupported', 'PodOSSelectorNodeLabelDoesNotMatch', 'SysctlForbidden'))
    AND COALESCE(component, '') IN ('kubelet', '');
CREATE OR REPLACE MACRO requested_changed_since(run, after_obs) AS
    CASE WHEN run < 0 THEN '-infinity'::TIMESTAMP
         ELSE least(
             (SELECT min(observed_at) FROM pod_versions WHERE run_id = run AND obs_id > after_obs),
             (SELECT min(newest) FROM (
                 SELECT max(v.observed_at) AS newest
                 FROM pod_versions v
                 WHERE NOT (v.run_id = run AND v.obs_id > after_obs)
                   AND (v.namespace, v.name) IN (
                     SELECT namespace, name FROM pod_versions WHERE run_id = run AND obs_id > after_obs
                     UNION
                     SELECT involved_namespace, involved_name FROM event_versions
                     WHERE run_id = run AND obs_id > after_obs AND involved_kind = 'Pod'
                     UNION
                     SELECT involved_namespace, regexp_extract(message, '^Deleted pod: (\S+)', 1) FROM event_versions
                     WHERE run_id = run AND obs_id > after_obs AND reason = 'SuccessfulDelete'
                       AND message LIKE 'Deleted pod: %')
                 GROUP BY v.namespace, v.name, COALESCE(v.uid, '')))) END;
-- The drain moves kept under schema 17 stay fresh: they are computed from
-- the bindings, the eviction evidence and the node signals
-- (analyze/src/drains/kept.rs), none of which changes here.
UPDATE drain_moves_kept SET schema_version = 18 WHERE schema_version = 17;
