-- name: clear_node_signals
-- purpose: Removes the `node_signals` rows of the nodes one committed batch
--   names (`batch_nodes`; every row when $1 is negative), before
--   `derive_node_signals` writes them again.
-- params: $1 run_id BIGINT (negative: every node), $2 after_obs_id BIGINT (only nodes named after it)
-- columns: none (deletes)
DELETE FROM node_signals
WHERE $1 < 0 OR node IN (SELECT name FROM batch_nodes($1, $2));
