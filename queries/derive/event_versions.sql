-- name: derive_event_versions
-- purpose: Normalises the Event versions of one run (or of its latest batch) (core/v1 and
--   events.k8s.io/v1, kubernetes-events.md §3) into `event_versions`.
--   Times: last = series.lastObservedTime → lastTimestamp → deprecatedLastTimestamp
--   → eventTime → firstTimestamp → creationTimestamp → observed_at;
--   first = firstTimestamp → deprecatedFirstTimestamp → eventTime → creationTimestamp → last.
--   Count: the largest of series.count, count, deprecatedCount; 0 or missing counts as 1;
--   clamped to 2147483647 (Kubernetes counts are int32; ingest rejects larger ones).
-- params: $1 run_id BIGINT, $2 after_obs_id BIGINT (only observations after it: one committed batch of a long run; 0 for all)
-- columns: none (inserts)
INSERT INTO event_versions
SELECT
    obs_id,
    run_id,
    observed_at,
    CASE WHEN name <> '' THEN namespace || '/' || name ELSE 'uid:' || COALESCE(uid, '') END,
    namespace,
    name,
    uid,
    api_version,
    object->>'$.type',
    object->>'$.reason',
    regexp_replace(COALESCE(object->>'$.message', object->>'$.note', ''),
                   '^\(combined from similar events\): ', ''),
    NULLIF(object->>'$.action', ''),
    COALESCE(object->>'$.involvedObject.kind', object->>'$.regarding.kind'),
    COALESCE(object->>'$.involvedObject.namespace', object->>'$.regarding.namespace', ''),
    COALESCE(object->>'$.involvedObject.name', object->>'$.regarding.name'),
    NULLIF(COALESCE(object->>'$.involvedObject.uid', object->>'$.regarding.uid'), ''),
    COALESCE(NULLIF(object->>'$.reportingComponent', ''), NULLIF(object->>'$.reportingController', ''),
             NULLIF(object->>'$.source.component', ''), NULLIF(object->>'$.deprecatedSource.component', '')),
    COALESCE(NULLIF(object->>'$.source.host', ''), NULLIF(object->>'$.deprecatedSource.host', '')),
    COALESCE(k8s_time(object->>'$.firstTimestamp'),
             k8s_time(object->>'$.deprecatedFirstTimestamp'),
             k8s_time(object->>'$.eventTime'),
             k8s_time(object->>'$.metadata.creationTimestamp'),
             k8s_time(object->>'$.series.lastObservedTime'),
             k8s_time(object->>'$.lastTimestamp'),
             observed_at),
    COALESCE(k8s_time(object->>'$.series.lastObservedTime'),
             k8s_time(object->>'$.lastTimestamp'),
             k8s_time(object->>'$.deprecatedLastTimestamp'),
             k8s_time(object->>'$.eventTime'),
             k8s_time(object->>'$.firstTimestamp'),
             k8s_time(object->>'$.metadata.creationTimestamp'),
             observed_at),
    least(2147483647, greatest(1,
             COALESCE(TRY_CAST(object->>'$.series.count' AS BIGINT), 0),
             COALESCE(TRY_CAST(object->>'$.count' AS BIGINT), 0),
             COALESCE(TRY_CAST(object->>'$.deprecatedCount' AS BIGINT), 0)))
FROM observations
WHERE run_id = $1 AND obs_id > $2 AND kind = 'Event';
