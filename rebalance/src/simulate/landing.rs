//! One plan's landings: where each evicted pod's replacement would be
//! scheduled, and what that does to the nodes.
//!
//! Model: every evicted pod leaves its node first
//! ([`crate::Snapshot::state_without`]); then, in eviction order, the owner's
//! replacement ([`crate::PodInfo::unbound_copy`]: same spec, unbound,
//! Pending) goes through [`crate::scheduler::pick_node`] on the cluster as the
//! earlier replacements left it (computed on a scheduler cache that is built
//! once and takes each placed replacement, so the cost per replacement is
//! one pass over the nodes, not over every pod). A tie is reported and resolved by node name
//! (the scheduler would pick at random), so the following placements stay
//! reproducible. A pod without a controller is not recreated by anything.

use serde::Serialize;

use super::labels::{label_diffs, LabelDiff};
use super::usage::{cpu_skew, node_changes, tracked_resources, usage_by_node, NodeChange};
use super::SimulateOptions;
use crate::fast_hash::{fast_map, FastMap};
use crate::model::node::NodeInfo;
use crate::model::pod::{PodInfo, PodPhase};
use crate::planner::{Plan, PodRef, Snapshot};
use crate::scheduler::{SchedulerCache, ScoringConfig, StrategyType};

/// What happens to one evicted pod's replacement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum LandingOutcome {
    /// The scheduler would bind it to `node`.
    Scheduled {
        /// The predicted node (first by name among equal best scores).
        node: String,
        /// Its weighted total score (the sum of the default profile's
        /// weighted plugin scores, each 0–100; see [`crate::scheduler::NodeScore`]).
        score: i64,
        /// Other feasible nodes with exactly the same score, by name:
        /// non-empty means the real scheduler picks among them at random.
        tie_with: Vec<String>,
        /// The best node scoring lower than `score`, if any.
        runner_up: Option<String>,
        /// That node's score.
        runner_up_score: Option<i64>,
    },
    /// No node passes the filters: the replacement would stay Pending with
    /// this `FailedScheduling` message (e.g. `0/5 nodes are available: 5
    /// Insufficient cpu.`).
    Unschedulable {
        /// The scheduler's message ([`crate::scheduler::scheduler_message`]).
        message: String,
    },
    /// The pod has no controller (no owner reference with `controller:
    /// true`): evicting it deletes it and nothing creates a replacement.
    NotRecreated,
}

/// One evicted pod and where its replacement lands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Landing {
    /// The eviction's 1-based position in the plan ([`crate::planner::Eviction::order`]).
    pub order: usize,
    /// The evicted pod.
    pub pod: PodRef,
    /// The controller that recreates it, as `Kind/name` (`ReplicaSet/web-5d8f`).
    pub owner: Option<String>,
    /// The node the pod is evicted from.
    pub source_node: String,
    /// Where the replacement goes.
    pub outcome: LandingOutcome,
    /// Watched node labels that differ between `source_node` and the
    /// predicted node (empty when unscheduled or back on the same node).
    pub label_diffs: Vec<LabelDiff>,
}

impl Landing {
    /// The predicted node, when scheduled.
    pub fn node(&self) -> Option<&str> {
        match &self.outcome {
            LandingOutcome::Scheduled { node, .. } => Some(node),
            _ => None,
        }
    }

    /// True when the predicted node is one of several with the same best score.
    pub fn is_tie(&self) -> bool {
        matches!(&self.outcome, LandingOutcome::Scheduled { tie_with, .. } if !tie_with.is_empty())
    }
}

/// More than half of the replacements land on one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PileUp {
    /// The node.
    pub node: String,
    /// Replacements predicted to land there.
    pub count: usize,
    /// Replacements in total (scheduled or Pending; pods not recreated are not counted).
    pub of: usize,
}

/// How bad a warning is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Severity {
    /// A workload goes down: a replacement stays Pending, or is never created.
    Critical,
    /// A likely problem: a pile-up, a landing on a node with other features,
    /// an eviction that lands back where it was.
    Warning,
    /// Worth knowing: a tie the scheduler breaks at random.
    Info,
}

/// What a [`Warning`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum WarningKind {
    /// [`LandingOutcome::Unschedulable`].
    Unschedulable,
    /// [`LandingOutcome::NotRecreated`].
    NotRecreated,
    /// The replacement lands on the node the pod was evicted from.
    BackOnSource,
    /// [`PileUp`].
    PileUp,
    /// [`Landing::label_diffs`] is not empty.
    LabelRisk,
    /// [`Landing::is_tie`].
    Tie,
    /// A run that planned on requests sends the replacement to a node whose
    /// measured usage is above its target ([`super::measured::HotLanding`]).
    HotNode,
    /// An eviction names a pod index the snapshot does not have (the plan
    /// was made from another snapshot); it is left out.
    UnknownPod,
}

/// One warning, ready to print.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// How bad.
    pub severity: Severity,
    /// About what.
    pub kind: WarningKind,
    /// The pod (`namespace/name`), when about one pod.
    pub pod: Option<String>,
    /// The node concerned (the predicted node, or the pile-up node).
    pub node: Option<String>,
    /// The text.
    pub message: String,
}

/// The landing simulation of one plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Simulation {
    /// The scheduler scoring the landings were chosen with
    /// ([`SimulateOptions::scoring`]).
    pub scoring: ScoringConfig,
    /// `cpu`, `memory`, `pods` and the plan's threshold resources, by name.
    pub tracked_resources: Vec<String>,
    /// One per planned eviction, in eviction order.
    pub landings: Vec<Landing>,
    /// Every node of the snapshot (first occurrence of each name, snapshot order).
    pub nodes: Vec<NodeChange>,
    /// max − min of the cpu requested percent over the schedulable nodes
    /// before the evictions, in percentage points.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub cpu_skew_before: Option<f64>,
    /// The same after the replacements landed.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub cpu_skew_after: Option<f64>,
    /// Set when more than half of the replacements land on one node.
    pub pile_up: Option<PileUp>,
    /// Critical first, then warnings, then information; within a severity
    /// in eviction order (the pile-up after the per-pod ones).
    pub warnings: Vec<Warning>,
    /// Measured cpu and memory used before and predicted after the moves,
    /// when the snapshot has measured usage (beyond descheduler; see
    /// `simulate::measured`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_usage: Option<super::measured::PredictedUsage>,
}

impl Simulation {
    /// The landing of the pod called `namespace/name`.
    pub fn landing(&self, key: &str) -> Option<&Landing> {
        self.landings.iter().find(|l| l.pod.key() == key)
    }

    /// The node called `name`.
    pub fn node(&self, name: &str) -> Option<&NodeChange> {
        self.nodes.iter().find(|n| n.node == name)
    }

    /// Replacements that would stay Pending.
    pub fn unschedulable(&self) -> usize {
        self.landings.iter().filter(|l| matches!(l.outcome, LandingOutcome::Unschedulable { .. })).count()
    }

    /// True when some warning is [`Severity::Critical`].
    pub fn has_critical(&self) -> bool {
        self.warnings.iter().any(|w| w.severity == Severity::Critical)
    }
}

/// [`simulate_plan_with`] with the default [`SimulateOptions`].
pub fn simulate_plan(snapshot: &Snapshot, plan: &Plan) -> Simulation {
    simulate_plan_with(snapshot, plan, &SimulateOptions::default())
}

/// Simulates where the pods `plan` evicts from `snapshot` would land. See the
/// module docs for the model. Deterministic.
pub fn simulate_plan_with(snapshot: &Snapshot, plan: &Plan, options: &SimulateOptions) -> Simulation {
    let tracked = tracked_resources(plan);
    let mut warnings = Vec::new();
    let mut valid = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for e in plan.evictions() {
        // A pod RemoveDuplicates evicts once per owner leaves once; a pod
        // whose PDB refuses the eviction (429) stays where it is.
        if e.refused_by_pdb.is_some() || !seen.insert(e.pod.index) {
            continue;
        }
        match snapshot.pods.get(e.pod.index) {
            Some(p) if p.namespace == e.pod.namespace && p.name == e.pod.name => valid.push((e, p)),
            _ => warnings.push(Warning {
                severity: Severity::Warning,
                kind: WarningKind::UnknownPod,
                pod: Some(e.pod.key()),
                node: None,
                message: format!(
                    "eviction #{} names {} at pod index {}, which this snapshot does not have there: left out",
                    e.order,
                    e.pod.key(),
                    e.pod.index
                ),
            }),
        }
    }
    // Every evicted pod leaves first; the replacements are made up front so
    // the scheduler cache can hold the ones it places.
    let mut gone = vec![false; snapshot.pods.len()];
    for (e, _) in &valid {
        gone[e.pod.index] = true;
    }
    let replacements: Vec<Option<PodInfo>> =
        valid.iter().map(|(_, p)| p.controller().is_some().then(|| p.unbound_copy())).collect();
    let staying = snapshot.pods.iter().zip(&gone).filter(|(_, g)| !**g).map(|(p, _)| p);
    let mut cache = SchedulerCache::new(&snapshot.nodes, staying).with_scoring(options.scoring.clone());
    let mut node_named: FastMap<&str, &NodeInfo> = fast_map(snapshot.nodes.len());
    for n in &snapshot.nodes {
        node_named.entry(n.name.as_str()).or_insert(n);
    }
    let mut landings = Vec::new();
    for ((e, original), replacement) in valid.iter().zip(&replacements) {
        let owner = original.controller().map(|o| format!("{}/{}", o.kind, o.name));
        let outcome = match replacement {
            None => LandingOutcome::NotRecreated,
            Some(incoming) => match cache.pick(incoming) {
                Some(p) => {
                    cache.bind(incoming, &p.node);
                    let (runner_up, runner_up_score) = p.runner_up.map_or((None, None), |(n, t)| (Some(n), Some(t)));
                    LandingOutcome::Scheduled {
                        node: p.node,
                        score: p.score,
                        tie_with: p.tie_with,
                        runner_up,
                        runner_up_score,
                    }
                }
                None => LandingOutcome::Unschedulable {
                    message: cache
                        .message(incoming)
                        .unwrap_or_else(|| "no node passes the scheduler's filters".to_string()),
                },
            },
        };
        let diffs = match &outcome {
            LandingOutcome::Scheduled { node, .. } if *node != e.source_node => {
                match (node_named.get(e.source_node.as_str()), node_named.get(node.as_str())) {
                    (Some(s), Some(t)) => label_diffs(s, t, options),
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        };
        landings.push(Landing {
            order: e.order,
            pod: e.pod.clone(),
            owner,
            source_node: e.source_node.clone(),
            outcome,
            label_diffs: diffs,
        });
    }
    for l in &landings {
        warnings.extend(landing_warnings(l));
    }
    let pile_up = pile_up(&landings);
    if let Some(p) = &pile_up {
        warnings.push(Warning {
            severity: Severity::Warning,
            kind: WarningKind::PileUp,
            pod: None,
            node: Some(p.node.clone()),
            message: pile_up_message(p, &options.scoring),
        });
    }
    let predicted_usage = super::measured::predicted_usage(snapshot, plan, &landings);
    // A plan on requests is blind to usage: its hot landings are warnings
    // (a landing back on its source node has its warning above already:
    // new-user trial 42 saw both for one pod).
    for h in predicted_usage.iter().flat_map(|p| &p.hot_landings).filter(|h| h.on_requests && !h.back_on_source) {
        warnings.push(Warning {
            severity: Severity::Warning,
            kind: WarningKind::HotNode,
            pod: Some(h.pod.clone()),
            node: Some(h.node.clone()),
            message: format!("{} (planned on requests; the store's usage samples say so)", h.message),
        });
    }
    warnings.sort_by_key(|w| w.severity);
    let moves: Vec<(&str, Option<&str>)> = landings.iter().map(|l| (l.source_node.as_str(), l.node())).collect();
    let before = usage_by_node(&snapshot.pods);
    let nodes = node_changes(&snapshot.nodes, &before, |n| cache.usage(n), &tracked, &moves);
    Simulation {
        predicted_usage,
        scoring: options.scoring.clone(),
        cpu_skew_before: cpu_skew(&nodes, false),
        cpu_skew_after: cpu_skew(&nodes, true),
        tracked_resources: tracked,
        landings,
        nodes,
        pile_up,
        warnings,
    }
}

/// The pile-up warning's text, naming what the scheduler's scoring favours.
pub(crate) fn pile_up_message(p: &PileUp, scoring: &ScoringConfig) -> String {
    let best = match scoring.strategy.kind {
        StrategyType::LeastAllocated => "the least allocated",
        StrategyType::MostAllocated => "the most allocated: MostAllocated packs",
        StrategyType::RequestedToCapacityRatio => "by its RequestedToCapacityRatio shape",
    };
    format!(
        "pile-up: {} of {} replacement pods land on {}: the scheduler sends them to the node that scores best \
         ({best}), descheduler does not choose destinations",
        p.count, p.of, p.node
    )
}

/// The replacement bound to `node`, as it would run there.
pub(crate) fn bound_to(mut pod: PodInfo, node: &str) -> PodInfo {
    pod.node_name = Some(node.to_string());
    pod.phase = Some(PodPhase::Running);
    pod
}

/// The node with more than half of the replacements, if any (at least two replacements).
pub(crate) fn pile_up(landings: &[Landing]) -> Option<PileUp> {
    let of = landings.iter().filter(|l| !matches!(l.outcome, LandingOutcome::NotRecreated)).count();
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for n in landings.iter().filter_map(Landing::node) {
        *counts.entry(n).or_insert(0) += 1;
    }
    let (node, count) = counts.into_iter().max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))?;
    (of >= 2 && count * 2 > of).then(|| PileUp { node: node.to_string(), count, of })
}

pub(crate) fn landing_warnings(l: &Landing) -> Vec<Warning> {
    let pod = l.pod.key();
    let warn = |severity, kind, node: Option<&str>, message: String| Warning {
        severity,
        kind,
        pod: Some(pod.clone()),
        node: node.map(str::to_string),
        message,
    };
    let mut out = Vec::new();
    match &l.outcome {
        LandingOutcome::NotRecreated => out.push(warn(
            Severity::Critical,
            WarningKind::NotRecreated,
            None,
            format!("{pod} (on {}) has no controller: evicting it deletes it and nothing recreates it", l.source_node),
        )),
        LandingOutcome::Unschedulable { message } => out.push(warn(
            Severity::Critical,
            WarningKind::Unschedulable,
            None,
            format!("{pod}'s replacement (evicted from {}) would stay Pending: {message}", l.source_node),
        )),
        LandingOutcome::Scheduled { node, score, tie_with, .. } => {
            if *node == l.source_node {
                out.push(warn(
                    Severity::Warning,
                    WarningKind::BackOnSource,
                    Some(node),
                    format!(
                        "{pod}'s replacement lands back on {node}, the node it is evicted from: the eviction \
                         frees nothing"
                    ),
                ));
            }
            if !l.label_diffs.is_empty() {
                let diffs: Vec<String> = l.label_diffs.iter().map(LabelDiff::describe).collect();
                out.push(warn(
                    Severity::Warning,
                    WarningKind::LabelRisk,
                    Some(node),
                    format!("{pod} moves from {} to {node}, whose labels differ: {}", l.source_node, diffs.join("; ")),
                ));
            }
            if !tie_with.is_empty() {
                out.push(warn(
                    Severity::Info,
                    WarningKind::Tie,
                    Some(node),
                    format!(
                        "{pod}: {node} ties with {} (score {score}): the scheduler picks one at random; the \
                         simulation goes on with {node} (first by name)",
                        tie_with.join(", ")
                    ),
                ));
            }
        }
    }
    out
}
