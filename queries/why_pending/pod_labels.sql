-- name: pod_labels
-- access: read
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Every stored pod's labels (`metadata.labels` of its latest
--   version, by observed_at, by namespace and name; pods without labels
--   are left out): what `-l SELECTOR` on `why-pending --all`, `timeline
--   drains` and `skew --usage` matches.
-- params: none
-- columns: namespace VARCHAR, name VARCHAR, labels VARCHAR (a JSON object)
SELECT namespace, name, labels
FROM pod_versions
QUALIFY row_number() OVER (PARTITION BY namespace, name ORDER BY observed_at DESC, obs_id DESC) = 1
    AND labels IS NOT NULL
ORDER BY namespace, name;
