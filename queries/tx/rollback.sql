-- name: tx_rollback
-- purpose: Rolls the open transaction back.
-- params: none
-- columns: none
ROLLBACK;
