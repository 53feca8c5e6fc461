//! Every descheduler v0.36 plugin but LowNodeUtilization (in
//! [`super::run`]), one file each, and the dispatch from a policy's plugin
//! name to its planner.
//!
//! Each plugin's `run(cycle, profile, args) -> PluginRun` lists its
//! candidates as upstream does, applies its rule and the profile's
//! DefaultEvictor, and evicts through [`super::cycle::Cycle::evict`] so the
//! cycle's limits are shared. Contract: descheduler-plugins.md §2–§3.

mod duplicates;
mod failed_pods;
mod high_node_utilization;
mod inter_pod_anti_affinity;
mod node_affinity;
mod node_taints;
mod pod_lifetime;
mod too_many_restarts;
mod topology_spread;
#[cfg(test)]
mod vectors;

use super::cycle::Cycle;
use super::plan::PluginRun;
use crate::policy::{PluginArgs, Profile};

/// Runs the plugin whose `pluginConfig` args are `args` for `profile`.
/// `None` for `DefaultEvictor`, `LowNodeUtilization` (run by the caller) and
/// plugins kdrift does not know.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &PluginArgs) -> Option<PluginRun> {
    Some(match args {
        PluginArgs::RemovePodsViolatingNodeAffinity(a) => node_affinity::run(cycle, profile, a),
        PluginArgs::RemovePodsViolatingNodeTaints(a) => node_taints::run(cycle, profile, a),
        PluginArgs::RemovePodsViolatingInterPodAntiAffinity(a) => inter_pod_anti_affinity::run(cycle, profile, a),
        PluginArgs::PodLifeTime(a) => pod_lifetime::run(cycle, profile, a),
        PluginArgs::RemoveFailedPods(a) => failed_pods::run(cycle, profile, a),
        PluginArgs::RemovePodsHavingTooManyRestarts(a) => too_many_restarts::run(cycle, profile, a),
        PluginArgs::RemoveDuplicates(a) => duplicates::run(cycle, profile, a),
        PluginArgs::RemovePodsViolatingTopologySpreadConstraint(a) => topology_spread::run(cycle, profile, a),
        PluginArgs::HighNodeUtilization(a) => high_node_utilization::run(cycle, profile, a),
        PluginArgs::DefaultEvictor(_) | PluginArgs::LowNodeUtilization(_) | PluginArgs::Other(_) => return None,
    })
}
