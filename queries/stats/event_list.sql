-- name: event_list
-- access: read
-- audience: user
-- cli: runs as it is in the duckdb shell on the store file (no parameters)
-- purpose: Every event as the store sees it now (each event's version with
--   the highest count, both event APIs normalised), in event_key order.
-- params: none
-- columns: event_key VARCHAR, namespace VARCHAR, name VARCHAR, uid VARCHAR, api_version VARCHAR,
--   type VARCHAR, reason VARCHAR, message VARCHAR, action VARCHAR, involved_kind VARCHAR,
--   involved_namespace VARCHAR, involved_name VARCHAR, involved_uid VARCHAR,
--   reporting_component VARCHAR, source_host VARCHAR, first_time TIMESTAMP, last_time TIMESTAMP, count BIGINT
SELECT event_key, namespace, name, uid, api_version, type, reason, message, action, involved_kind,
       involved_namespace, involved_name, involved_uid, reporting_component, source_host,
       first_time, last_time, count
FROM events
ORDER BY event_key;
