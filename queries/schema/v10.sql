-- name: schema_v10
-- purpose: Migrates a store from schema version 9 to 10: what kube-scheduler's
--   filters read of an existing pod, kept per pod version, so that evaluating
--   one pending pod against the cluster at an instant (why-pending) reads a
--   few short columns per pod instead of parsing every pod's model: at 10M
--   events, 150,000 models read and parsed were most of a 1.3 s why-pending
--   (kdrift issue 6). The rule is the rebalance crate's `filter_fields`:
--   with the v4 columns (`usage_node`, `requests_*`), `labels` (the pod's
--   `metadata.labels` as a JSON object, NULL when it has none) and
--   `scheduling_terms` (true when the pod has host ports or an inter-pod
--   (anti-)affinity term: such a pod is read whole) are everything the filters
--   read of any other pod. Ingest computes both in Rust from the pod; this
--   migration fills the stored versions from their `model` text in SQL, where
--   `scheduling_terms` may be true for more pods than ingest would say (any
--   model text naming a hostPort, podAffinity or podAntiAffinity key; those
--   pods are then read whole, which gives the same answers). The drain
--   moves kept under schema 9 stay fresh: nothing they are matched from
--   changes here (else every upgraded store would match them again at its
--   next analysis until the next ingest).
-- params: none
-- columns: none (DDL)
ALTER TABLE staging_observations ADD COLUMN labels VARCHAR;
ALTER TABLE staging_observations ADD COLUMN scheduling_terms BOOLEAN;
ALTER TABLE pod_versions ADD COLUMN labels VARCHAR;
ALTER TABLE pod_versions ADD COLUMN scheduling_terms BOOLEAN;
UPDATE pod_versions
SET labels = CASE WHEN json_type(model, '$.metadata.labels') = 'OBJECT'
                       AND json_extract(model, '$.metadata.labels')::VARCHAR <> '{}'
                  THEN json_extract(model, '$.metadata.labels')::VARCHAR END,
    scheduling_terms = model IS NULL
        OR contains(model, '"hostPort"') OR contains(model, '"podAffinity"') OR contains(model, '"podAntiAffinity"');
UPDATE drain_moves_kept SET schema_version = 10 WHERE schema_version = 9;
