-- name: record_file
-- purpose: Records the per-file summary of an ingest run.
-- params: $1 run_id, $2 location, $3 format, $4 records_read, $5 events_read, $6 objects_read, $7 skipped, $8 errors
-- columns: none
INSERT INTO ingest_files VALUES ($1, $2, $3, $4, $5, $6, $7, $8);
