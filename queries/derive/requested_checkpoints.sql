-- name: derive_requested_checkpoints
-- purpose: Writes the `requested_checkpoints` after the latest one left
--   (`requested_checkpoint_times`; from the beginning when none is): at
--   every `hour_after` of a later change, each node's sums of every change
--   up to it — the latest checkpoint's row plus the node's changes since, as
--   a running sum over the node's hours, taken at each new checkpoint (an
--   ASOF join, so that a node with no change in an hour keeps its row).
--   Nodes with nothing counted get no row. Nothing when the batch has no
--   pod version. Runs before `derive_requested_checkpoint_times`.
-- params: $1 run_id BIGINT (negative: every pod version), $2 after_obs_id BIGINT (only versions stored after it)
-- columns: none (inserts)
INSERT INTO requested_checkpoints
WITH since AS (SELECT requested_changed_since($1, $2) AS from_at),
latest AS (SELECT max(checkpoint_at) AS checkpoint_at FROM requested_checkpoint_times),
base AS (
    SELECT c.node, c.checkpoint_at AS hour, c.pods, c.cpu_millis, c.memory_bytes
    FROM requested_checkpoints c, latest
    WHERE c.checkpoint_at = latest.checkpoint_at
),
hourly AS (
    SELECT c.node, hour_after(c.changed_at) AS hour,
           sum(c.pods) AS pods, sum(c.cpu_millis) AS cpu_millis, sum(c.memory_bytes) AS memory_bytes
    FROM requested_changes c, latest, since
    WHERE since.from_at IS NOT NULL AND (latest.checkpoint_at IS NULL OR c.changed_at > latest.checkpoint_at)
    GROUP BY ALL
),
hours AS (SELECT DISTINCT hour FROM hourly),
running AS (
    SELECT node, hour,
           sum(pods) OVER w AS pods, sum(cpu_millis) OVER w AS cpu_millis, sum(memory_bytes) OVER w AS memory_bytes
    FROM (SELECT * FROM base UNION ALL SELECT * FROM hourly)
    WINDOW w AS (PARTITION BY node ORDER BY hour ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
nodes AS (SELECT DISTINCT node FROM running)
SELECT hours.hour, r.node, r.pods, r.cpu_millis, r.memory_bytes
FROM hours
CROSS JOIN nodes
ASOF JOIN running r ON r.node = nodes.node AND r.hour <= hours.hour
WHERE r.pods <> 0 OR r.cpu_millis <> 0 OR r.memory_bytes <> 0
ORDER BY hours.hour, r.node;
