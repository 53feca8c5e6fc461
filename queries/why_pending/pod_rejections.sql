-- name: pod_rejections
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640-x7k2q');
-- purpose: The kubelet's admission rejections of one pod, oldest first: the
--   scheduler bound it, then the node's kubelet refused to run it and set it
--   Failed (`OutOfcpu`, `OutOfmemory`, `OutOf<resource>`: the node's
--   requests left no room for it by the kubelet's own count;
--   `UnexpectedAdmissionError`, `NodeAffinity`, `NodeShutdown`, …). The same
--   reasons as the `rejections` of pending_pods.sql.
-- params: $1 namespace VARCHAR, $2 name VARCHAR
-- columns: uid VARCHAR ('' when unknown), rejected_at TIMESTAMP, node VARCHAR (the kubelet's host, '' when unknown),
--   reason VARCHAR, message VARCHAR
SELECT COALESCE(involved_uid, '') AS uid, COALESCE(first_time, last_time) AS rejected_at,
       COALESCE(source_host, '') AS node, reason, COALESCE(message, '') AS message
FROM event_versions
WHERE involved_kind = 'Pod' AND involved_namespace = $1 AND involved_name = $2
  AND kubelet_admission_refusal(reason, reporting_component)
-- The `events` view's choice among this pod's versions only (reason and involved object never change).
QUALIFY row_number() OVER (PARTITION BY event_key
    ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
ORDER BY rejected_at, reason;
