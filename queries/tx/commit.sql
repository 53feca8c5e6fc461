-- name: tx_commit
-- purpose: Commits the open transaction.
-- params: none
-- columns: none
COMMIT;
