-- name: requested_since_checkpoint
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(1795928400000000, 1795930000000000);
-- purpose: Per node, what the pod versions observed at or before an instant
--   add to its requested amounts (what `requested_by_node` counts for them,
--   schema v8): the checkpoint at $1 plus the changes after it up to $2.
--   $1 must be the latest of `requested_checkpoint_times` at or before $2,
--   or, when there is none, any instant before every change (both bounds are
--   plain ranges DuckDB prunes row groups with). Pods observed only after
--   the instant (estimated) and requested resources other than cpu and
--   memory are not here: `requested_extras_at`. Nodes with nothing counted
--   have no row.
-- params: $1 checkpoint_us BIGINT (UTC microseconds), $2 at_us BIGINT (UTC microseconds)
-- columns: node VARCHAR, pods BIGINT, cpu_millis HUGEINT (millicores), memory_bytes HUGEINT
SELECT node, sum(pods)::BIGINT AS pods, sum(cpu_millis) AS cpu_millis, sum(memory_bytes) AS memory_bytes
FROM (
    SELECT node, pods, cpu_millis, memory_bytes
    FROM requested_checkpoints
    WHERE checkpoint_at = make_timestamp($1)
    UNION ALL
    SELECT node, pods, cpu_millis, memory_bytes
    FROM requested_changes
    WHERE changed_at > make_timestamp($1) AND changed_at <= make_timestamp($2)
)
GROUP BY node
HAVING sum(pods) <> 0
ORDER BY node;
