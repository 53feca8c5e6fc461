-- name: eviction_counts
-- access: read
-- cli: runs in the duckdb shell on the store file: PREPARE q AS <this file>; EXECUTE q(0, epoch_us(TIMESTAMP '2026-11-29 00:00:00'));
-- purpose: How much eviction evidence (the rows of `pod_evictions`) the
--   store holds between two instants, per kind of evidence: what `timeline
--   drains` reports when it finds no drain (evictions with no cordon,
--   NotReady or reboot of their node are no drain).
-- params: $1 since_us BIGINT (UTC microseconds), $2 until_us BIGINT (UTC microseconds)
-- columns: evidence VARCHAR, pods BIGINT (distinct namespace/name), first_at TIMESTAMP, last_at TIMESTAMP
SELECT evidence, count(DISTINCT (namespace, name)) AS pods, min(occurred_at) AS first_at, max(occurred_at) AS last_at
FROM eviction_evidence
WHERE occurred_at >= make_timestamp($1) AND occurred_at <= make_timestamp($2)
GROUP BY evidence
ORDER BY pods DESC, evidence;
