-- name: refusal_loops
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Controllers whose pods the kubelet refused at admission
--   (`OutOfcpu`, …: the reasons of pod_rejections.sql) again and again: a
--   create/refuse loop, where the ReplicaSet (Job, …) replaces each refused
--   pod and the scheduler binds the replacement to the same node. A pod
--   belongs to the controller of its namespace named as its name less the
--   last `-suffix` (a ReplicaSet's `RS-x7k2q`, a StatefulSet's `STS-0`) that
--   has SuccessfulCreate events (the events name the owner; the pods' own
--   objects are often not stored). One row per controller, node and reason
--   with at least 2 refused pods, most pods first.
-- params: none
-- columns: owner_kind VARCHAR, namespace VARCHAR, owner_name VARCHAR, node VARCHAR (the kubelet's host, '' when
--   unknown), reason VARCHAR, pods BIGINT, first_at TIMESTAMP (the first refusal), last_at TIMESTAMP (the last),
--   message VARCHAR (the last refusal's: `Node didn't have enough resource: cpu, requested: 500, used: 1775, …`)
WITH refused AS (
    SELECT involved_namespace AS namespace, involved_name AS name, COALESCE(first_time, last_time) AS refused_at,
           COALESCE(source_host, '') AS node, reason, COALESCE(message, '') AS message
    FROM event_versions
    WHERE involved_kind = 'Pod'
      AND kubelet_admission_refusal(reason, reporting_component)
), pods AS (
    SELECT namespace, name, regexp_extract(name, '^(.+)-[^-]+$', 1) AS owner_name, min(refused_at) AS first_at,
           max(refused_at) AS last_at, arg_min(node, refused_at) AS node, arg_min(reason, refused_at) AS reason,
           arg_max(message, refused_at) AS message
    FROM refused
    GROUP BY namespace, name
), controllers AS (
    SELECT DISTINCT involved_namespace AS namespace, involved_kind AS kind, involved_name AS name
    FROM event_versions
    WHERE reason = 'SuccessfulCreate'
      AND involved_kind IN ('ReplicaSet', 'ReplicationController', 'StatefulSet', 'DaemonSet', 'Job')
)
SELECT c.kind AS owner_kind, p.namespace, p.owner_name, p.node, p.reason, count(*) AS pods,
       min(p.first_at) AS first_at, max(p.last_at) AS last_at, arg_max(p.message, p.last_at) AS message
FROM pods p
JOIN controllers c ON c.namespace = p.namespace AND c.name = p.owner_name
GROUP BY c.kind, p.namespace, p.owner_name, p.node, p.reason
HAVING count(*) >= 2
ORDER BY pods DESC, first_at, p.namespace, p.owner_name;
