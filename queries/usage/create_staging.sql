-- name: usage_create_staging
-- purpose: Creates this connection's (TEMP) staging table of usage samples,
--   if missing: a window's samples are appended there, then moved into
--   `usage_samples` by `usage_fill_samples` and `usage_commit_samples`; and
--   the view `staged_usage` both read: one row per key (kind, object,
--   at_us, source; the object is the node of a node sample, namespace/pod of
--   a pod sample) with the first staged sample's names and, per measure
--   (cpu, memory), the first staged value that is not NULL.
-- params: none
-- columns: none (DDL)
CREATE TEMP TABLE IF NOT EXISTS staging_usage (
    kind          VARCHAR NOT NULL,
    node          VARCHAR,
    namespace     VARCHAR,
    pod           VARCHAR,
    at_us         BIGINT NOT NULL,      -- UTC µs
    cpu_millis    BIGINT,
    memory_bytes  BIGINT,
    source        VARCHAR NOT NULL
);

CREATE TEMP VIEW IF NOT EXISTS staged_usage AS
SELECT kind, object, at_us, source,
       first(node ORDER BY rowid) AS node,
       first(namespace ORDER BY rowid) AS namespace,
       first(pod ORDER BY rowid) AS pod,
       first(cpu_millis ORDER BY rowid) FILTER (WHERE cpu_millis IS NOT NULL) AS cpu_millis,
       first(memory_bytes ORDER BY rowid) FILTER (WHERE memory_bytes IS NOT NULL) AS memory_bytes
FROM (
    SELECT *, rowid, CASE WHEN kind = 'node' THEN node ELSE namespace || '/' || pod END AS object
    FROM staging_usage
)
GROUP BY kind, object, at_us, source;
