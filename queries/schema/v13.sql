-- name: schema_v13
-- purpose: Migrates a store from schema version 12 to 13: the Deployment
--   controller's ScalingReplicaSet event versions kept apart
--   (`replica_set_scalings`), so that why-pending's "which scale-up created
--   this pod" (query `scale_ups`) reads those few rows instead of every
--   event version's reason (at 10M events ~40 ms of a ~400 ms why-pending;
--   kdrift issue 6). Each batch copies its own (`derive_replica_set_scalings`,
--   run right after `derive_event_versions`); the migration copies every
--   stored one (`Store::migrate`). An Event's reason never changes between
--   its versions, so the copy holds every version of every such Event and
--   `scale_ups` picks among them as the `events` view would. The drain
--   moves kept under schema 12 stay fresh: no table they are computed from
--   changes here.
-- params: none
-- columns: none (DDL)
CREATE TABLE replica_set_scalings (
    obs_id             BIGINT NOT NULL,
    observed_at        TIMESTAMP NOT NULL,
    event_key          VARCHAR NOT NULL,
    involved_namespace VARCHAR,           -- the Deployment's namespace
    involved_name      VARCHAR,           -- the Deployment
    message            VARCHAR,           -- "Scaled up replica set X to N from M", …
    first_time         TIMESTAMP,
    last_time          TIMESTAMP,
    count              BIGINT NOT NULL
);
UPDATE drain_moves_kept SET schema_version = 13 WHERE schema_version = 12;
