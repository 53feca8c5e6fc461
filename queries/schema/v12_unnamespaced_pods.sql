-- name: schema_v12_unnamespaced_pods
-- purpose: How many pod versions, and events about a pod, a store before
--   schema 12 keeps without the pod's namespace (''): migration 12 gives
--   them the namespace the pod is in and, when there are any, derives
--   every table keyed by pod again.
-- params: none
-- columns: versions BIGINT
SELECT (SELECT count(*) FROM pod_versions WHERE namespace = '')
     + (SELECT count(*) FROM event_versions WHERE involved_kind = 'Pod' AND COALESCE(involved_namespace, '') = '')
       AS versions;
