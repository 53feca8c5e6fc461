-- name: pod_placements
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: Every pod bound to a node between two instants, oldest binding
--   first: from the scheduler's Scheduled event ("Successfully assigned NS/POD
--   to NODE", its time) and from the first stored Pod version with
--   spec.nodeName (its PodScheduled condition's lastTransitionTime, else when
--   it was observed). The owner comes from the pod's ownerReferences, else
--   from the controller's SuccessfulCreate event ("Created pod: POD");
--   creation from metadata.creationTimestamp, else from that event.
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: namespace VARCHAR, name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR,
--   bound_at TIMESTAMP, owner_kind VARCHAR, owner_name VARCHAR, created_at TIMESTAMP,
--   known_from VARCHAR (event | object | both)
WITH scheduled AS (
    SELECT involved_namespace AS namespace, involved_name AS name, COALESCE(involved_uid, '') AS uid,
           regexp_extract(message, ' to (\S+)$', 1) AS node, first_time AS bound_at
    FROM (
        -- The `events` view's choice among Scheduled versions only.
        SELECT * FROM event_versions WHERE reason = 'Scheduled' AND involved_kind = 'Pod'
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    WHERE regexp_extract(message, ' to (\S+)$', 1) <> ''
),
first_bound AS (
    -- Each pod's first version with a node (only the columns used: the window carries them).
    SELECT p.namespace, p.name, p.uid, p.node_name, p.scheduled_at, p.observed_at, p.owner_kind, p.owner_name,
           p.created_at
    FROM pod_versions p
    WHERE p.node_name IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY p.namespace, p.name, COALESCE(p.uid, '') ORDER BY p.observed_at, p.obs_id) = 1
),
bound_versions AS (
    -- Bound when PodScheduled turned True (derived at ingest: `scheduled_at`), else when observed.
    SELECT p.namespace, p.name, COALESCE(p.uid, '') AS uid, p.node_name AS node,
           COALESCE(p.scheduled_at, p.observed_at) AS bound_at,
           p.owner_kind, p.owner_name, p.created_at
    FROM first_bound p
),
created AS (
    SELECT involved_namespace AS namespace, regexp_extract(message, '^Created pod: (\S+)', 1) AS name,
           involved_kind AS owner_kind, involved_name AS owner_name, min(first_time) AS created_at
    FROM (
        -- The `events` view's choice among SuccessfulCreate versions only.
        SELECT * FROM event_versions WHERE reason = 'SuccessfulCreate'
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    WHERE message LIKE 'Created pod: %'
    GROUP BY ALL
),
merged AS (
    SELECT COALESCE(v.namespace, s.namespace) AS namespace,
           COALESCE(v.name, s.name) AS name,
           COALESCE(NULLIF(v.uid, ''), s.uid, '') AS uid,
           COALESCE(s.node, v.node) AS node,
           COALESCE(s.bound_at, v.bound_at) AS bound_at,
           v.owner_kind AS v_owner_kind, v.owner_name AS v_owner_name, v.created_at AS v_created_at,
           CASE WHEN v.name IS NULL THEN 'event' WHEN s.name IS NULL THEN 'object' ELSE 'both' END AS known_from
    FROM bound_versions v
    FULL OUTER JOIN scheduled s
      ON s.namespace = v.namespace AND s.name = v.name AND (s.uid = v.uid OR s.uid = '' OR v.uid = '')
)
SELECT m.namespace, m.name, m.uid, m.node, m.bound_at,
       COALESCE(m.v_owner_kind, c.owner_kind) AS owner_kind,
       COALESCE(m.v_owner_name, c.owner_name) AS owner_name,
       COALESCE(m.v_created_at, c.created_at) AS created_at,
       m.known_from
FROM merged m
LEFT JOIN created c ON c.namespace = m.namespace AND c.name = m.name
WHERE m.bound_at >= make_timestamp($1) AND m.bound_at <= make_timestamp($2)
ORDER BY m.bound_at, m.namespace, m.name, m.uid, m.node;
