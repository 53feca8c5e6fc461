-- name: scale_ups
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: The Deployment controller scaling a ReplicaSet up between two
--   instants (ScalingReplicaSet "Scaled up replica set X to N from M": a
--   rollout or a scale-up), oldest first: which pods a controller created
--   on purpose, as opposed to replacing evicted ones.
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, deployment VARCHAR, replica_set VARCHAR, occurred_at TIMESTAMP, message VARCHAR
SELECT involved_namespace AS namespace, involved_name AS deployment,
       regexp_extract(message, 'replica set (\S+)', 1) AS replica_set,
       first_time AS occurred_at, message
FROM (
    -- The `events` view's choice among ScalingReplicaSet versions only,
    -- kept apart by ingest (schema v13: `replica_set_scalings`; an Event's
    -- reason never changes between its versions): the view would window
    -- over every event version of the store first.
    SELECT * FROM replica_set_scalings
    QUALIFY row_number() OVER (PARTITION BY event_key
        ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
)
WHERE message LIKE 'Scaled up%'
  AND first_time >= make_timestamp($1) AND first_time <= make_timestamp($2)
ORDER BY occurred_at, namespace, deployment, message;
