-- name: jobs
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup');
-- purpose: The Jobs a name stands for in a namespace: the Job of that name,
--   or the Jobs a CronJob of that name created (ownerReferences, or its
--   "Created job X" events when the Job objects are gone), each with its
--   latest stored version (the last in the version order: observed_at, then
--   resourceVersion as an integer, then obs_id; NULL when known only from
--   events), oldest first.
-- params: $1 namespace VARCHAR, $2 name VARCHAR
-- columns: name VARCHAR, uid VARCHAR ('' when unknown), owner_kind VARCHAR, owner_name VARCHAR,
--   created_at TIMESTAMP, observed_at TIMESTAMP (NULL: no object), change VARCHAR, object JSON
WITH latest AS (
    SELECT o.name, COALESCE(o.uid, '') AS uid,
           o.object->>'$.metadata.ownerReferences[0].kind' AS owner_kind,
           o.object->>'$.metadata.ownerReferences[0].name' AS owner_name,
           k8s_time(o.object->>'$.metadata.creationTimestamp') AS created_at,
           o.observed_at, o.change, o.object
    FROM observations o
    WHERE o.kind = 'Job' AND o.namespace = $1
      AND (o.name = $2 OR (o.object->>'$.metadata.ownerReferences[0].kind' = 'CronJob'
                           AND o.object->>'$.metadata.ownerReferences[0].name' = $2))
    QUALIFY row_number() OVER (PARTITION BY o.name
        ORDER BY o.observed_at DESC, TRY_CAST(o.resource_version AS HUGEINT) DESC NULLS LAST, o.obs_id DESC) = 1
),
from_events AS (
    SELECT regexp_extract(message, '^Created job (\S+)', 1) AS name, 'CronJob' AS owner_kind, $2 AS owner_name,
           min(first_time) AS created_at
    FROM (
        -- The `events` view's choice among these events' versions only (reason
        -- and involved object never change between versions; the view
        -- windows over every event version of the store first).
        SELECT * FROM event_versions WHERE involved_kind = 'CronJob' AND involved_namespace = $1 AND involved_name = $2
          AND reason = 'SuccessfulCreate'
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    WHERE message LIKE 'Created job %'
    GROUP BY ALL
    UNION ALL
    SELECT involved_name, NULL, NULL, min(first_time)
    FROM (
        -- The `events` view's choice among these events' versions only (reason
        -- and involved object never change between versions; the view
        -- windows over every event version of the store first).
        SELECT * FROM event_versions WHERE involved_kind = 'Job' AND involved_namespace = $1 AND involved_name = $2
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    GROUP BY ALL
),
named AS (
    SELECT name, any_value(owner_kind) AS owner_kind, any_value(owner_name) AS owner_name, min(created_at) AS created_at
    FROM from_events
    WHERE name <> ''
    GROUP BY name
)
SELECT COALESCE(l.name, e.name) AS name, COALESCE(l.uid, '') AS uid,
       COALESCE(l.owner_kind, e.owner_kind) AS owner_kind, COALESCE(l.owner_name, e.owner_name) AS owner_name,
       COALESCE(l.created_at, e.created_at) AS created_at, l.observed_at, l.change, l.object
FROM latest l
FULL OUTER JOIN named e ON e.name = l.name
ORDER BY created_at NULLS LAST, name;
