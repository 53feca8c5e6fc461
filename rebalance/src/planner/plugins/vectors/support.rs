//! Test support for the plugin parity vectors: upstream's fixtures
//! (`test.BuildTestNode`, `test.BuildTestPod`) and one plugin run on a
//! [`Cycle`] built the way upstream's unit tests call a plugin: the nodes in
//! the test's slice order (the planner sorts them by name), even a single
//! node (the cycle's ">= 2 nodes" rule is not part of a plugin's test).

use std::collections::{BTreeMap, BTreeSet};

use crate::model::node::NodeInfo;
use crate::model::pod::PodInfo;
use crate::planner::cycle::Cycle;
use crate::planner::limits::Counters;
use crate::planner::plan::PluginRun;
use crate::planner::tests::{node, now, pod};
use crate::planner::{PlanOptions, Snapshot};
use crate::policy::{DefaultEvictorArgs, PluginArgs, PluginConfig, Policy, Profile};

/// `test.BuildTestNode(name, 2000, 3000, 10, nil)`.
pub(crate) fn test_node(name: &str) -> NodeInfo {
    node(name, 2000, 3000, 10)
}

/// `test.BuildTestPod(name, 100, 0, node, nil)` with a normal (ReplicaSet)
/// owner: namespace `default`.
pub(crate) fn test_pod(name: &str, node: &str) -> PodInfo {
    pod("default", name, node, 100, 0)
}

/// The cycle limits of an upstream case.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Limits {
    /// `maxPodsToEvictPerNode`.
    pub(crate) node: Option<u32>,
    /// `maxNoOfPodsToEvictPerNamespace`.
    pub(crate) namespace: Option<u32>,
    /// `maxNoOfPodsToEvictTotal`.
    pub(crate) total: Option<u32>,
}

/// A one-profile policy with `evictor` and the plugin's `args`.
pub(crate) fn policy(evictor: DefaultEvictorArgs, name: &str, args: PluginArgs, limits: Limits) -> Policy {
    let mut profile = Profile { name: "test".into(), ..Default::default() };
    profile.plugin_config = vec![
        PluginConfig { name: "DefaultEvictor".into(), args: PluginArgs::DefaultEvictor(Box::new(evictor)) },
        PluginConfig { name: name.into(), args },
    ];
    profile.plugins.deschedule.enabled = vec![name.into()];
    Policy {
        profiles: vec![profile],
        max_no_of_pods_to_evict_per_node: limits.node,
        max_no_of_pods_to_evict_per_namespace: limits.namespace,
        max_no_of_pods_to_evict_total: limits.total,
        ..Default::default()
    }
}

/// Runs `plugin` once for the policy's first profile over `nodes` (in this
/// order) and `pods`.
pub(crate) fn run_once(
    nodes: Vec<NodeInfo>,
    pods: Vec<PodInfo>,
    policy: &Policy,
    plugin: impl FnOnce(&mut Cycle<'_>, &Profile) -> PluginRun,
) -> PluginRun {
    let snapshot = Snapshot::new(nodes, pods, now());
    let nodes: Vec<&NodeInfo> = snapshot.nodes.iter().collect();
    let mut pods_by_node: BTreeMap<&str, Vec<usize>> = nodes.iter().map(|n| (n.name.as_str(), Vec::new())).collect();
    let mut all_pods_by_node = pods_by_node.clone();
    for (i, p) in snapshot.pods.iter().enumerate() {
        let Some(n) = p.node_name.as_deref() else { continue };
        if let Some(list) = all_pods_by_node.get_mut(n) {
            list.push(i);
        }
        if p.counts_toward_usage() {
            if let Some(list) = pods_by_node.get_mut(n) {
                list.push(i);
            }
        }
    }
    let mut cycle = Cycle {
        snapshot: &snapshot,
        nodes,
        pods_by_node,
        all_pods_by_node,
        options: PlanOptions::default(),
        counters: Counters::new(policy),
        evicted: BTreeSet::new(),
        next_order: 0,
        warnings: Vec::new(),
        usage_given: None,
        evictors: std::collections::HashMap::new(),
        fit_state: None,
        explained: None,
    };
    plugin(&mut cycle, &policy.profiles[0])
}

/// The evicted pods' names, in order.
pub(crate) fn evicted_names(run: &PluginRun) -> Vec<String> {
    run.evictions.iter().map(|e| e.pod.name.clone()).collect()
}
