//! The plan: pure data describing what descheduler's LowNodeUtilization would
//! do with a snapshot, and why — per node, per pod, per limit.
//!
//! Every text marked `upstream_message: true` is descheduler v0.36's own log
//! or error text; the others are kdrift's wording for decisions upstream makes
//! silently.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::pod::qos::QosClass;
use crate::model::resources::ResourceList;
use crate::policy::ExtensionPoint;

/// The plan's compatibility mode.
pub const MODE_DESCHEDULER_V0_36: &str = "descheduler-v0.36";

/// descheduler's log line when fewer than two nodes are considered: it
/// skips the whole cycle (descheduler-lownodeutilization.md §1).
pub const SKIPPED_FEW_NODES: &str = "Skipping descheduling cycle: requires >=2 nodes";

/// A pod, by name (and uid when known), plus its index in [`super::Snapshot::pods`]
/// so a later step (a landing simulation) can fetch the full [`crate::PodInfo`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PodRef {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: Option<String>,
    /// Index into `Snapshot::pods`.
    pub index: usize,
}

impl PodRef {
    /// `namespace/name`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

/// The whole plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// [`MODE_DESCHEDULER_V0_36`].
    pub mode: String,
    /// The options the plan was made with.
    pub options: super::PlanOptions,
    /// Nodes descheduler works on: Ready (upstream `IsReady`: no Ready
    /// condition with a status other than True) and matching the policy
    /// `nodeSelector`; sorted by name.
    pub nodes_considered: Vec<String>,
    /// The other nodes and why they are left out.
    pub nodes_excluded: Vec<ExcludedNode>,
    /// Set when nothing was planned at all: an invalid policy, or fewer than
    /// two nodes ("Skipping descheduling cycle: requires >=2 nodes").
    pub aborted: Option<String>,
    /// One run per profile that enables LowNodeUtilization in `plugins.balance`, in profile order.
    pub runs: Vec<PluginRun>,
    /// Evictions over all runs that the API would admit (those a PDB
    /// refuses are listed in the runs but not counted here).
    pub evictions_total: usize,
    /// Things the plan could not model exactly (e.g. `metricsUtilization`),
    /// or upstream quirks that apply (an unresolvable priority threshold).
    pub warnings: Vec<String>,
}

impl Plan {
    /// Every planned eviction, in order, over all runs.
    pub fn evictions(&self) -> impl Iterator<Item = &Eviction> {
        self.runs.iter().flat_map(|r| r.evictions.iter())
    }

    /// The `Snapshot::pods` indices of the evicted pods, in eviction order.
    /// Each pod once, at its first eviction (RemoveDuplicates evicts a pod
    /// with two owners once per owner, as descheduler v0.36 does); evictions
    /// a PDB refuses are left out (the pod stays).
    pub fn evicted_pod_indices(&self) -> Vec<usize> {
        let mut seen = std::collections::BTreeSet::new();
        self.evictions()
            .filter(|e| e.refused_by_pdb.is_none())
            .map(|e| e.pod.index)
            .filter(|i| seen.insert(*i))
            .collect()
    }

    /// When descheduler has nothing to do on this cluster whatever the
    /// thresholds: fewer than two nodes are considered, so it skips its
    /// cycle ([`SKIPPED_FEW_NODES`]); in words, naming the nodes. `None`
    /// otherwise (an invalid policy is no such case).
    pub fn too_few_nodes(&self) -> Option<String> {
        if self.aborted.as_deref() != Some(SKIPPED_FEW_NODES) {
            return None;
        }
        let considered = match self.nodes_considered.as_slice() {
            [] => "no node is".to_string(),
            [one] => format!("only {one} is"),
            more => format!("only {} are", more.join(", ")),
        };
        let left_out = if self.nodes_excluded.is_empty() {
            String::new()
        } else {
            let ex: Vec<String> = self.nodes_excluded.iter().map(|e| format!("{}: {}", e.name, e.reason)).collect();
            format!(" (left out: {})", ex.join(", "))
        };
        Some(format!(
            "descheduler skips its cycle when fewer than 2 nodes are Ready and match the nodeSelector, and \
             {considered}{left_out}: nothing is classified or evicted, whatever the thresholds (\"{SKIPPED_FEW_NODES}\")"
        ))
    }
}

/// A node left out of the cycle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExcludedNode {
    /// The node.
    pub name: String,
    /// `not Ready` or `does not match nodeSelector "..."`.
    pub reason: String,
}

/// One plugin's run in one profile.
///
/// Every plugin fills `evictions`, `skipped` and `notes`. The utilization
/// fields (`thresholds` to `source_nodes`) are filled by LowNodeUtilization
/// and HighNodeUtilization and left empty by the others.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PluginRun {
    /// The profile name.
    pub profile: String,
    /// The plugin, e.g. `LowNodeUtilization`, `RemovePodsViolatingNodeTaints`.
    pub plugin: String,
    /// Where it runs in the cycle.
    pub extension_point: ExtensionPoint,
    /// Plugin-level outcomes in descheduler's words where it logs one
    /// (e.g. "Less than two feasible nodes for duplicates to land, skipping
    /// eviction"), or kdrift's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The thresholds as applied to every node.
    pub thresholds: ThresholdsApplied,
    /// Resources tracked: threshold keys plus always `cpu`, `memory`, `pods`
    /// (descheduler v0.36 `extendedResourceNames`), in name order.
    pub tracked_resources: Vec<String>,
    /// Every considered node, by name.
    pub nodes: Vec<NodeReport>,
    /// Why the run stopped before evicting anything, if it did.
    pub early_exit: Option<EarlyExit>,
    /// The movable amount over the underutilized nodes (absent after an early exit).
    pub budget: Option<Budget>,
    /// Overutilized nodes in the order they were drained, and how each ended.
    pub source_nodes: Vec<SourceNode>,
    /// The evictions of this run, in order.
    pub evictions: Vec<Eviction>,
    /// Every candidate pod that was not evicted, with the reason: pods that
    /// break (or are candidates of) the plugin's rule but are protected
    /// (DefaultEvictor Filter / PreEvictionFilter, nodeFit), stopped by a
    /// limit, not reached or already evicted, plus pods the plugin rejected
    /// for a reason of its own (e.g. the kept original of a duplicate).
    pub skipped: Vec<SkippedPod>,
    /// Pods the plugin looked at (in its namespace/label scope) that do not
    /// break its rule: counted, not listed in `skipped` (rule plugins only).
    pub not_matching: usize,
    /// Set only when planning for [`super::explain_pod`]: why the explained
    /// pod does not break this plugin's rule, with its numbers (it is one of
    /// `not_matching`). Not serialized.
    #[serde(skip)]
    pub explained_not_matching: Option<String>,
    /// The error that failed the run, in descheduler's words (e.g. `error
    /// getting node usage: unable to find node "n1" in the collected
    /// metrics`): nothing was classified or evicted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the usage came from when it is measured (`metricsUtilization`);
    /// `None`: requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_source: Option<super::metrics::UsageSource>,
}

impl PluginRun {
    /// An empty run of `plugin` in `profile` (no evictions, skips, notes or
    /// utilization figures).
    pub fn new(profile: &str, plugin: &str, extension_point: ExtensionPoint) -> PluginRun {
        PluginRun {
            profile: profile.to_string(),
            plugin: plugin.to_string(),
            extension_point,
            notes: Vec::new(),
            thresholds: ThresholdsApplied::default(),
            tracked_resources: Vec::new(),
            nodes: Vec::new(),
            early_exit: None,
            budget: None,
            source_nodes: Vec::new(),
            evictions: Vec::new(),
            skipped: Vec::new(),
            not_matching: 0,
            explained_not_matching: None,
            error: None,
            usage_source: None,
        }
    }
}

/// Static or deviation thresholds, after computing them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ThresholdsApplied {
    /// `useDeviationThresholds`.
    pub deviation: bool,
    /// The mean usage percent per threshold resource over all considered
    /// nodes (deviation mode only; unschedulable nodes included).
    pub averages: Option<BTreeMap<String, f64>>,
    /// Underutilized when usage <= this for every resource (inclusive).
    pub low: BTreeMap<String, f64>,
    /// Overutilized when usage > this for any resource (strict).
    pub high: BTreeMap<String, f64>,
}

/// The class of a node. Source: descheduler v0.36 `Classify` (under tested first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum NodeClass {
    /// Every threshold resource at or below `low`, and schedulable.
    Underutilized,
    /// Neither.
    AppropriatelyUtilized,
    /// Some target resource above `high`.
    Overutilized,
}

/// One node's usage and class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeReport {
    /// The node.
    pub name: String,
    /// The class.
    pub class: NodeClass,
    /// `spec.unschedulable`.
    pub unschedulable: bool,
    /// Per tracked resource.
    pub resources: Vec<ResourceUsage>,
    /// descheduler's source-order key: the raw sum of usage values (cpu in
    /// millicores + memory bytes + pod count + extended units).
    pub usage_sum: i64,
    /// Why the node got its class, e.g. `cpu 80.0 % > 50` or
    /// `Node is unschedulable, thus not considered as underutilized`.
    pub why: String,
}

/// Usage of one resource on one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceUsage {
    /// The resource.
    pub resource: String,
    /// Sum of requests of the pods counting toward the node (`pods`: their
    /// number); with `metricsUtilization`, the measured usage (cpu
    /// millicores, memory bytes; `MetricResource`: the query value × 100).
    pub used: i64,
    /// Allocatable (capacity when allocatable is empty); `None` when the node lacks the resource.
    pub allocatable: Option<i64>,
    /// `used / allocatable * 100`, unclamped; 0 when the node lacks the resource.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths")]
    pub percent: f64,
    /// The underutilization threshold, when the resource has one.
    pub low: Option<f64>,
    /// The target threshold, when the resource has one.
    pub high: Option<f64>,
    /// Allocatable capped at `high`: `int64(high * 0.01 * allocatable)`
    /// (truncated), full allocatable without a target, 0 when the node lacks
    /// the resource. Source: descheduler v0.36 `capNodeCapacityToThreshold`.
    pub cap: i64,
}

/// Why a run ended before evicting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EarlyExit {
    /// Which check.
    pub kind: EarlyExitKind,
    /// descheduler's log message.
    pub message: String,
}

/// The early exits, in the order descheduler checks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum EarlyExitKind {
    /// No node is underutilized.
    NoUnderutilizedNode,
    /// Underutilized nodes <= `numberOfNodes`.
    TooFewUnderutilizedNodes,
    /// Every node is underutilized.
    AllNodesUnderutilized,
    /// No node is overutilized.
    NoOverutilizedNode,
}

impl EarlyExitKind {
    /// descheduler v0.36's message.
    pub fn message(self) -> &'static str {
        match self {
            EarlyExitKind::NoUnderutilizedNode => {
                "No node is underutilized, nothing to do here, you might tune your thresholds further"
            }
            EarlyExitKind::TooFewUnderutilizedNodes => {
                "Number of nodes underutilized is less or equal than NumberOfNodes, nothing to do here"
            }
            EarlyExitKind::AllNodesUnderutilized => "All nodes are underutilized, nothing to do here",
            EarlyExitKind::NoOverutilizedNode => "All nodes are under target utilization, nothing to do here",
        }
    }
}

/// The shared budget: per tracked resource, the sum over underutilized nodes
/// of `cap - usage`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// Before any eviction.
    pub initial: ResourceList,
    /// After the last eviction.
    pub remaining: ResourceList,
}

/// An overutilized node as a source of evictions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceNode {
    /// The node.
    pub node: String,
    /// The sort key (see [`NodeReport::usage_sum`]).
    pub usage_sum: i64,
    /// Pods passing the evictor filter.
    pub removable: usize,
    /// Pods failing it.
    pub non_removable: usize,
    /// Pods evicted from it in this run.
    pub evicted: usize,
    /// How the node's loop ended.
    pub stop: StopReason,
    /// [`StopReason::message`] of `stop`.
    pub stop_message: String,
}

/// How the loop over one source node ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum StopReason {
    /// No pod passed the evictor filter.
    NoRemovablePods,
    /// The node is no longer above its target on any resource.
    NoLongerAboveTarget,
    /// A budget resource reached zero or below.
    BudgetExhausted {
        /// The exhausted resources.
        resources: Vec<String>,
    },
    /// `evictionLimits.node` reached for this node.
    PluginNodeLimit {
        /// The limit.
        limit: u32,
    },
    /// `maxNoOfPodsToEvictPerNode` reached.
    MaxPerNode,
    /// `maxNoOfPodsToEvictTotal` reached: the run ends here.
    MaxTotal,
    /// Every removable pod was tried.
    CandidatesExhausted,
    /// Never visited: the run ended on an earlier node (total limit).
    NotVisited,
    /// `metricsUtilization` Prometheus without `evictionLimits.node`: pod
    /// usage is unknown, so descheduler evicts one pod per overutilized node.
    SinglePodEviction,
}

impl StopReason {
    /// The message (descheduler's where it has one).
    pub fn message(&self) -> String {
        match self {
            StopReason::NoRemovablePods => "No removable pods on node, try next node".to_string(),
            StopReason::NoLongerAboveTarget => "node is no longer above its target utilization".to_string(),
            StopReason::BudgetExhausted { resources } => {
                format!("the underutilized nodes have no room left for {}", resources.join(", "))
            }
            StopReason::PluginNodeLimit { .. } => "Max number of evictions per node per plugin reached".to_string(),
            StopReason::MaxPerNode => "maximum number of evicted pods per node reached".to_string(),
            StopReason::MaxTotal => "maximum number of evicted pods per a descheduling cycle reached".to_string(),
            StopReason::CandidatesExhausted => "every removable pod on the node was tried".to_string(),
            StopReason::SinglePodEviction => "Currently, only a single pod eviction is allowed".to_string(),
            StopReason::NotVisited => {
                "not visited: the cycle's eviction limit was reached on an earlier node".to_string()
            }
        }
    }
}

/// One planned eviction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Eviction {
    /// 1-based position over the whole plan.
    pub order: usize,
    /// The pod.
    pub pod: PodRef,
    /// The node it leaves.
    pub source_node: String,
    /// The profile.
    pub profile: String,
    /// The plugin that chose it, e.g. `LowNodeUtilization`.
    pub plugin: String,
    /// Position among the node's removable pods in descheduler's order (1-based).
    pub rank_on_node: usize,
    /// The rule that put the pod here, e.g. `lowest priority first (none),
    /// then BestEffort before Burstable before Guaranteed (BestEffort), ...`.
    pub rule: String,
    /// `spec.priority`.
    pub priority: Option<i32>,
    /// The QoS class.
    pub qos: QosClass,
    /// Has the `descheduler.alpha.kubernetes.io/prefer-no-eviction` annotation.
    pub prefer_no_eviction: bool,
    /// What leaving frees, per tracked resource (requests; `pods` = 1);
    /// empty for plugins that track no usage.
    pub frees: ResourceList,
    /// The shared budget after this eviction (utilization plugins only).
    pub budget_after: ResourceList,
    /// The source node's usage after this eviction (utilization plugins only).
    pub node_usage_after: ResourceList,
    /// The cycle's eviction counts once this eviction is counted, against
    /// the policy's limits (shared by every profile and plugin). A refused
    /// eviction is not counted: these are the counts it left unchanged.
    pub counted: LimitCounts,
    /// `NS/NAME` of the PodDisruptionBudget that allows no disruption: the
    /// API will refuse this eviction (429). It frees nothing, lands nowhere
    /// and v0.36 counts it against no limit (`super::pdb`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused_by_pdb: Option<String>,
}

impl Eviction {
    /// "descheduler will try it and the API will refuse it (429, PDB NS/NAME)"
    /// when a PDB refuses it.
    pub fn refusal(&self) -> Option<String> {
        self.refused_by_pdb.as_deref().map(super::pdb::refusal_text)
    }
}

/// The cycle-wide eviction counts after one eviction, and the policy's
/// limits they count against (descheduler v0.36 `PodEvictor`: one per
/// cycle, shared by every profile and plugin).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LimitCounts {
    /// Evictions in the cycle so far.
    pub total: u32,
    /// `maxNoOfPodsToEvictTotal`.
    pub max_total: Option<u32>,
    /// Evictions from this pod's node so far.
    pub node: u32,
    /// `maxNoOfPodsToEvictPerNode`.
    pub max_per_node: Option<u32>,
    /// Evictions from this pod's namespace so far.
    pub namespace: u32,
    /// `maxNoOfPodsToEvictPerNamespace`.
    pub max_per_namespace: Option<u32>,
}

/// A candidate pod that was not evicted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedPod {
    /// The pod.
    pub pod: PodRef,
    /// Its node.
    pub node: String,
    /// Why.
    pub reason: SkipReason,
    /// The reason as text.
    pub message: String,
    /// True when `message` is descheduler's own text.
    pub upstream_message: bool,
}

/// Why a pod on a source node was not evicted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum SkipReason {
    /// The DefaultEvictor Filter failed; every failed check, in upstream order.
    NotEvictable {
        /// Each check's message.
        checks: Vec<String>,
        /// What kdrift adds in its own words, e.g. for a mirror pod "static
        /// pod from NODE's kubelet manifest: deleting its mirror would not
        /// stop it".
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `noEvictionPolicy: Mandatory` and the prefer-no-eviction annotation.
    MandatoryNoEviction,
    /// Already evicted earlier in this cycle (an earlier plugin or profile).
    AlreadyEvicted,
    /// `skip_zero_request`: the pod frees nothing of the resources the node is over on.
    FreesNothing {
        /// The resources the node is over target on.
        over: Vec<String>,
    },
    /// Tolerates no underutilized node's taints.
    UntoleratedTaints,
    /// In `evictableNamespaces.exclude`.
    ExcludedNamespace,
    /// nodeFit: fits no other Ready node.
    NodeFit {
        /// Each other node's first failing check, e.g. `node-2: required
        /// anti-affinity with web/x; node-3: insufficient cpu (requests
        /// 400m, 100m free)`.
        why: String,
    },
    /// `namespaceLabelSelector` does not select the namespace.
    NamespaceLabelSelector,
    /// `maxNoOfPodsToEvictPerNamespace` reached (the loop goes on).
    MaxPerNamespace,
    /// `maxNoOfPodsToEvictPerNode` reached at this pod (the node's loop ends).
    MaxPerNode,
    /// `maxNoOfPodsToEvictTotal` reached at this pod (the run ends).
    MaxTotal,
    /// The loop ended before this pod.
    NotReached {
        /// How it ended.
        stop: StopReason,
    },
    /// A plugin's own rule keeps the pod (e.g. its restarts are below
    /// `podRestartThreshold`, it tolerates every taint of its node).
    Rule {
        /// A short stable key for the rule, e.g. `restarts-below-threshold`.
        rule: String,
        /// The reason in words, with the numbers.
        message: String,
        /// True when `message` is descheduler's own text.
        upstream: bool,
    },
}

impl SkipReason {
    /// The message and whether it is descheduler's own text.
    pub fn message(&self) -> (String, bool) {
        match self {
            SkipReason::NotEvictable { checks, note: None } => (crate::policy::aggregate(checks), true),
            SkipReason::NotEvictable { checks, note: Some(n) } => {
                (format!("{} — {n}", crate::policy::aggregate(checks)), false)
            }
            SkipReason::MandatoryNoEviction => (
                "pod has the descheduler.alpha.kubernetes.io/prefer-no-eviction annotation and noEvictionPolicy is Mandatory".to_string(),
                false,
            ),
            SkipReason::AlreadyEvicted => ("pod was already evicted earlier in this cycle (by an earlier plugin or profile)".to_string(), false),
            SkipReason::FreesNothing { over } => (
                format!("pod requests none of the resources the node is over target on ({})", over.join(", ")),
                false,
            ),
            SkipReason::UntoleratedTaints => ("Skipping eviction for pod, doesn't tolerate node taint".to_string(), true),
            SkipReason::ExcludedNamespace => ("namespace is in evictableNamespaces.exclude".to_string(), false),
            SkipReason::NodeFit { why } => (
                format!(
                    "pod does not fit on any other node because of nodeSelector(s), Taint(s), or nodes marked as unschedulable ({why})"
                ),
                false,
            ),
            SkipReason::NamespaceLabelSelector => (
                "pod namespace do not match the namespaceLabelSelector filter in the policy parameter".to_string(),
                true,
            ),
            SkipReason::MaxPerNamespace => ("maximum number of evicted pods per namespace reached".to_string(), true),
            SkipReason::MaxPerNode => ("maximum number of evicted pods per node reached".to_string(), true),
            SkipReason::MaxTotal => ("maximum number of evicted pods per a descheduling cycle reached".to_string(), true),
            SkipReason::NotReached { stop } => (format!("not reached: {}", stop.message()), false),
            SkipReason::Rule { message, upstream, .. } => (message.clone(), *upstream),
        }
    }
}
