-- name: schema_v16
-- purpose: Migrates a store from schema version 15 to 16: the pod model
--   reads more of a pod (descheduler v0.36's rule plugins, kdrift issue 36:
--   status.reason, status.startTime, every status.conditions entry, the
--   container, init and ephemeral container statuses' restarts and
--   waiting/terminated reasons and exit codes, spec.containers[].image,
--   spec.topologySpreadConstraints), so every stored `pod_versions.model`,
--   cut down by an older kdrift, lacks them. `Store::migrate` computes each
--   pod version's model again from its whole object (`observations.object`)
--   in Rust, with the usage columns read from it (`model_error` included: a
--   malformed new field makes the version unreadable, as at ingest), into
--   this scratch table, then `schema_v16_backfill` copies them over. No
--   column changes.
-- params: none
-- columns: none (DDL)
CREATE TABLE pod_model_rederived (
    obs_id            BIGINT NOT NULL,
    model             VARCHAR,
    usage_node        VARCHAR,
    requests_cpu      BIGINT,
    requests_memory   BIGINT,
    requests_other    VARCHAR,
    model_error       VARCHAR,
    labels            VARCHAR,
    scheduling_terms  BOOLEAN
);
