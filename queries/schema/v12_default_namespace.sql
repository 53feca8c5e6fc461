-- name: schema_v12_default_namespace
-- purpose: Migration 12, for a store with pod versions, or events about a
--   pod, kept without the pod's namespace: a pod is namespaced, so a
--   version stored without one is `default`'s (as the API server and the
--   cluster model read it, and as events about it name it), and an event
--   naming none is about the pod in the event's own namespace, else
--   `default`. Schema 11 and earlier read '' as `default` query by query,
--   and the bindings kept the two apart (a deleted pod came back as one
--   known from its Scheduled event). Indexes them by name under the new
--   namespace (migration 11 indexed them under '' when it ran on a
--   schema-10 store), then renames them; `Store::migrate` then derives
--   every table keyed by pod again and sorts the name index.
-- params: none
-- columns: none (DDL)
INSERT INTO name_index
SELECT 'default', name, obs_id FROM pod_versions WHERE namespace = ''
UNION ALL
SELECT COALESCE(NULLIF(namespace, ''), 'default'), involved_name, obs_id FROM event_versions
WHERE involved_kind = 'Pod' AND COALESCE(involved_namespace, '') = '' AND involved_name IS NOT NULL;
UPDATE pod_versions SET namespace = 'default' WHERE namespace = '';
UPDATE event_versions SET involved_namespace = COALESCE(NULLIF(namespace, ''), 'default')
WHERE involved_kind = 'Pod' AND COALESCE(involved_namespace, '') = '';
INSERT INTO pod_namespaces
SELECT 'default' WHERE 'default' NOT IN (SELECT namespace FROM pod_namespaces)
  AND EXISTS (SELECT 1 FROM pod_versions WHERE namespace = 'default');
