-- name: derive_event_versions
-- purpose: Normalises the Event versions of one run (or of its latest batch) (core/v1 and
--   events.k8s.io/v1, kubernetes-events.md §3) into `event_versions`.
--   Times: last = series.lastObservedTime → lastTimestamp → deprecatedLastTimestamp
--   → eventTime → firstTimestamp → creationTimestamp → observed_at;
--   first = firstTimestamp → deprecatedFirstTimestamp → eventTime → creationTimestamp → last.
--   Each time field is already UTC text (`event_time` in queries/src/fields.rs: NULL
--   for Go's zero time and Unix time 0, which mean unset); a time before 1970 or
--   after tomorrow is kept as given and flagged (`run_implausible_times`), never
--   replaced by the next one in the list (break-it 41 G7).
--   Involved namespace: the object's; for a Pod that names none, the event's own namespace, else `default`.
--   Count: the largest of series.count, count, deprecatedCount; 0 or missing counts as 1;
--   clamped to 2147483647 (Kubernetes counts are int32; ingest rejects larger ones).
--   The fields are the staged row's `fields` (queries/src/fields.rs: the 29
--   paths, in order, as json_extract_string reads them), taken out in Rust
--   as the event was staged: the object is never parsed here (issue 39: its
--   parse held several times an Event of 16 MiB in DuckDB's memory, past a
--   128 MiB limit). One `->>` per field had parsed it 35 times a row.
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
    f[1],
    f[2],
    regexp_replace(COALESCE(f[3], f[4], ''), '^\(combined from similar events\): ', ''),
    NULLIF(f[5], ''),
    COALESCE(f[6], f[7]),
    -- A pod is namespaced: an event naming none for it is about the pod in
    -- the event's own namespace (where the kubelet and the scheduler record
    -- it), else `default` (schema v12).
    CASE WHEN COALESCE(f[8], f[9], '') = '' AND COALESCE(f[6], f[7]) = 'Pod'
         THEN COALESCE(NULLIF(namespace, ''), 'default')
         ELSE COALESCE(f[8], f[9], '') END,
    COALESCE(f[10], f[11]),
    NULLIF(COALESCE(f[12], f[13]), ''),
    COALESCE(NULLIF(f[14], ''), NULLIF(f[15], ''), NULLIF(f[16], ''), NULLIF(f[17], '')),
    COALESCE(NULLIF(f[18], ''), NULLIF(f[19], '')),
    COALESCE(TRY_CAST(f[20] AS TIMESTAMP), TRY_CAST(f[21] AS TIMESTAMP), TRY_CAST(f[22] AS TIMESTAMP),
             TRY_CAST(f[23] AS TIMESTAMP), TRY_CAST(f[24] AS TIMESTAMP), TRY_CAST(f[25] AS TIMESTAMP), observed_at),
    COALESCE(TRY_CAST(f[24] AS TIMESTAMP), TRY_CAST(f[25] AS TIMESTAMP), TRY_CAST(f[26] AS TIMESTAMP),
             TRY_CAST(f[22] AS TIMESTAMP), TRY_CAST(f[20] AS TIMESTAMP), TRY_CAST(f[23] AS TIMESTAMP), observed_at),
    least(2147483647, greatest(1,
             COALESCE(TRY_CAST(f[27] AS BIGINT), 0),
             COALESCE(TRY_CAST(f[28] AS BIGINT), 0),
             COALESCE(TRY_CAST(f[29] AS BIGINT), 0)))
FROM (
    -- The versions this batch stores, straight from the staging table
    -- (numbered by `number_staged`; none before `$2`).
    SELECT obs_id, $1 AS run_id, make_timestamp(observed_at_us) AS observed_at, namespace, name, uid,
           api_version, fields AS f
    FROM staging_observations
    WHERE obs_id IS NOT NULL AND obs_id > $2 AND kind = 'Event'
);
