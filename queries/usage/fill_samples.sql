-- name: usage_fill_samples
-- purpose: Fills the NULL measures of stored usage samples from the staged
--   samples of the same key (kind, object, sampled_at, source; the object is
--   the node of a node sample, namespace/pod of a pod sample): a range pulled
--   again with a query added (memory after cpu alone) stores the new
--   measure's values in the rows already there. Only a NULL cpu_millis or
--   memory_bytes is set — a stored value is never changed (the first stored
--   wins, as for a key stored twice) — and the row keeps its names, source
--   and run. Staged samples repeating a key are one (`staged_usage`: per
--   measure the first staged value that is not NULL). $1 and $2 bound the staged instants so that
--   only the stored row groups of that range are read. Returns the rows
--   filled (each counts as a sample added).
-- params: $1 first_at_us BIGINT (UTC µs), $2 last_at_us BIGINT (UTC µs)
-- columns: none
UPDATE usage_samples AS u
SET cpu_millis = COALESCE(u.cpu_millis, s.cpu_millis),
    memory_bytes = COALESCE(u.memory_bytes, s.memory_bytes)
FROM (SELECT kind, object, make_timestamp(at_us) AS sampled_at, source, cpu_millis, memory_bytes FROM staged_usage) s
WHERE u.sampled_at BETWEEN make_timestamp($1) AND make_timestamp($2)
  AND u.sampled_at = s.sampled_at AND u.kind = s.kind AND u.source = s.source
  AND s.object = CASE WHEN u.kind = 'node' THEN u.node ELSE u.namespace || '/' || u.pod END
  AND ((u.cpu_millis IS NULL AND s.cpu_millis IS NOT NULL) OR (u.memory_bytes IS NULL AND s.memory_bytes IS NOT NULL));
