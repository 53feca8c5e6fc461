-- name: derive_event_only_bindings
-- purpose: Rewrites the rows of `event_only_bindings` (schema v4) of the pods
--   one committed batch names (or of every pod when $1 is negative: a
--   migration): every binding of a pod to a node that the store knows only
--   from the scheduler's Scheduled event ("Successfully assigned NS/POD to
--   NODE"): no stored Pod version with a node matches it (same namespace and
--   name, same uid when both have one). The owner comes from the
--   controller's SuccessfulCreate event ("Created pod: POD"). A binding
--   depends only on its pod's Scheduled and SuccessfulCreate events and
--   bound Pod versions, so a batch changes the bindings of the pods it names
--   and no other; `clear_event_only_bindings` first removes those pods' rows.
--   `event_only_placements` reads the table at an instant.
-- params: $1 run_id BIGINT (negative: every pod), $2 after_obs_id BIGINT (only pods named after it)
-- columns: none (inserts)
INSERT INTO event_only_bindings
WITH touched AS (
    -- The pods this batch names: by a Scheduled or SuccessfulCreate event, or a bound version.
    SELECT involved_namespace AS namespace, involved_name AS name
    FROM event_versions
    WHERE run_id = $1 AND obs_id > $2 AND reason = 'Scheduled' AND involved_kind = 'Pod'
    UNION
    SELECT involved_namespace, regexp_extract(message, '^Created pod: (\S+)', 1)
    FROM event_versions
    WHERE run_id = $1 AND obs_id > $2 AND reason = 'SuccessfulCreate' AND message LIKE 'Created pod: %'
    UNION
    SELECT namespace, name FROM pod_versions WHERE run_id = $1 AND obs_id > $2 AND node_name IS NOT NULL
),
scheduled AS (
    SELECT involved_namespace AS namespace, involved_name AS name, COALESCE(involved_uid, '') AS uid,
           regexp_extract(message, ' to (\S+)$', 1) AS node, first_time AS bound_at
    FROM (
        -- The `events` view's choice among Scheduled versions only.
        SELECT * FROM event_versions
        WHERE reason = 'Scheduled' AND involved_kind = 'Pod'
          AND ($1 < 0 OR (involved_namespace, involved_name) IN (SELECT namespace, name FROM touched))
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
      AND ($1 < 0 OR (namespace, name) IN (SELECT namespace, name FROM touched))
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
        SELECT * FROM event_versions
        WHERE reason = 'SuccessfulCreate'
          AND ($1 < 0 OR (involved_namespace, regexp_extract(message, '^Created pod: (\S+)', 1))
                          IN (SELECT namespace, name FROM touched))
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    WHERE message LIKE 'Created pod: %'
    GROUP BY ALL
)
SELECT e.namespace, e.name, e.uid, e.node, e.bound_at, c.owner_kind, c.owner_name, c.created_at
FROM event_only e
LEFT JOIN created c ON c.namespace = e.namespace AND c.name = e.name;
