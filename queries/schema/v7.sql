-- name: schema_v7
-- purpose: Migrates a store from schema version 6 to 7. No table changes:
--   the order of object versions changes. Versions of one object observed
--   at the same instant (a watch file's versions, or a dump's whose change
--   touches no timestamp, share their estimated observed_at) were ordered by
--   obs_id, so that the order of ingest decided which was the latest (a
--   cordon and an uncordon at one instant; a DELETED version losing to an
--   older MODIFIED one, so that the pod stayed alive). From v7 every query
--   that orders or picks versions uses the version order: observed_at, then
--   resourceVersion as an integer (etcd revisions of one apiserver; missing
--   or not an integer sorts first), then obs_id (`derive_pod_intervals`).
--   This empties the tables derived in the old order — `pod_bindings` (a
--   pod's first bound version), `eviction_evidence` (its first
--   DisruptionTarget version) and `node_signals` (neighbouring Node
--   versions) — which the migration then fills again for every pod and node
--   (`derive_pod_bindings`, `derive_eviction_evidence`, `derive_node_signals`
--   with a negative run id), after setting every version interval again
--   (`derive_pod_intervals` / `derive_node_intervals`: `valid_until` and
--   `first_version`, what `pods_at` and `nodes_at` read). `event_versions`,
--   `pod_versions` and `node_versions` otherwise hold one row per
--   observation, each computed from that observation alone, and stay.
-- params: none
-- columns: none (deletes)
DELETE FROM pod_bindings;
DELETE FROM eviction_evidence;
DELETE FROM node_signals;
