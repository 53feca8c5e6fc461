-- name: requested_changes
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(since_us, until_us);
-- purpose: The instants after since and up to until at which a node's
--   requested amounts can change, oldest first: a stored pod starting or
--   stopping to count toward a node with a net change (the derived
--   `requested_changes` rows the amounts are summed from: a binding, a
--   deletion, new requests; a Pod version that changes nothing, such as a
--   status update, is not one), a Node version observed (allocatable,
--   readiness, cordon), a pod's Scheduled event (a binding known from events
--   only) and the events that stop a pod (Killing, Evicted, Preempted). The
--   sampling points of the requested % charts of `kdrift report`.
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: changed_at TIMESTAMP
WITH changes AS (
    SELECT changed_at AS instant FROM requested_changes
    UNION ALL
    SELECT observed_at FROM node_versions
    UNION ALL
    SELECT COALESCE(first_time, last_time) FROM event_versions
    WHERE involved_kind = 'Pod' AND reason IN ('Scheduled', 'Killing', 'Evicted', 'Preempted')
)
SELECT DISTINCT instant AS changed_at
FROM changes
WHERE instant > make_timestamp($1) AND instant <= make_timestamp($2)
ORDER BY changed_at;
