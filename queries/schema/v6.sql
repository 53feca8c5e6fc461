-- name: schema_v6
-- purpose: Migrates a store from schema version 5 to 6: `node_signals`
--   holds what happened to each node (what the `node_signals` query
--   returns: cordon / uncordon, not_ready / ready, rebooted, and the node
--   events), rewritten after each batch for the nodes the batch names
--   (`batch_nodes`) and filled for every node by the migration
--   (`derive_node_signals` with a negative run id), so that the drain
--   timeline does not read every Node version's model on every run (1.1 s
--   at 10M events).
--   `batch_nodes(run_id, after_obs_id)`: the name of every node one committed
--   batch names — a Node version of the batch, or an event about a Node. A
--   node's signals depend only on those rows of that node.
-- params: none
-- columns: none (DDL)
CREATE TABLE node_signals (
    node         VARCHAR,
    occurred_at  TIMESTAMP,  -- UTC
    signal       VARCHAR,    -- cordon | uncordon | not_ready | ready | rebooted | starting | registered | deleting_pods | removing | drain
    source       VARCHAR,    -- object | event
    reason       VARCHAR,    -- the event's reason, or the object field
    detail       VARCHAR,
    estimated    BOOLEAN     -- from a node's first stored version (taint or condition time)
);
CREATE MACRO batch_nodes(run, after_obs) AS TABLE
SELECT name FROM node_versions WHERE run_id = run AND obs_id > after_obs
UNION
SELECT involved_name FROM event_versions WHERE run_id = run AND obs_id > after_obs AND involved_kind = 'Node';
