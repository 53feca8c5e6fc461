-- name: job_pods
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640');
-- purpose: The pods of one Job (ownerReferences, or the Job's "Created pod: X"
--   events), each with its latest stored version (the last in the version
--   order: observed_at, then resourceVersion as an integer, then obs_id;
--   NULL when known only from events), the node it was ever bound to
--   (spec.nodeName or its Scheduled event), oldest first.
-- params: $1 namespace VARCHAR, $2 job VARCHAR
-- columns: name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR (NULL: never bound),
--   created_at TIMESTAMP, observed_at TIMESTAMP (NULL: no object), change VARCHAR, object JSON
WITH versions AS (
    SELECT p.name, COALESCE(p.uid, '') AS uid, p.node_name, p.created_at, p.observed_at, p.change, p.obs_id,
           p.resource_version
    FROM pod_versions p
    WHERE p.namespace = $1 AND p.owner_kind = 'Job' AND p.owner_name = $2
),
latest AS (
    SELECT v.name, v.uid, v.created_at, v.observed_at, v.change, o.object,
           (SELECT max(x.node_name) FROM versions x WHERE x.name = v.name AND x.uid = v.uid) AS node
    FROM versions v
    JOIN observations o ON o.obs_id = v.obs_id
    QUALIFY row_number() OVER (PARTITION BY v.name, v.uid
        ORDER BY v.observed_at DESC, TRY_CAST(v.resource_version AS HUGEINT) DESC NULLS LAST, v.obs_id DESC) = 1
),
created AS (
    SELECT regexp_extract(message, '^Created pod: (\S+)', 1) AS name, min(first_time) AS created_at
    FROM (
        -- The `events` view's choice among these events' versions only (reason
        -- and involved object never change between versions; the view
        -- windows over every event version of the store first).
        SELECT * FROM event_versions WHERE involved_kind = 'Job' AND involved_namespace = $1 AND involved_name = $2
          AND reason = 'SuccessfulCreate'
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    WHERE message LIKE 'Created pod: %'
    GROUP BY ALL
),
merged AS (
    SELECT COALESCE(l.name, c.name) AS name, COALESCE(l.uid, '') AS uid, l.node,
           COALESCE(l.created_at, c.created_at) AS created_at, l.observed_at, l.change, l.object
    FROM latest l
    FULL OUTER JOIN created c ON c.name = l.name
),
scheduled AS (
    SELECT involved_name AS name, any_value(regexp_extract(message, ' to (\S+)$', 1)) AS node
    FROM (
        -- The `events` view's choice among these events' versions only (reason
        -- and involved object never change between versions; the view
        -- windows over every event version of the store first).
        SELECT * FROM event_versions WHERE reason = 'Scheduled' AND involved_kind = 'Pod' AND involved_namespace = $1
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    GROUP BY ALL
)
SELECT m.name, m.uid, COALESCE(m.node, NULLIF(s.node, '')) AS node, m.created_at, m.observed_at, m.change, m.object
FROM merged m
LEFT JOIN scheduled s ON s.name = m.name
ORDER BY m.created_at NULLS LAST, m.name, m.uid;
