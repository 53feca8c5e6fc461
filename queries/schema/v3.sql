-- name: schema_v3
-- purpose: Migrates a store from schema version 2 to 3, so that the state at
--   an instant and the drain timeline read small columns instead of whole
--   objects (kdrift issue 6: 150,000 pods, millions of versions).
--   `pod_versions` and `node_versions` get `model` (and so does the staging
--   table that feeds them): the fields of each version that the cluster model
--   reads (`kdrift_rebalance::model_fields`: for a pod, metadata without
--   managedFields, requests, placement rules, volumes' sources, phase, QoS
--   class and the PodScheduled / DisruptionTarget conditions; for a node,
--   name, labels, spec, capacity, allocatable, conditions and nodeInfo), written at
--   ingest. `pod_versions` also gets `scheduled_at` (PodScheduled=True
--   lastTransitionTime), `disrupted_at` and `disruption` (DisruptionTarget=True:
--   lastTransitionTime, and "reason: message"). Versions stored before the
--   migration get their whole object as `model` (the model reads the same pod
--   or node from it) and the three columns from it.
-- params: none
-- columns: none (DDL)
ALTER TABLE staging_observations ADD COLUMN model VARCHAR;
ALTER TABLE pod_versions ADD COLUMN model VARCHAR;
ALTER TABLE pod_versions ADD COLUMN scheduled_at TIMESTAMP;
ALTER TABLE pod_versions ADD COLUMN disrupted_at TIMESTAMP;
ALTER TABLE pod_versions ADD COLUMN disruption VARCHAR;
ALTER TABLE node_versions ADD COLUMN model VARCHAR;
UPDATE pod_versions
SET model = CAST(o.object AS VARCHAR)
FROM observations o
WHERE o.obs_id = pod_versions.obs_id;
UPDATE pod_versions
SET scheduled_at = (
        SELECT k8s_time(c->>'lastTransitionTime')
        FROM (SELECT unnest(json_extract(pod_versions.model, '$.status.conditions[*]')) AS c)
        WHERE c->>'type' = 'PodScheduled' AND c->>'status' = 'True' LIMIT 1),
    disrupted_at = (
        SELECT k8s_time(c->>'lastTransitionTime')
        FROM (SELECT unnest(json_extract(pod_versions.model, '$.status.conditions[*]')) AS c)
        WHERE c->>'type' = 'DisruptionTarget' AND c->>'status' = 'True' LIMIT 1),
    disruption = (
        SELECT COALESCE(c->>'reason', '') || CASE WHEN c->>'message' IS NULL THEN '' ELSE ': ' || (c->>'message') END
        FROM (SELECT unnest(json_extract(pod_versions.model, '$.status.conditions[*]')) AS c)
        WHERE c->>'type' = 'DisruptionTarget' AND c->>'status' = 'True' LIMIT 1)
WHERE contains(pod_versions.model, 'PodScheduled') OR contains(pod_versions.model, 'DisruptionTarget');
UPDATE node_versions
SET model = CAST(o.object AS VARCHAR)
FROM observations o
WHERE o.obs_id = node_versions.obs_id;
