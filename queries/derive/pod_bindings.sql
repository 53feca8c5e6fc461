-- name: derive_pod_bindings
-- purpose: Writes the `pod_bindings` rows (schema v5) of the pods one
--   committed batch names (`batch_pods`; every pod when $1 is negative: a
--   migration): every binding of a pod to a node, from the scheduler's
--   Scheduled event ("Successfully assigned NS/POD to NODE", its time) and
--   from the first stored Pod version with spec.nodeName in the version
--   order (observed_at, then resourceVersion as an integer, then obs_id; as
--   `derive_pod_intervals`), bound at its PodScheduled condition's
--   lastTransitionTime, else when it was observed, matched by
--   namespace, name and uid (when both have one). The owner comes from the
--   pod's ownerReferences, else from the controller's SuccessfulCreate event
--   ("Created pod: POD"); creation from metadata.creationTimestamp, else
--   from that event. A binding depends only on its pod's rows, so a batch
--   changes the bindings of the pods it names and no other;
--   `clear_pod_bindings` first removes those pods' rows. `pod_placements`
--   and `event_only_placements` read the table.
-- params: $1 run_id BIGINT (negative: every pod), $2 after_obs_id BIGINT (only pods named after it)
-- columns: none (inserts)
INSERT INTO pod_bindings
WITH touched AS (
    SELECT namespace, name FROM batch_pods($1, $2)
),
scheduled AS (
    SELECT involved_namespace AS namespace, involved_name AS name, COALESCE(involved_uid, '') AS uid,
           regexp_extract(message, ' to (\S+)$', 1) AS node, first_time AS bound_at
    FROM (
        -- The `events` view's choice among Scheduled versions only.
        SELECT * FROM event_versions
        WHERE reason = 'Scheduled' AND involved_kind = 'Pod'
          -- An event naming no pod binds none (and no batch could clear its row).
          AND involved_name IS NOT NULL AND involved_namespace IS NOT NULL
          AND ($1 < 0 OR (involved_namespace, involved_name) IN (SELECT namespace, name FROM touched))
        QUALIFY row_number() OVER (PARTITION BY event_key
            ORDER BY count DESC, last_time DESC, observed_at DESC, obs_id DESC) = 1
    )
    WHERE regexp_extract(message, ' to (\S+)$', 1) <> ''
),
bound_versions AS (
    -- Each pod's first version with a node, bound when PodScheduled turned
    -- True (derived at ingest: `scheduled_at`), else when observed.
    SELECT p.namespace, p.name, COALESCE(p.uid, '') AS uid, p.node_name AS node,
           COALESCE(p.scheduled_at, p.observed_at) AS bound_at, p.owner_kind, p.owner_name, p.created_at
    FROM pod_versions p
    WHERE p.node_name IS NOT NULL
      AND ($1 < 0 OR (p.namespace, p.name) IN (SELECT namespace, name FROM touched))
    QUALIFY row_number() OVER (PARTITION BY p.namespace, p.name, COALESCE(p.uid, '')
        ORDER BY p.observed_at, TRY_CAST(p.resource_version AS HUGEINT) NULLS FIRST, p.obs_id) = 1
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
-- Once each: the same binding named by two Scheduled events (a kubectl dump
-- and a VictoriaLogs pull of one event under two names, one without the
-- pod's uid) joins the pod's version twice (break-it trial: one
-- replacement matched to two evicted pods).
SELECT DISTINCT m.namespace, m.name, m.uid, m.node, m.bound_at,
       COALESCE(m.v_owner_kind, c.owner_kind) AS owner_kind,
       COALESCE(m.v_owner_name, c.owner_name) AS owner_name,
       COALESCE(m.v_created_at, c.created_at) AS created_at,
       m.known_from
FROM merged m
LEFT JOIN created c ON c.namespace = m.namespace AND c.name = m.name;
