//! The descheduler planner: what descheduler v0.36 would evict from a
//! cluster snapshot under a whole policy, and why — as pure data.
//!
//! [`plan`] replays one descheduling cycle ([`cycle`]): the nodes
//! descheduler works on (Ready, matching the policy `nodeSelector`; fewer
//! than 2 → nothing), then every profile's Deschedule plugins, then every
//! profile's Balance plugins, each profile's in `enabled` order, sharing the
//! cycle's eviction limits. LowNodeUtilization ([`run`]): classification,
//! the budget ([`budget`]), source and pod order ([`order`]), the
//! DefaultEvictor filters, the per-pod loop; the other plugins in
//! [`plugins`]. The compatibility contracts are
//! `shared/reference/descheduler-lownodeutilization.md` and
//! `descheduler-plugins.md`.
//!
//! Deterministic where upstream is not: source nodes with equal usage sums go
//! by name; pods equal in priority, QoS and annotation go by namespace/name;
//! invalid-threshold messages name resources in name order. Pods evicted
//! by an earlier profile's run are not candidates again (they would be
//! terminating) but still count toward usage, as they would in the informer.
//!
//! LowNodeUtilization's `metricsUtilization` classifies on measured usage
//! ([`metrics`]) from [`Snapshot::measured`]; without it, the run plans from
//! requests and warns.
//!
//! For a landing simulation: every [`Eviction`] carries the pod's index in
//! [`Snapshot::pods`]; [`Snapshot::state_without`] gives the
//! [`ClusterState`] after the evictions, to which each evicted pod's
//! [`PodInfo::unbound_copy`] can be offered with [`crate::scheduler::pick_node`].

pub mod budget;
mod classify;
mod cycle;
mod evictor;
#[cfg(test)]
mod evictor_tests;
mod explain;
mod inputs;
mod limits;
pub mod metrics;
mod node_fit;
pub mod order;
pub mod pdb;
mod plan;
mod plugins;
#[cfg(test)]
mod proptests;
mod run;
#[cfg(test)]
pub(crate) mod tests;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use evictor::{EVICT_ANNOTATION, SYSTEM_CRITICAL_PRIORITY};
pub use explain::{explain_pod, Explanation, FailedRun, PluginVerdict, Verdict as PodVerdict};
pub use order::PREFER_NO_EVICTION;
pub use pdb::{IntOrPercent, REQUEST_EVICT_ONLY_ANNOTATION};
pub use plan::{
    Budget, EarlyExit, EarlyExitKind, Eviction, ExcludedNode, LimitCounts, NodeClass, NodeReport, Plan, PluginRun,
    PodRef, ResourceUsage, SkipReason, SkippedPod, SourceNode, StopReason, ThresholdsApplied, MODE_DESCHEDULER_V0_36,
    SKIPPED_FEW_NODES,
};

use crate::model::measured::MeasuredUsage;
use crate::model::node::NodeInfo;
use crate::model::pod::{LabelSelector, PodInfo};
use crate::model::resources::ResourceList;
use crate::policy::{ExtensionPoint, Policy, StringSelector, KNOWN_PLUGINS, LOW_NODE_UTILIZATION};
use crate::scheduler::ClusterState;
use cycle::Cycle;

/// A PodDisruptionBudget, as far as the planner needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pdb {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `spec.selector`; `None` selects no pod, `Some({})` every pod of the namespace.
    pub selector: Option<LabelSelector>,
    /// `status.disruptionsAllowed`, when known. descheduler ignores PDBs
    /// when choosing pods; the API refuses an eviction (429) when it is 0
    /// (`pdb`).
    pub disruptions_allowed: Option<i64>,
    /// `spec.minAvailable` (used when the status is unknown).
    pub min_available: Option<IntOrPercent>,
    /// `spec.maxUnavailable` (used when the status is unknown).
    pub max_unavailable: Option<IntOrPercent>,
}

/// A namespace and its labels (for `namespaceLabelSelector`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Namespace {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.labels`.
    pub labels: BTreeMap<String, String>,
}

/// A PersistentVolumeClaim's storage class (for `protectedStorageClasses`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pvc {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `spec.storageClassName`.
    pub storage_class: Option<String>,
}

/// Everything the planner reads: the cluster at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Every node.
    pub nodes: Vec<NodeInfo>,
    /// Every pod (any phase, bound or not).
    pub pods: Vec<PodInfo>,
    /// Every PodDisruptionBudget.
    pub pdbs: Vec<Pdb>,
    /// Every namespace.
    pub namespaces: Vec<Namespace>,
    /// PriorityClasses as `(name, value)`.
    pub priority_classes: Vec<(String, i32)>,
    /// PersistentVolumeClaims (only needed for `protectedStorageClasses`).
    pub pvcs: Vec<Pvc>,
    /// "Now", for `minPodAge`.
    pub now: DateTime<Utc>,
    /// Measured usage at the snapshot's instant, for LowNodeUtilization's
    /// `metricsUtilization` (`planner::metrics`); `None`: not loaded, the run
    /// plans from requests and says so.
    pub measured: Option<MeasuredUsage>,
    /// The result of the policy's own Prometheus query (`metricsUtilization.
    /// prometheus.query`), when the caller has it; `None`: the Prometheus
    /// source is stood in for by each node's measured cpu used / allocatable.
    pub metric_samples: Option<Vec<MetricSample>>,
    /// Why the policy's Prometheus query gave no vector (descheduler's
    /// words, e.g. `expected query results to be of type "vector", got
    /// "matrix" instead`): the Prometheus run fails with it, as upstream's
    /// usage client does.
    pub metric_query_error: Option<String>,
}

/// One sample of an instant-query vector: its `instance` label (`None`:
/// missing) and its value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricSample {
    /// The `instance` label (descheduler takes it as the node name).
    pub instance: Option<String>,
    /// The value (descheduler accepts [0, 1]).
    pub value: f64,
}

impl Snapshot {
    /// A snapshot of nodes and pods only.
    pub fn new(nodes: Vec<NodeInfo>, pods: Vec<PodInfo>, now: DateTime<Utc>) -> Snapshot {
        Snapshot {
            nodes,
            pods,
            pdbs: Vec::new(),
            namespaces: Vec::new(),
            priority_classes: Vec::new(),
            pvcs: Vec::new(),
            now,
            measured: None,
            metric_samples: None,
            metric_query_error: None,
        }
    }

    /// The scheduler model's view of the snapshot.
    pub fn cluster_state(&self) -> ClusterState {
        ClusterState::new(self.nodes.clone(), self.pods.clone())
    }

    /// The scheduler model's view with the pods at `evicted` (indices into
    /// [`Snapshot::pods`], e.g. [`Plan::evicted_pod_indices`]) gone.
    pub fn state_without(&self, evicted: &[usize]) -> ClusterState {
        let gone: BTreeSet<usize> = evicted.iter().copied().collect();
        let pods = self.pods.iter().enumerate().filter(|(i, _)| !gone.contains(i)).map(|(_, p)| p.clone()).collect();
        ClusterState::new(self.nodes.clone(), pods)
    }
}

/// Opt-in departures from descheduler's behaviour. The default is
/// descheduler v0.36 exactly. Construct with `..Default::default()` so new
/// switches do not break callers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PlanOptions {
    /// Skip (without counting it) a pod that requests none of the resources
    /// its node is over target on, instead of spending an eviction on it
    /// (upstream evicts BestEffort pods first although they free nothing but
    /// a pod slot). A node over target on `pods` is helped by any pod.
    pub skip_zero_request: bool,
    /// With `metricsUtilization` (KubernetesMetrics) and measured pod usage:
    /// on each overutilized node, try first the pods that use the most of the
    /// resource the node is furthest over its target on (descheduler's order
    /// breaks ties), so an eviction relieves the hot resource. Upstream
    /// orders by priority and QoS only.
    pub rank_by_usage: bool,
}

/// Plans one descheduling cycle of the whole policy. See the module docs.
pub fn plan(snapshot: &Snapshot, policy: &Policy, options: &PlanOptions) -> Plan {
    plan_with(snapshot, policy, options, None, None)
}

/// The node classification of [`plan`] alone, from each node's requested
/// amounts instead of its pods: the nodes considered or excluded, the abort
/// reason, and per LowNodeUtilization run the thresholds applied, every
/// node's [`NodeReport`] (class, percentages, why) and the early exit, as
/// [`plan`] computes them for a snapshot whose pods sum to `usage` (with no
/// budget, source nodes, evictions or skips). For reports that only classify
/// (`kdrift skew`) without loading every pod.
///
/// `usage`: per node name, the summed effective requests of the pods that
/// count toward it (cpu millicores, memory bytes, extended units), with
/// `pods` = their number; a node missing from it has none.
pub fn classify_nodes(nodes: Vec<NodeInfo>, usage: &BTreeMap<String, ResourceList>, policy: &Policy) -> Plan {
    let snapshot = Snapshot::new(nodes, Vec::new(), DateTime::<Utc>::UNIX_EPOCH);
    plan_with(&snapshot, policy, &PlanOptions::default(), Some(usage), None)
}

/// [`plan`], keeping why pod `index` does not break each plugin's rule
/// ([`PluginRun::explained_not_matching`]) for [`explain_pod`].
pub(crate) fn plan_explaining(snapshot: &Snapshot, policy: &Policy, options: &PlanOptions, index: usize) -> Plan {
    plan_with(snapshot, policy, options, None, Some(index))
}

/// Runs one enabled plugin of `profile` (`None` for a plugin kdrift does
/// not model; the policy's validation has refused a known plugin without
/// its `pluginConfig` or at the wrong extension point).
fn run_plugin(cycle: &mut Cycle<'_>, profile: &crate::policy::Profile, name: &str) -> Option<PluginRun> {
    if name == LOW_NODE_UTILIZATION {
        let args = profile.low_node_utilization().cloned().unwrap_or_default();
        return Some(cycle.run(profile, &args));
    }
    plugins::run(cycle, profile, profile.plugin_args(name)?)
}

/// The plugins `profile` enables or configures that descheduler v0.36 does
/// not register, in order, each once.
fn unmodelled_plugins(profile: &crate::policy::Profile) -> Vec<&str> {
    let p = &profile.plugins;
    let mut out: Vec<&str> = Vec::new();
    let names =
        p.deschedule.enabled.iter().chain(&p.balance.enabled).chain(profile.plugin_config.iter().map(|c| &c.name));
    for n in names {
        if !KNOWN_PLUGINS.contains(&n.as_str()) && !out.contains(&n.as_str()) {
            out.push(n);
        }
    }
    out
}

/// [`plan`], or with `usage_given` only its classification ([`classify_nodes`]).
fn plan_with(
    snapshot: &Snapshot,
    policy: &Policy,
    options: &PlanOptions,
    usage_given: Option<&BTreeMap<String, ResourceList>>,
    explained: Option<usize>,
) -> Plan {
    let mut out = Plan {
        mode: MODE_DESCHEDULER_V0_36.to_string(),
        options: *options,
        nodes_considered: Vec::new(),
        nodes_excluded: Vec::new(),
        aborted: None,
        runs: Vec::new(),
        evictions_total: 0,
        warnings: Vec::new(),
    };
    if let Err(e) = policy.validate() {
        out.aborted = Some(format!("invalid policy: {e}"));
        return out;
    }
    let selector =
        policy.node_selector.as_deref().and_then(|s| StringSelector::parse(s, "nodeSelector").ok()).unwrap_or_default();
    let mut nodes: Vec<&NodeInfo> = Vec::new();
    let mut seen = BTreeSet::new();
    for n in &snapshot.nodes {
        if !seen.insert(n.name.as_str()) {
            continue;
        }
        if n.ready == Some(false) {
            out.nodes_excluded.push(ExcludedNode { name: n.name.clone(), reason: "not Ready".to_string() });
        } else if !selector.matches(&n.labels) {
            out.nodes_excluded.push(ExcludedNode {
                name: n.name.clone(),
                reason: format!("does not match nodeSelector {:?}", selector.text),
            });
        } else {
            nodes.push(n);
        }
    }
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    out.nodes_excluded.sort_by(|a, b| a.name.cmp(&b.name));
    out.nodes_considered = nodes.iter().map(|n| n.name.clone()).collect();
    if nodes.len() < 2 {
        out.aborted = Some(SKIPPED_FEW_NODES.to_string());
        return out;
    }
    let mut pods_by_node: BTreeMap<&str, Vec<usize>> = nodes.iter().map(|n| (n.name.as_str(), Vec::new())).collect();
    for (i, p) in snapshot.pods.iter().enumerate() {
        if !p.counts_toward_usage() {
            continue;
        }
        if let Some(list) = p.node_name.as_deref().and_then(|n| pods_by_node.get_mut(n)) {
            list.push(i);
        }
    }
    let mut all_pods_by_node: BTreeMap<&str, Vec<usize>> =
        nodes.iter().map(|n| (n.name.as_str(), Vec::new())).collect();
    for (i, p) in snapshot.pods.iter().enumerate() {
        if let Some(list) = p.node_name.as_deref().and_then(|n| all_pods_by_node.get_mut(n)) {
            list.push(i);
        }
    }
    let mut cycle = Cycle {
        snapshot,
        nodes,
        pods_by_node,
        all_pods_by_node,
        options: *options,
        counters: limits::Counters::new(policy),
        evicted: BTreeSet::new(),
        next_order: 0,
        warnings: Vec::new(),
        usage_given,
        evictors: HashMap::new(),
        fit_state: None,
        explained,
    };
    cycle.warnings.extend(crate::policy::lnu::threshold_name_warnings(policy));
    for profile in &policy.profiles {
        for name in unmodelled_plugins(profile) {
            cycle.warnings.push(format!(
                "profile {}: plugin {name} is not one of descheduler v0.36's (out-of-tree?): kdrift does not model it; \
                 its evictions would count against the cycle's limits, so every later plugin's evictions and the \
                 totals here could be fewer",
                profile.name
            ));
        }
    }
    for point in [ExtensionPoint::Deschedule, ExtensionPoint::Balance] {
        for profile in &policy.profiles {
            let enabled = match point {
                ExtensionPoint::Deschedule => &profile.plugins.deschedule.enabled,
                ExtensionPoint::Balance => &profile.plugins.balance.enabled,
            };
            for name in enabled {
                if usage_given.is_some() && name != LOW_NODE_UTILIZATION {
                    continue;
                }
                if let Some(run) = run_plugin(&mut cycle, profile, name) {
                    out.runs.push(run);
                }
            }
        }
    }
    if usage_given.is_some() && out.runs.is_empty() {
        cycle.warnings.push("no profile enables LowNodeUtilization in plugins.balance.enabled".to_string());
    }
    out.warnings = cycle.warnings;
    out.warnings.extend(inputs::missing_object_warnings(snapshot, policy));
    out.evictions_total = out.evictions().filter(|e| e.refused_by_pdb.is_none()).count();
    out
}
