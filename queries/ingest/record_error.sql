-- name: record_error
-- purpose: Records one input error of an ingest run (the run goes on).
-- params: $1 run_id, $2 location, $3 line (NULL when unknown), $4 column (NULL), $5 item (NULL), $6 message
-- columns: none
INSERT INTO ingest_errors VALUES ($1, $2, $3, $4, $5, $6);
