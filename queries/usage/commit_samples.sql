-- name: usage_commit_samples
-- purpose: Moves the staged usage samples whose key (kind, object, sampled_at,
--   source; the object is the node of a node sample, namespace/pod of a pod
--   sample) is not stored yet into `usage_samples` for run $1, one row per
--   key (`staged_usage`: the first staged sample's names and, per measure,
--   the first staged value that is not NULL). A stored key is not added again: its NULL
--   measures are filled by `usage_fill_samples` (run first, in the same
--   transaction). $2 and $3 bound the staged instants so that the check
--   reads only the stored row groups of that range. Returns the rows added.
-- params: $1 run_id BIGINT, $2 first_at_us BIGINT (UTC µs), $3 last_at_us BIGINT (UTC µs)
-- columns: none
INSERT INTO usage_samples
SELECT s.kind, s.node, s.namespace, s.pod, make_timestamp(s.at_us), s.cpu_millis, s.memory_bytes, s.source, $1
FROM staged_usage s
ANTI JOIN (
    SELECT kind, CASE WHEN kind = 'node' THEN node ELSE namespace || '/' || pod END AS object, sampled_at, source
    FROM usage_samples
    WHERE sampled_at BETWEEN make_timestamp($2) AND make_timestamp($3)
) u ON u.kind = s.kind AND u.object = s.object AND u.sampled_at = make_timestamp(s.at_us) AND u.source = s.source
ORDER BY s.at_us, s.kind, s.object;
