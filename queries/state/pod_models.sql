-- name: pod_models
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q('[1380, 1620]');
-- purpose: The whole model (`pod_versions.model`) of the given pod versions,
--   by obs_id (the ids `pod_filter_fields_at` returns): what why-pending
--   reads in full — the pods that query marks `whole`, then the pods on the
--   nodes it explains (their owners, creation and binding times). A list of
--   ids, not a filter on the instant: DuckDB then reads the model text of
--   those rows only (a filter on the instant read it for every pod live at
--   it, ~0.1 s at 1M events; kdrift issue 6).
-- params: $1 obs_ids VARCHAR (a JSON array of obs_ids)
-- columns: obs_id BIGINT, object VARCHAR (JSON text: `pod_versions.model`)
SELECT obs_id, model AS object
FROM pod_versions
WHERE obs_id IN (SELECT unnest(from_json($1, '["BIGINT"]')))
ORDER BY obs_id;
