-- name: requested_at_instants
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('1795928400000000,1795930000000000');
-- purpose: `requested_since_checkpoint` at several instants in one query
--   (the report's requested % series samples up to 5,000 instants: one
--   query per instant was most of `kdrift report`'s time). Per instant, its
--   checkpoint is the latest of `requested_checkpoint_times` at or before
--   it (an ASOF join), else an hour before the first checkpoint (before
--   every change), else, without checkpoints, the instant itself (no
--   change either): the rule `requested_since_checkpoint`'s caller applies.
--   The amounts are that checkpoint's rows plus the changes after it up to
--   the instant (a range join). Pods observed only after the instant and
--   resources other than cpu and memory are left to
--   `requested_extras_at_instants`. Nodes with nothing counted have no row.
-- params: $1 instants VARCHAR (comma-separated UTC microseconds; `kdrift query` also takes RFC 3339 times)
-- columns: at_us BIGINT (UTC microseconds), node VARCHAR, pods BIGINT, cpu_millis HUGEINT (millicores),
--   memory_bytes HUGEINT
WITH i AS (
    SELECT DISTINCT CAST(trim(s) AS BIGINT) AS at_us
    FROM (SELECT unnest(string_split($1, ',')) AS s)
    WHERE trim(s) <> ''
),
c AS (
    SELECT i.at_us, make_timestamp(i.at_us) AS at_ts,
           COALESCE(t.checkpoint_at,
                    (SELECT min(checkpoint_at) FROM requested_checkpoint_times) - INTERVAL 1 HOUR,
                    make_timestamp(i.at_us)) AS checkpoint_at
    FROM i ASOF LEFT JOIN requested_checkpoint_times t ON make_timestamp(i.at_us) >= t.checkpoint_at
),
x AS (
    SELECT c.at_us, k.node, k.pods, k.cpu_millis, k.memory_bytes
    FROM c JOIN requested_checkpoints k ON k.checkpoint_at = c.checkpoint_at
    UNION ALL
    SELECT c.at_us, ch.node, ch.pods, ch.cpu_millis, ch.memory_bytes
    FROM c JOIN requested_changes ch ON ch.changed_at > c.checkpoint_at AND ch.changed_at <= c.at_ts
)
SELECT at_us, node, sum(pods)::BIGINT AS pods, sum(cpu_millis) AS cpu_millis, sum(memory_bytes) AS memory_bytes
FROM x
GROUP BY at_us, node
HAVING sum(pods) <> 0
ORDER BY at_us, node;
