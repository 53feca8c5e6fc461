//! A model of kube-scheduler's Filter plugins (and the default scores) for one
//! pod against a cluster state.
//!
//! [`evaluate`] runs, per node, every modelled plugin in the default order
//! (`kubernetes-events.md` §6): NodeUnschedulable, NodeName, TaintToleration,
//! NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread,
//! InterPodAffinity — and keeps
//! EVERY failure, so a caller can say "pod affinity excluded 4 nodes; node-1
//! was left but short 42m cpu". [`NodeEvaluation::first_failure`] is what the
//! scheduler itself records (it stops at the first failing plugin), and
//! [`fit_error_message`] rebuilds the `FailedScheduling` text from that.
//! [`pick_node`] scores the feasible nodes the way the default profile does
//! ([`pick_node_with`]: with a KubeSchedulerConfiguration's NodeResourcesFit
//! scoring strategy and plugin weights, [`ScoringConfig`]) and reports ties
//! instead of breaking them.
//!
//! Not modelled (a node can still be rejected by these in a real cluster):
//! volume plugins (VolumeRestrictions, NodeVolumeLimits, VolumeBinding,
//! VolumeZone), DynamicResources, nominated pods of other
//! preemptors, scheduler-profile added affinity, and the node sampling of very
//! large clusters (`percentageOfNodesToScore`). Namespace labels are not part
//! of the state: a `namespaceSelector` is evaluated against the label every
//! namespace carries, `kubernetes.io/metadata.name=<namespace>`.
//! PodTopologySpread's system default spreading approximates upstream's
//! Service/ReplicaSet/StatefulSet selectors by the pod's controller
//! ([`pod_topology_spread`] module docs).

mod cache;
#[cfg(test)]
pub(crate) mod cache_tests;
mod default_spread;
mod inter_pod_affinity;
mod node_affinity;
mod node_basics;
mod order;
mod pick;
mod pod_topology_spread;
#[cfg(test)]
mod pod_topology_spread_tests;
mod resources_fit;
mod score;
mod scoring;
mod scoring_config;
#[cfg(test)]
mod scoring_tests;
mod snapshot;
mod taint_toleration;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::fast_hash::{fast_map, FastMap};
use crate::model::node::{NodeInfo, Taint};
use crate::model::pod::{HostPort, PodInfo};
use crate::model::resources::{ResourceList, PODS};

pub(crate) use cache::SchedulerCache;
use node_affinity::NodeNameFilter;
pub use pod_topology_spread::SpreadSkew;
pub use resources_fit::{balanced_allocation_score, least_allocated_score};
pub use score::{pick_node, pick_node_with, score_nodes, score_nodes_with, NodeScore, Placement};
pub use scoring::{ResourceSpec, ScoreWeights, ScoringConfig, ScoringStrategy, ShapePoint, StrategyType};
pub use scoring_config::{scoring_shorthand, DEFAULT_SCHEDULER, SCHEDULER_API_VERSION};
pub(crate) use snapshot::{has_pod_affinity_terms, NodeSlot, Snapshot};

/// The nodes and pods the scheduler would see.
///
/// Pods count toward a node's usage when bound to it (`spec.nodeName`) and not
/// Succeeded/Failed ([`PodInfo::counts_toward_usage`]); pods bound to a node
/// that is not in `nodes` are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ClusterState {
    /// Every node the scheduler knows (the `N` of `0/N nodes are available`).
    pub nodes: Vec<NodeInfo>,
    /// Every pod (bound or not; terminal ones are skipped).
    pub pods: Vec<PodInfo>,
}

impl ClusterState {
    /// A state from nodes and pods.
    pub fn new(nodes: Vec<NodeInfo>, pods: Vec<PodInfo>) -> ClusterState {
        ClusterState { nodes, pods }
    }

    /// The node called `name`.
    pub fn node(&self, name: &str) -> Option<&NodeInfo> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// The pods that count toward `node`'s usage, in state order.
    pub fn pods_on<'a>(&'a self, node: &'a str) -> impl Iterator<Item = &'a PodInfo> + 'a {
        self.pods.iter().filter(move |p| p.counts_toward_usage() && p.node_name.as_deref() == Some(node))
    }

    /// A node's usage as descheduler v0.36 §1 counts it: the sum of the
    /// requests of the pods that count toward it, plus `pods` = their number.
    ///
    /// Scans every pod: for many nodes, build [`ClusterState::by_node`] once.
    pub fn usage(&self, node: &str) -> ResourceList {
        usage_of(self.pods_on(node))
    }

    /// The pods that count toward each node's usage, grouped in one pass
    /// over the pods (state order kept within a node): what to use instead of
    /// calling [`ClusterState::pods_on`] or [`ClusterState::usage`] per node,
    /// which scan every pod each time (nodes × pods).
    pub fn by_node(&self) -> NodePods<'_> {
        NodePods::of(&self.pods, self.nodes.len())
    }
}

/// The sum of the requests of `pods`, plus `pods` = their number (descheduler v0.36 §1).
fn usage_of<'a>(pods: impl Iterator<Item = &'a PodInfo>) -> ResourceList {
    let mut used = ResourceList::new();
    let mut count = 0i64;
    for p in pods {
        used.add(&p.requests);
        count += 1;
    }
    used.set(PODS, count);
    used
}

/// The pods counting toward each node, from [`ClusterState::by_node`]:
/// lookups by node name in O(1) instead of a scan of every pod.
#[derive(Debug, Clone, Default)]
pub struct NodePods<'a> {
    map: FastMap<&'a str, Vec<&'a PodInfo>>,
}

impl<'a> NodePods<'a> {
    /// Groups `pods` (those that count toward usage) by node, in one pass;
    /// `nodes` is a capacity hint. [`ClusterState::by_node`] without building
    /// a state (no copy of the pods).
    pub fn of(pods: &'a [PodInfo], nodes: usize) -> NodePods<'a> {
        let mut map: FastMap<&str, Vec<&PodInfo>> = fast_map(nodes);
        for p in pods.iter().filter(|p| p.counts_toward_usage()) {
            if let Some(n) = p.node_name.as_deref() {
                map.entry(n).or_default().push(p);
            }
        }
        NodePods { map }
    }

    /// The pods that count toward `node`'s usage, in state order (same as
    /// [`ClusterState::pods_on`]); empty for an unknown node.
    pub fn pods_on(&self, node: &str) -> &[&'a PodInfo] {
        self.map.get(node).map_or(&[], Vec::as_slice)
    }

    /// `node`'s usage, as [`ClusterState::usage`] computes it.
    pub fn usage(&self, node: &str) -> ResourceList {
        usage_of(self.pods_on(node).iter().copied())
    }

    /// The names of the nodes some pod counts toward (known nodes or not), in no particular order.
    pub fn nodes(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.map.keys().copied()
    }
}

/// The modelled Filter plugins, in the scheduler's default order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Plugin {
    /// Rejects cordoned nodes unless the pod tolerates the unschedulable taint.
    NodeUnschedulable,
    /// Rejects every node but `spec.nodeName` when set.
    NodeName,
    /// Rejects nodes with an untolerated NoSchedule/NoExecute taint.
    TaintToleration,
    /// `spec.nodeSelector` and required node affinity.
    NodeAffinity,
    /// Host port conflicts.
    NodePorts,
    /// Requests against allocatable minus what bound pods request; pod count.
    NodeResourcesFit,
    /// `DoNotSchedule` topology spread constraints.
    PodTopologySpread,
    /// Required pod affinity / anti-affinity, and existing pods' anti-affinity.
    InterPodAffinity,
}

impl Plugin {
    /// Every modelled filter plugin in the order the scheduler runs them.
    pub const ALL: [Plugin; 8] = [
        Plugin::NodeUnschedulable,
        Plugin::NodeName,
        Plugin::TaintToleration,
        Plugin::NodeAffinity,
        Plugin::NodePorts,
        Plugin::NodeResourcesFit,
        Plugin::PodTopologySpread,
        Plugin::InterPodAffinity,
    ];

    /// The plugin's registry name, as in scheduler configs and logs.
    pub fn name(self) -> &'static str {
        match self {
            Plugin::NodeUnschedulable => "NodeUnschedulable",
            Plugin::NodeName => "NodeName",
            Plugin::TaintToleration => "TaintToleration",
            Plugin::NodeAffinity => "NodeAffinity",
            Plugin::NodePorts => "NodePorts",
            Plugin::NodeResourcesFit => "NodeResourcesFit",
            Plugin::PodTopologySpread => "PodTopologySpread",
            Plugin::InterPodAffinity => "InterPodAffinity",
        }
    }
}

/// The kinds of [`FilterFailure`], without their details (for grouping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum FailureKind {
    /// [`FilterFailure::NodeUnschedulable`].
    NodeUnschedulable,
    /// [`FilterFailure::NodeNameMismatch`].
    NodeNameMismatch,
    /// [`FilterFailure::UntoleratedTaint`].
    UntoleratedTaint,
    /// [`FilterFailure::NodeAffinityMismatch`].
    NodeAffinityMismatch,
    /// [`FilterFailure::PreFilterExcluded`].
    PreFilterExcluded,
    /// [`FilterFailure::HostPortConflict`].
    HostPortConflict,
    /// [`FilterFailure::Insufficient`] for any resource but `pods`.
    InsufficientResource,
    /// [`FilterFailure::Insufficient`] for `pods`.
    TooManyPods,
    /// [`FilterFailure::TopologySpreadMissingLabel`].
    TopologySpreadMissingLabel,
    /// [`FilterFailure::TopologySpreadSkew`].
    TopologySpreadSkew,
    /// [`FilterFailure::PodAffinityMismatch`].
    PodAffinityMismatch,
    /// [`FilterFailure::PodAntiAffinityConflict`].
    PodAntiAffinityConflict,
    /// [`FilterFailure::ExistingPodAntiAffinity`].
    ExistingPodAntiAffinity,
}

/// How much of a resource a pod asks for and a node has.
/// Source: kube-scheduler NodeResourcesFit `InsufficientResource`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InsufficientResource {
    /// The resource (`cpu`, `memory`, `nvidia.com/gpu`, `pods`, …).
    pub resource: String,
    /// What the pod requests (1 for `pods`).
    pub requested: i64,
    /// What the node's bound pods already request (their count for `pods`).
    pub used: i64,
    /// The node's allocatable amount.
    pub allocatable: i64,
}

impl InsufficientResource {
    /// `allocatable - used` (negative on an over-committed node).
    pub fn free(&self) -> i64 {
        self.allocatable.saturating_sub(self.used)
    }

    /// How much more would be needed: `requested - free`.
    pub fn short_by(&self) -> i64 {
        self.requested.saturating_sub(self.free())
    }
}

/// One reason a node was rejected for the pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum FilterFailure {
    /// The node is cordoned and the pod does not tolerate
    /// `node.kubernetes.io/unschedulable:NoSchedule`. Source: NodeUnschedulable `Filter`.
    NodeUnschedulable,
    /// The pod's `spec.nodeName` names another node. Source: NodeName `Fits`.
    NodeNameMismatch {
        /// The node the pod asks for.
        requested: String,
    },
    /// A NoSchedule/NoExecute taint the pod does not tolerate.
    /// Source: TaintToleration `Filter` (`FindMatchingUntoleratedTaint`).
    UntoleratedTaint {
        /// The taint.
        taint: Taint,
    },
    /// The node does not match `spec.nodeSelector` or the required node affinity.
    /// Source: NodeAffinity `Filter` (`RequiredNodeAffinity.Match`).
    NodeAffinityMismatch {
        /// True when `spec.nodeSelector` did not match.
        node_selector: bool,
        /// True when no required node selector term matched.
        required_affinity: bool,
    },
    /// The node was left out before filtering because a PreFilter narrowed the
    /// candidates (a required node affinity on `metadata.name`, as DaemonSet
    /// pods have). Source: `schedulePod`/`findNodesThatFitPod` `SetAbsentNodesStatus`.
    PreFilterExcluded {
        /// The narrowing plugins (`NodeAffinity`).
        plugins: Vec<String>,
    },
    /// A host port the pod wants is already bound on the node.
    /// Source: NodePorts `fitsPorts` (`HostPortInfo.CheckConflict`).
    HostPortConflict {
        /// The conflicting port of the incoming pod.
        port: HostPort,
    },
    /// Not enough of a resource (or too many pods).
    /// Source: NodeResourcesFit `fitsRequest`.
    Insufficient(InsufficientResource),
    /// The node lacks the `topologyKey` label of a `DoNotSchedule` topology
    /// spread constraint (UnschedulableAndUnresolvable).
    /// Source: PodTopologySpread `Filter` (`ErrReasonNodeLabelNotMatch`).
    TopologySpreadMissingLabel {
        /// The missing label key.
        topology_key: String,
    },
    /// Placing the pod in the node's domain would exceed a `DoNotSchedule`
    /// constraint's `maxSkew`. Source: PodTopologySpread `Filter`
    /// (`ErrReasonConstraintsNotMatch`).
    TopologySpreadSkew(Box<SpreadSkew>),
    /// No pod matching the required pod affinity in the node's topology domain
    /// (or the node lacks the topology label).
    /// Source: InterPodAffinity `satisfyPodAffinity`.
    PodAffinityMismatch {
        /// The topology key of the first unsatisfied term.
        topology_key: String,
        /// True when the node lacks that topology label altogether.
        missing_label: bool,
    },
    /// A pod matching the pod's required anti-affinity is in the node's domain.
    /// Source: InterPodAffinity `satisfyPodAntiAffinity`.
    PodAntiAffinityConflict {
        /// The topology key of the violated term.
        topology_key: String,
        /// `namespace/name` of a pod in that domain matching the term.
        existing_pod: String,
    },
    /// An existing pod's required anti-affinity rejects the incoming pod in this domain.
    /// Source: InterPodAffinity `satisfyExistingPodsAntiAffinity`.
    ExistingPodAntiAffinity {
        /// `namespace/name` of the existing pod whose term matches.
        existing_pod: String,
        /// The topology key of that pod's term.
        topology_key: String,
    },
}

impl FilterFailure {
    /// The reason text kube-scheduler (v1.35, backported to 1.34) puts into
    /// `FailedScheduling`, e.g. `Insufficient cpu`, `Too many pods`,
    /// `node(s) didn't match pod affinity rules` (`kubernetes-events.md` §1 table).
    pub fn message(&self) -> String {
        match self {
            FilterFailure::NodeUnschedulable => "node(s) were unschedulable".to_string(),
            FilterFailure::NodeNameMismatch { .. } => "node(s) didn't match the requested node name".to_string(),
            FilterFailure::UntoleratedTaint { .. } => "node(s) had untolerated taint(s)".to_string(),
            FilterFailure::NodeAffinityMismatch { .. } => {
                "node(s) didn't match Pod's node affinity/selector".to_string()
            }
            FilterFailure::PreFilterExcluded { plugins } => {
                format!("node(s) didn't satisfy plugin(s) [{}]", plugins.join(" "))
            }
            FilterFailure::HostPortConflict { .. } => {
                "node(s) didn't have free ports for the requested pod ports".to_string()
            }
            FilterFailure::Insufficient(r) if r.resource == PODS => "Too many pods".to_string(),
            FilterFailure::Insufficient(r) => format!("Insufficient {}", r.resource),
            FilterFailure::TopologySpreadMissingLabel { .. } => {
                "node(s) didn't match pod topology spread constraints (missing required label)".to_string()
            }
            FilterFailure::TopologySpreadSkew(_) => "node(s) didn't match pod topology spread constraints".to_string(),
            FilterFailure::PodAffinityMismatch { .. } => "node(s) didn't match pod affinity rules".to_string(),
            FilterFailure::PodAntiAffinityConflict { .. } => "node(s) didn't match pod anti-affinity rules".to_string(),
            FilterFailure::ExistingPodAntiAffinity { .. } => {
                "node(s) didn't satisfy existing pods anti-affinity rules".to_string()
            }
        }
    }

    /// The reason with the numbers behind it, for explanations (why-pending's
    /// chain): the scheduler's text, except for a topology spread skew,
    /// which names the domain and the skew (`SpreadSkew::explain`).
    pub fn explain(&self) -> String {
        match self {
            FilterFailure::TopologySpreadSkew(s) => s.explain(),
            FilterFailure::TopologySpreadMissingLabel { topology_key } => {
                format!("topology spread: the node has no {topology_key} label")
            }
            _ => self.message(),
        }
    }

    /// The kind, without details.
    pub fn kind(&self) -> FailureKind {
        match self {
            FilterFailure::NodeUnschedulable => FailureKind::NodeUnschedulable,
            FilterFailure::NodeNameMismatch { .. } => FailureKind::NodeNameMismatch,
            FilterFailure::UntoleratedTaint { .. } => FailureKind::UntoleratedTaint,
            FilterFailure::NodeAffinityMismatch { .. } => FailureKind::NodeAffinityMismatch,
            FilterFailure::PreFilterExcluded { .. } => FailureKind::PreFilterExcluded,
            FilterFailure::HostPortConflict { .. } => FailureKind::HostPortConflict,
            FilterFailure::Insufficient(r) if r.resource == PODS => FailureKind::TooManyPods,
            FilterFailure::Insufficient(_) => FailureKind::InsufficientResource,
            FilterFailure::TopologySpreadMissingLabel { .. } => FailureKind::TopologySpreadMissingLabel,
            FilterFailure::TopologySpreadSkew(_) => FailureKind::TopologySpreadSkew,
            FilterFailure::PodAffinityMismatch { .. } => FailureKind::PodAffinityMismatch,
            FilterFailure::PodAntiAffinityConflict { .. } => FailureKind::PodAntiAffinityConflict,
            FilterFailure::ExistingPodAntiAffinity { .. } => FailureKind::ExistingPodAntiAffinity,
        }
    }

    /// The plugin that reports this failure.
    pub fn plugin(&self) -> Plugin {
        match self.kind() {
            FailureKind::NodeUnschedulable => Plugin::NodeUnschedulable,
            FailureKind::NodeNameMismatch => Plugin::NodeName,
            FailureKind::UntoleratedTaint => Plugin::TaintToleration,
            FailureKind::NodeAffinityMismatch | FailureKind::PreFilterExcluded => Plugin::NodeAffinity,
            FailureKind::HostPortConflict => Plugin::NodePorts,
            FailureKind::InsufficientResource | FailureKind::TooManyPods => Plugin::NodeResourcesFit,
            FailureKind::TopologySpreadMissingLabel | FailureKind::TopologySpreadSkew => Plugin::PodTopologySpread,
            FailureKind::PodAffinityMismatch
            | FailureKind::PodAntiAffinityConflict
            | FailureKind::ExistingPodAntiAffinity => Plugin::InterPodAffinity,
        }
    }

    /// True for `UnschedulableAndUnresolvable` statuses: evicting other pods
    /// (preemption, or a rebalance) cannot make this node fit. An Insufficient
    /// resource is unresolvable when the request exceeds the node's whole
    /// allocatable (kube-scheduler 2025+). Source: `kubernetes-events.md` §1 "hard" column.
    pub fn is_unresolvable(&self) -> bool {
        match self {
            FilterFailure::HostPortConflict { .. }
            | FilterFailure::TopologySpreadSkew(_)
            | FilterFailure::PodAntiAffinityConflict { .. }
            | FilterFailure::ExistingPodAntiAffinity { .. } => false,
            FilterFailure::Insufficient(r) => r.requested > r.allocatable,
            _ => true,
        }
    }
}

/// One plugin's rejection of one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginFailure {
    /// The plugin.
    pub plugin: Plugin,
    /// The reasons in the plugin's status — what the scheduler records and
    /// counts (NodeResourcesFit can carry several: `Too many pods`,
    /// `Insufficient cpu`, `Insufficient memory`).
    pub reasons: Vec<FilterFailure>,
    /// Further violations the plugin stops before reporting (other untolerated
    /// taints, other port conflicts, the later InterPodAffinity checks, or the
    /// NodeAffinity mismatch behind a PreFilter exclusion). Never part of the
    /// scheduler's message.
    pub further: Vec<FilterFailure>,
}

impl PluginFailure {
    /// The scheduler's reason texts for this plugin's status.
    pub fn messages(&self) -> Vec<String> {
        self.reasons.iter().map(FilterFailure::message).collect()
    }
}

/// The outcome of every modelled filter for one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeEvaluation {
    /// The node's name.
    pub node: String,
    /// Every failing plugin, in the order the scheduler meets them (a PreFilter
    /// exclusion first, then the filters in default order). Empty: the pod fits.
    pub failures: Vec<PluginFailure>,
}

impl NodeEvaluation {
    /// True when no modelled plugin rejects the node.
    pub fn is_feasible(&self) -> bool {
        self.failures.is_empty()
    }

    /// What the scheduler records for this node: only the first failing plugin.
    pub fn first_failure(&self) -> Option<&PluginFailure> {
        self.failures.first()
    }

    /// The failure of `plugin`, if it rejects the node.
    pub fn failure_of(&self, plugin: Plugin) -> Option<&PluginFailure> {
        self.failures.iter().find(|f| f.plugin == plugin)
    }

    /// True when `plugin` rejects the node (first or not).
    pub fn fails(&self, plugin: Plugin) -> bool {
        self.failure_of(plugin).is_some()
    }

    /// Every reason from every failing plugin (recorded and further).
    pub fn all_reasons(&self) -> impl Iterator<Item = &FilterFailure> {
        self.failures.iter().flat_map(|f| f.reasons.iter().chain(f.further.iter()))
    }
}

/// Runs every modelled filter plugin for `pod` on every node of `state`, in
/// state order. Deterministic: the same input gives the same output.
///
/// Source: kube-scheduler `findNodesThatFitPod` (PreFilter, then per node
/// `RunFilterPlugins` in the default plugin order), except that every plugin
/// runs even after one failed, so all reasons are known.
pub fn evaluate(state: &ClusterState, pod: &PodInfo) -> Vec<NodeEvaluation> {
    evaluate_in(&Snapshot::build(state, pod), pod)
}

/// Pods that count toward nodes by their summed requests only, per node
/// name: the requests of pods a [`ClusterState`] does not list (cpu
/// millicores, memory bytes, other resources in their units) with `pods` =
/// their number. What a store's per-node aggregates give without reading
/// each pod (kdrift issue 6: 150,000 pods at an instant).
pub type SummedPods = BTreeMap<String, ResourceList>;

/// [`evaluate`] on `state` plus the pods of `summed`, which count toward
/// their node's requested amounts and pod count (NodeResourcesFit) exactly
/// as listed pods with those requests would. The summed pods are invisible
/// to the filters that read pods one by one, so the verdicts equal those
/// of [`evaluate`] on a state listing them only when none of them has host
/// ports (NodePorts) or inter-pod (anti-)affinity terms (InterPodAffinity,
/// symmetric anti-affinity), and none is the incoming pod itself (which
/// [`evaluate`] leaves out). A summed node that `state` does not have is
/// ignored, as pods bound to it are.
///
/// `None` when `pod` has required pod affinity or anti-affinity terms or a
/// `DoNotSchedule` topology spread constraint: InterPodAffinity and
/// PodTopologySpread would then match them against every existing pod's
/// labels, which sums do not carry (list every pod and call [`evaluate`]).
pub fn evaluate_with_sums(state: &ClusterState, summed: &SummedPods, pod: &PodInfo) -> Option<Vec<NodeEvaluation>> {
    if !pod.affinity.pod_affinity.required.is_empty()
        || !pod.affinity.pod_anti_affinity.required.is_empty()
        || pod_topology_spread::has_filter_constraints(pod)
    {
        return None;
    }
    let mut snap = Snapshot::build(state, pod);
    for (node, sums) in summed {
        if let Some(&i) = snap.index.get(node.as_str()) {
            snap.slots[i].add_summed(sums);
        }
    }
    Some(evaluate_in(&snap, pod))
}

/// [`evaluate`] on a built snapshot.
pub(crate) fn evaluate_in(snap: &Snapshot<'_>, pod: &PodInfo) -> Vec<NodeEvaluation> {
    let names = node_affinity::prefilter_node_names(pod);
    let ipa = inter_pod_affinity::PreFilterState::build(snap, pod);
    let spread = pod_topology_spread::FilterState::build(snap, pod);
    snap.slots
        .iter()
        .map(|slot| {
            let mut failures = Vec::new();
            let affinity = node_affinity::filter(pod, slot.node);
            let excluded = matches!(&names, NodeNameFilter::Only(set) if !set.contains(&slot.node.name));
            if excluded {
                // The scheduler never runs the filters on such a node; the
                // NodeAffinity mismatch behind the exclusion is kept as "further".
                failures.push(PluginFailure {
                    plugin: Plugin::NodeAffinity,
                    reasons: vec![FilterFailure::PreFilterExcluded {
                        plugins: vec![Plugin::NodeAffinity.name().to_string()],
                    }],
                    further: affinity.clone().into_iter().collect(),
                });
            }
            failures.extend(first_and_rest(
                Plugin::NodeUnschedulable,
                node_basics::node_unschedulable(pod, slot.node).into_iter().collect(),
            ));
            failures
                .extend(first_and_rest(Plugin::NodeName, node_basics::node_name(pod, slot.node).into_iter().collect()));
            failures.extend(first_and_rest(Plugin::TaintToleration, taint_toleration::filter(pod, slot.node)));
            if !excluded {
                failures.extend(first_and_rest(Plugin::NodeAffinity, affinity.into_iter().collect()));
            }
            failures.extend(first_and_rest(Plugin::NodePorts, node_basics::node_ports(pod, slot)));
            let fit = resources_fit::fits_request(pod, slot);
            if !fit.is_empty() {
                // NodeResourcesFit reports every insufficient resource in one status.
                failures.push(PluginFailure { plugin: Plugin::NodeResourcesFit, reasons: fit, further: Vec::new() });
            }
            if !spread.is_empty() {
                failures
                    .extend(first_and_rest(Plugin::PodTopologySpread, spread.filter(slot.node).into_iter().collect()));
            }
            failures.extend(first_and_rest(Plugin::InterPodAffinity, ipa.filter(pod, slot.node)));
            NodeEvaluation { node: slot.node.name.clone(), failures }
        })
        .collect()
}

/// A plugin status that carries only its first finding (the plugin returns
/// there); the rest are kept as `further`.
fn first_and_rest(plugin: Plugin, found: Vec<FilterFailure>) -> Option<PluginFailure> {
    let mut it = found.into_iter();
    let first = it.next()?;
    Some(PluginFailure { plugin, reasons: vec![first], further: it.collect() })
}

/// Rebuilds kube-scheduler's `FailedScheduling` text from per-node
/// evaluations: `0/N nodes are available: ` then `<count> <reason>` for each
/// reason of each node's FIRST failing plugin, the items sorted as TEXT,
/// joined with `, `, ended with `.`; feasible nodes add nothing.
///
/// Source: kube-scheduler `FitError.Error()` (`kubernetes-events.md` §1).
pub fn fit_error_message(total_nodes: usize, evaluations: &[NodeEvaluation]) -> String {
    let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
    for e in evaluations {
        if let Some(f) = e.first_failure() {
            for r in &f.reasons {
                *histogram.entry(r.message()).or_insert(0) += 1;
            }
        }
    }
    let mut items: Vec<String> = histogram.into_iter().map(|(reason, n)| format!("{n} {reason}")).collect();
    items.sort();
    let mut msg = format!("0/{total_nodes} nodes are available:");
    if !items.is_empty() {
        msg.push(' ');
        msg.push_str(&items.join(", "));
        msg.push('.');
    }
    msg
}

/// The whole-pod rejection a PreFilter would make before any node is looked
/// at, if any: `pod affinity terms conflict` when every required node affinity
/// term pins `metadata.name` and the pinned sets leave no node.
/// Source: NodeAffinity `PreFilter` (`errReasonConflict`).
pub fn prefilter_rejection(pod: &PodInfo) -> Option<String> {
    match node_affinity::prefilter_node_names(pod) {
        NodeNameFilter::Conflict => Some("pod affinity terms conflict".to_string()),
        _ => None,
    }
}

/// The message the scheduler would write for `pod` now, or `None` when some
/// node is feasible: `no nodes available to schedule pods` without nodes, the
/// PreFilter text (`0/5 nodes are available: pod affinity terms conflict.`),
/// or [`fit_error_message`] over [`evaluate`]. Preemption's appended text is
/// not modelled.
pub fn scheduler_message(state: &ClusterState, pod: &PodInfo) -> Option<String> {
    if state.nodes.is_empty() {
        return Some("no nodes available to schedule pods".to_string());
    }
    if let Some(reason) = prefilter_rejection(pod) {
        return Some(format!("0/{} nodes are available: {reason}.", state.nodes.len()));
    }
    message_in(&Snapshot::build(state, pod), pod)
}

/// [`scheduler_message`] on a built snapshot of a state with nodes, once the
/// PreFilter passed.
pub(crate) fn message_in(snap: &Snapshot<'_>, pod: &PodInfo) -> Option<String> {
    let evals = evaluate_in(snap, pod);
    if evals.iter().any(NodeEvaluation::is_feasible) {
        return None;
    }
    Some(fit_error_message(snap.slots.len(), &evals))
}

#[cfg(test)]
mod tests;
