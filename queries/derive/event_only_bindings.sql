-- name: derive_event_only_bindings
-- purpose: Rewrites `event_only_bindings` (schema v4): every binding of a pod
--   to a node that the store knows only from the scheduler's Scheduled event
--   ("Successfully assigned NS/POD to NODE"): no stored Pod version with a
--   node matches it (same namespace and name, same uid when both have one).
--   The owner comes from the controller's SuccessfulCreate event ("Created
--   pod: POD"). Depends on the whole store (a Pod version ingested later
--   removes a binding), so it is rewritten after each committed batch that
--   added versions; `event_only_placements` reads it at an instant.
-- params: none
-- columns: none (rewrites a table)
DELETE FROM event_only_bindings;
INSERT INTO event_only_bindings
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
bound_pods AS (
    -- Pods with a stored version on a node: their placement comes from the object.
    SELECT DISTINCT namespace, name, COALESCE(uid, '') AS uid
    FROM pod_versions
    WHERE node_name IS NOT NULL
),
event_only AS (
    SELECT s.*
    FROM scheduled s
    WHERE NOT EXISTS (
        SELECT 1 FROM bound_pods b
        WHERE b.namespace = s.namespace AND b.name = s.name AND (b.uid = s.uid OR s.uid = '' OR b.uid = '')
    )
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
)
SELECT e.namespace, e.name, e.uid, e.node, e.bound_at, c.owner_kind, c.owner_name, c.created_at
FROM event_only e
LEFT JOIN created c ON c.namespace = e.namespace AND c.name = e.name;
