-- name: finish_run
-- purpose: Closes an ingest run with its status and counts.
-- params: $1 run_id BIGINT, $2 status VARCHAR (ok | partial | failed), $3 finished_at_us BIGINT,
--   $4 records_read BIGINT, $5 duplicates BIGINT, $6 errors BIGINT
-- columns: none
UPDATE ingest_runs SET
    status = $2,
    finished_at = make_timestamp($3),
    records_read = $4,
    duplicates = $5,
    errors = $6,
    events_added = (SELECT count(*) FROM observations o WHERE o.run_id = $1 AND o.kind = 'Event'),
    objects_added = (SELECT count(*) FROM observations o WHERE o.run_id = $1 AND o.kind <> 'Event')
WHERE run_id = $1;
