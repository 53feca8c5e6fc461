-- name: refused_pods
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Pods the kubelet refused at admission (`OutOfcpu`, `OutOfmemory`,
--   …: the reasons of pod_rejections.sql) that had no FailedScheduling
--   event: the scheduler placed them at once, then the node's kubelet refused
--   to run them, so `pending_pods` does not list them. One row per pod: its
--   first refusal (its node and reason), oldest first.
-- params: none
-- columns: namespace VARCHAR, name VARCHAR, rejected_at TIMESTAMP, node VARCHAR (the kubelet's host, '' when
--   unknown), reason VARCHAR
WITH refused AS (
    SELECT involved_namespace AS namespace, involved_name AS name, COALESCE(first_time, last_time) AS rejected_at,
           COALESCE(source_host, '') AS node, reason
    FROM event_versions
    WHERE involved_kind = 'Pod'
      AND kubelet_admission_refusal(reason, reporting_component)
), failed AS (
    SELECT DISTINCT involved_namespace AS namespace, involved_name AS name
    FROM event_versions
    WHERE involved_kind = 'Pod' AND reason = 'FailedScheduling'
)
SELECT r.namespace, r.name, min(r.rejected_at) AS rejected_at, arg_min(r.node, r.rejected_at) AS node,
       arg_min(r.reason, r.rejected_at) AS reason
FROM refused r
ANTI JOIN failed f ON f.namespace = r.namespace AND f.name = r.name
GROUP BY r.namespace, r.name
ORDER BY rejected_at, r.namespace, r.name;
