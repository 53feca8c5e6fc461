-- name: tx_begin
-- purpose: Opens a transaction (one ingest commit is atomic).
-- params: none
-- columns: none
BEGIN TRANSACTION;
