//! Parity vectors: descheduler v0.36's own unit-test tables for every plugin
//! but LowNodeUtilization (whose vectors are in `planner::tests`), ported as
//! data (same nodes, pods and args; same number of evictions and the same
//! pods where upstream names them; validation and defaults tables with the
//! exact messages). Each table's test prints `upstream vectors PLUGIN: N
//! ported, M passed, K skipped` (`cargo test -p kdrift-rebalance --lib
//! vectors -- --nocapture`); a case not ported stays in its table with the
//! reason, so the count shows it. The list of upstream files is
//! descheduler-plugins.md §6.
//!
//! Three fixture sets, by how upstream's tests call the plugin:
//! [`support`] runs one plugin on a hand-built cycle (nodes in the test's
//! order, even one node) for the placement-rule plugins; [`state_support`]
//! plans a whole one-profile policy per case for the pod-state plugins;
//! [`kit`] builds `test_utils.go`'s nodes and pods for the Balance plugins.

mod kit;
mod state_support;
mod support;

mod duplicates;
mod failed_pods;
mod high_node_utilization;
mod inter_pod_anti_affinity;
mod lnu_metrics;
mod node_affinity;
mod node_taints;
mod pod_lifetime;
mod too_many_restarts;
mod topology_spread;
