-- name: run_progress
-- purpose: Updates the counts of a run that is still going (a recorder's
--   batch committed), leaving it `running`: a recorder that is killed keeps
--   the counts of what it committed, and is closed as `failed` when the
--   store is next opened for writing (`close_abandoned_runs`).
-- params: $1 run_id BIGINT, $2 records_read BIGINT, $3 duplicates BIGINT, $4 errors BIGINT
-- columns: none
UPDATE ingest_runs SET
    records_read = $2,
    duplicates = $3,
    errors = $4,
    events_added = (SELECT count(*) FROM observations o WHERE o.run_id = $1 AND o.kind = 'Event'),
    objects_added = (SELECT count(*) FROM observations o WHERE o.run_id = $1 AND o.kind <> 'Event')
WHERE run_id = $1;
