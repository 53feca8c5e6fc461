-- name: job_pods
-- access: read
-- audience: user
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('media', 'backup-29930640', 0);
-- purpose: The pods of one Job, from every evidence the store still has:
--   ownerReferences; the Job's "Created pod: X" (SuccessfulCreate) and
--   "Deleted pod: X" (SuccessfulDelete) events; and events about pods named
--   <job>-<suffix>, the Job controller's name for its pods (generateName
--   <job>- plus the API server's 5 characters from "bcdfghjklmnpqrstvwxz2456789",
--   k8s.io/apimachinery/pkg/util/rand), in the Job's namespace, at or after
--   the Job's creation ($3; 0 when unknown) — a CronJob's other runs are
--   other Jobs, <cronjob>-<minutes>, so their pods never match. Each with
--   its latest stored version (the last in the version order: observed_at,
--   then resourceVersion as an integer, then obs_id; NULL when known only
--   from events), the node it was ever bound to (spec.nodeName or its
--   Scheduled event), and what found it, oldest first.
-- params: $1 namespace VARCHAR, $2 job VARCHAR, $3 since_us BIGINT (UTC microseconds: the Job's creation; 0 when unknown)
-- columns: name VARCHAR, uid VARCHAR ('' when unknown), node VARCHAR (NULL: never bound),
--   created_at TIMESTAMP, observed_at TIMESTAMP (NULL: no object), change VARCHAR, object JSON,
--   found_by VARCHAR (comma-separated: owner, created-event, deleted-event, pod-events)
WITH job_events AS (
    -- The `events` view's choice among these events' versions only (reason
    -- and involved object never change between versions; the view
    -- windows over every event version of the store first).
    SELECT * FROM event_versions WHERE involved_kind = 'Job' AND involved_namespace = $1 AND involved_name = $2
      AND reason IN ('SuccessfulCreate', 'SuccessfulDelete')
    QUALIFY row_number() OVER (PARTITION BY event_key
        ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
),
named AS (
    SELECT regexp_extract(message, '^Created pod: (\S+)', 1) AS name, min(COALESCE(first_time, last_time)) AS created_at,
           'created-event' AS found_by
    FROM job_events WHERE reason = 'SuccessfulCreate' AND message LIKE 'Created pod: %'
    GROUP BY ALL
    UNION ALL
    SELECT regexp_extract(message, '^Deleted pod: (\S+)', 1), NULL, 'deleted-event'
    FROM job_events WHERE reason = 'SuccessfulDelete' AND message LIKE 'Deleted pod: %'
    GROUP BY ALL
    UNION ALL
    SELECT involved_name, min(COALESCE(first_time, last_time)), 'pod-events'
    FROM event_versions
    WHERE involved_kind = 'Pod' AND involved_namespace = $1
      AND starts_with(involved_name, $2 || '-')
      AND regexp_full_match(substr(involved_name, length($2) + 2), '[bcdfghjklmnpqrstvwxz2456789]{5}')
      AND COALESCE(last_time, observed_at) >= make_timestamp($3)
    GROUP BY ALL
),
versions AS (
    SELECT p.name, COALESCE(p.uid, '') AS uid, p.node_name, p.created_at, p.observed_at, p.change, p.obs_id,
           p.resource_version, p.owner_kind = 'Job' AND p.owner_name = $2 AS owned
    FROM pod_versions p
    WHERE p.namespace = $1 AND ((p.owner_kind = 'Job' AND p.owner_name = $2)
        -- A pod object without ownerReferences (a pasted manifest) that the events name.
        OR (p.owner_kind IS NULL AND p.name IN (SELECT name FROM named)))
),
latest AS (
    SELECT v.name, v.uid, v.created_at, v.observed_at, v.change, o.object,
           (SELECT max(x.node_name) FROM versions x WHERE x.name = v.name AND x.uid = v.uid) AS node,
           (SELECT bool_or(x.owned) FROM versions x WHERE x.name = v.name AND x.uid = v.uid) AS owned
    FROM versions v
    JOIN observations o ON o.obs_id = v.obs_id
    QUALIFY row_number() OVER (PARTITION BY v.name, v.uid
        ORDER BY v.observed_at DESC, TRY_CAST(v.resource_version AS HUGEINT) DESC NULLS LAST, v.obs_id DESC) = 1
),
created AS (
    SELECT name, min(created_at) AS created_at, string_agg(DISTINCT found_by, ',' ORDER BY found_by) AS found_by
    FROM named
    WHERE name <> ''
      -- Not a pod whose stored object another controller owns (a DaemonSet's pods share the name form).
      AND NOT EXISTS (SELECT 1 FROM pod_versions p WHERE p.namespace = $1 AND p.name = named.name
                      AND p.owner_kind IS NOT NULL AND NOT (p.owner_kind = 'Job' AND p.owner_name = $2))
    GROUP BY name
),
merged AS (
    SELECT COALESCE(l.name, c.name) AS name, COALESCE(l.uid, '') AS uid, l.node,
           COALESCE(l.created_at, c.created_at) AS created_at, l.observed_at, l.change, l.object,
           concat_ws(',', CASE WHEN l.owned THEN 'owner' END, c.found_by) AS found_by
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
SELECT m.name, m.uid, COALESCE(m.node, NULLIF(s.node, '')) AS node, m.created_at, m.observed_at, m.change, m.object,
       m.found_by
FROM merged m
LEFT JOIN scheduled s ON s.name = m.name
ORDER BY m.created_at NULLS LAST, m.name, m.uid;
