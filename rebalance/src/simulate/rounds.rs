//! Night after night: plan → simulate the landings → apply them → plan again.
//!
//! A descheduler CronJob runs again on the cluster its last run left. Each
//! round here plans on the current snapshot ([`crate::plan`]), simulates the
//! landings ([`super::simulate_plan_with`]), then replaces every evicted pod
//! by its replacement on the predicted node (Pending and unbound when it
//! fits nowhere, and not retried in later rounds; gone when nothing
//! recreates it), created at the round's
//! "now", and moves "now" on by [`super::SimulateOptions::round_interval_seconds`].
//! Replacements keep the evicted pod's name (a ReplicaSet would pick a new
//! suffix) so a pod can be followed from night to night.
//!
//! A pod whose replacement is evicted again the next night is an
//! [`EvictionLoop`] (which plugin evicted it, where it landed, which plugin
//! evicts it again).
//!
//! It stops when a round plans no eviction — [`Verdict::NothingToDo`] when
//! descheduler skips its cycle on this cluster (fewer than two nodes:
//! nothing is classified, whatever the thresholds), [`Verdict::Converged`]
//! when no node is above its target any more, otherwise [`Verdict::Stalled`] with the
//! reason taken from the plan's early exit (no underutilized node, too few
//! of them for `numberOfNodes`, …) or from why no pod on the overutilized
//! nodes could be evicted — when a round finds exactly the classes and usage
//! of an earlier round (the evicted pods came back: descheduler would evict
//! them forever; [`Verdict::Stalled`]), or after `max_rounds` rounds
//! ([`Verdict::Limit`]).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::landing::{bound_to, simulate_plan_with, Landing, LandingOutcome, PileUp, Simulation};
use super::SimulateOptions;
use crate::model::percent::percent_text;
use crate::planner::{plan, EarlyExit, EarlyExitKind, NodeClass, NodeReport, Plan, PlanOptions, PluginRun, Snapshot};
use crate::policy::Policy;

/// How a series of rounds ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum Verdict {
    /// A round planned no eviction and no node is above its target.
    Converged {
        /// Rounds that evicted something before that (0: nothing to do at all).
        rounds: usize,
    },
    /// Nothing more will move although some node is still above its target,
    /// or the cluster came back to an earlier round's state.
    Stalled {
        /// The 1-based round that planned nothing (or repeated an earlier one).
        round: usize,
        /// Why, in words, e.g. `after round 1 no node is below 40 % cpu
        /// (lowest: node-5 at 41.2 %): nothing more will move while node-1
        /// stays above target (cpu 88.5 % > 80)`.
        reason: String,
    },
    /// descheduler skips its cycle on this cluster: fewer than two nodes
    /// are considered ([`crate::planner::SKIPPED_FEW_NODES`]), so nothing
    /// is classified or evicted, whatever the thresholds — nothing to do,
    /// not a stall.
    NothingToDo {
        /// Why, in words ([`Plan::too_few_nodes`]).
        reason: String,
    },
    /// Every one of the `max_rounds` rounds still evicted something.
    Limit {
        /// The number of rounds run.
        rounds: usize,
    },
}

/// One round ("night N").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Round {
    /// 1-based.
    pub number: usize,
    /// The snapshot's "now" in this round.
    pub now: DateTime<Utc>,
    /// The class of every considered node in the first LowNodeUtilization run.
    pub classes: BTreeMap<String, NodeClass>,
    /// The first run's early exit, if it ended there.
    pub early_exit: Option<EarlyExit>,
    /// [`Plan::aborted`].
    pub aborted: Option<String>,
    /// Evictions planned in this round.
    pub evictions: usize,
    /// The landings of those evictions and every node's percent before and after.
    pub simulation: Simulation,
}

impl Round {
    /// The evicted pods, `namespace/name`, in eviction order.
    pub fn evicted(&self) -> Vec<String> {
        self.simulation.landings.iter().map(|l| l.pod.key()).collect()
    }

    /// The pile-up of this round, if any.
    pub fn pile_up(&self) -> Option<&PileUp> {
        self.simulation.pile_up.as_ref()
    }

    /// Requested percent of `resource` on `node` after this round's landings.
    pub fn percent_after(&self, node: &str, resource: &str) -> Option<f64> {
        self.simulation.node(node).and_then(|n| n.percent_after(resource))
    }
}

/// Every round and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rounds {
    /// The rounds in order, including the last one that planned nothing.
    pub rounds: Vec<Round>,
    /// How it ended.
    pub verdict: Verdict,
    /// Pods whose replacement is evicted again the next night: a loop
    /// (e.g. RemoveDuplicates evicting a copy the scheduler puts back next
    /// to its sibling, or a pod landing where a Deschedule plugin evicts it).
    pub loops: Vec<EvictionLoop>,
}

/// A pod evicted on one night and its replacement evicted again the next.
/// Replacements keep the evicted pod's name (see the module docs), so
/// `pod` names both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvictionLoop {
    /// `namespace/name`.
    pub pod: String,
    /// The round of the first eviction.
    pub round: usize,
    /// The plugin that evicted it then.
    pub plugin: String,
    /// Where its replacement landed (`None`: stayed Pending).
    pub landed_on: Option<String>,
    /// The plugin that evicts the replacement the next round.
    pub again_by: String,
}

impl Rounds {
    /// Evictions over all rounds.
    pub fn total_evictions(&self) -> usize {
        self.rounds.iter().map(|r| r.evictions).sum()
    }

    /// Replacements left Pending over all rounds.
    pub fn total_unschedulable(&self) -> usize {
        self.rounds.iter().map(|r| r.simulation.unschedulable()).sum()
    }

    /// Rounds with a pile-up.
    pub fn pile_ups(&self) -> usize {
        self.rounds.iter().filter(|r| r.pile_up().is_some()).count()
    }

    /// The rounds that evicted something before converging, when converged.
    pub fn rounds_to_converge(&self) -> Option<usize> {
        match self.verdict {
            Verdict::Converged { rounds } => Some(rounds),
            _ => None,
        }
    }
}

/// [`simulate_rounds_with`] with the default [`SimulateOptions`].
pub fn simulate_rounds(snapshot: &Snapshot, policy: &Policy, options: &PlanOptions, max_rounds: usize) -> Rounds {
    simulate_rounds_with(snapshot, policy, options, &SimulateOptions::default(), max_rounds)
}

/// Runs up to `max_rounds` rounds of plan → simulate → apply. See the module docs.
pub fn simulate_rounds_with(
    snapshot: &Snapshot,
    policy: &Policy,
    options: &PlanOptions,
    simulate: &SimulateOptions,
    max_rounds: usize,
) -> Rounds {
    let mut current = snapshot.clone();
    let mut seen: Vec<Fingerprint> = Vec::new();
    let mut rounds = Vec::new();
    let mut loops = Vec::new();
    // The previous round's evictions: pod key → (plugin, landed on).
    let mut previous: HashMap<String, (String, Option<String>)> = HashMap::new();
    for number in 1..=max_rounds {
        let planned = plan(&current, policy, options);
        let simulation = simulate_plan_with(&current, &planned, simulate);
        for e in planned.evictions() {
            if let Some((plugin, landed_on)) = previous.get(&e.pod.key()) {
                loops.push(EvictionLoop {
                    pod: e.pod.key(),
                    round: number - 1,
                    plugin: plugin.clone(),
                    landed_on: landed_on.clone(),
                    again_by: e.plugin.clone(),
                });
            }
        }
        previous = planned
            .evictions()
            .map(|e| {
                let landed = simulation.landings.iter().find(|l| l.order == e.order).and_then(|l| match &l.outcome {
                    LandingOutcome::Scheduled { node, .. } => Some(node.clone()),
                    _ => None,
                });
                (e.pod.key(), (e.plugin.clone(), landed))
            })
            .collect();
        // The first utilization run (LowNodeUtilization, HighNodeUtilization) classifies the nodes.
        let first = planned.runs.iter().find(|r| !r.nodes.is_empty());
        rounds.push(Round {
            number,
            now: current.now,
            classes: first.map(|r| r.nodes.iter().map(|n| (n.name.clone(), n.class)).collect()).unwrap_or_default(),
            early_exit: first.and_then(|r| r.early_exit.clone()),
            aborted: planned.aborted.clone(),
            evictions: planned.evictions_total,
            simulation,
        });
        if planned.evictions_total == 0 {
            if let Some(reason) = planned.too_few_nodes() {
                return Rounds { rounds, verdict: Verdict::NothingToDo { reason }, loops };
            }
            let verdict = match stall_reason(&planned, policy, number) {
                Some(reason) => Verdict::Stalled { round: number, reason },
                None => Verdict::Converged { rounds: number - 1 },
            };
            return Rounds { rounds, verdict, loops };
        }
        let fp = fingerprint(&planned);
        if let Some(earlier) = seen.iter().position(|f| *f == fp) {
            let reason = format!(
                "round {number} finds every node in the same class with the same requests as round {}: the \
                 pods evicted each night ({}) land back where they were, descheduler would evict them night \
                 after night",
                earlier + 1,
                evicting_plugins(&planned)
            );
            return Rounds { rounds, verdict: Verdict::Stalled { round: number, reason }, loops };
        }
        seen.push(fp);
        if let Some(r) = rounds.last() {
            current = apply(&current, &r.simulation.landings, number, simulate.round_interval_seconds);
        }
    }
    Rounds { rounds, verdict: Verdict::Limit { rounds: max_rounds }, loops }
}

/// Which plugins evict in `plan`, with how many pods each, in eviction
/// order: `RemoveDuplicates 4, LowNodeUtilization 1` (the stall reason names
/// them: the pods coming back may be another plugin's, not LowNodeUtilization's).
fn evicting_plugins(plan: &Plan) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for e in plan.evictions() {
        match counts.iter_mut().find(|(p, _)| *p == e.plugin) {
            Some((_, n)) => *n += 1,
            None => counts.push((e.plugin.clone(), 1)),
        }
    }
    counts.iter().map(|(p, n)| format!("{p} {n}")).collect::<Vec<_>>().join(", ")
}

/// Per run, per node: name, class, and the used amount of every tracked resource.
type Fingerprint = Vec<(String, NodeClass, Vec<(String, i64)>)>;

fn fingerprint(plan: &Plan) -> Fingerprint {
    plan.runs
        .iter()
        .flat_map(|r| r.nodes.iter())
        .map(|n| (n.name.clone(), n.class, n.resources.iter().map(|u| (u.resource.clone(), u.used)).collect()))
        .collect()
}

/// The snapshot of the next night: evicted pods replaced as simulated.
fn apply(current: &Snapshot, landings: &[Landing], round: usize, interval_seconds: i64) -> Snapshot {
    let by_index: HashMap<usize, &Landing> = landings.iter().map(|l| (l.pod.index, l)).collect();
    let mut next = current.clone();
    next.pods = current
        .pods
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let Some(l) = by_index.get(&i) else {
                return Some(p.clone());
            };
            let mut r = match &l.outcome {
                LandingOutcome::Scheduled { node, .. } => bound_to(p.unbound_copy(), node),
                LandingOutcome::Unschedulable { .. } => p.unbound_copy(),
                LandingOutcome::NotRecreated => return None,
            };
            r.creation_timestamp = Some(current.now);
            if let Some(rare) = r.rare.get_mut_if_set() {
                rare.deletion_timestamp = None;
            }
            r.uid = p.uid.as_ref().map(|u| format!("{u}-r{round}"));
            Some(r)
        })
        .collect();
    next.now = current.now + Duration::seconds(interval_seconds);
    if let Some(usage) = next.measured.as_mut() {
        super::measured::carry(usage, landings);
    }
    next
}

/// A percent or threshold as text: `40`, `41.3`.
fn pct(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

fn percent_of(n: &NodeReport, resource: &str) -> f64 {
    n.resources.iter().find(|r| r.resource == resource).map_or(0.0, |r| r.percent)
}

/// `node-1 stays above target (cpu 88.5 % > 80)`.
fn still_over(run: &PluginRun) -> String {
    let parts: Vec<String> = run
        .nodes
        .iter()
        .filter(|n| n.class == NodeClass::Overutilized)
        .map(|n| {
            let over: Vec<String> = run
                .thresholds
                .high
                .iter()
                .filter(|(r, h)| percent_of(n, r) > **h)
                .map(|(r, h)| format!("{r} {} % > {}", percent_text(percent_of(n, r)), pct(*h)))
                .collect();
            format!("{} ({})", n.name, over.join(", "))
        })
        .collect();
    match parts.as_slice() {
        [one] => format!("{one} stays above target"),
        _ => format!("{} stay above target", parts.join(" and ")),
    }
}

/// Why nothing moves in round `number` though a node is above target; `None`
/// when no node is (converged).
fn stall_reason(plan: &Plan, policy: &Policy, number: usize) -> Option<String> {
    let when = if number == 1 { "as the cluster is now,".to_string() } else { format!("after round {}", number - 1) };
    if let Some(a) = &plan.aborted {
        return Some(format!("{when} the plan is aborted: {a}"));
    }
    if !plan.runs.iter().any(|r| r.plugin == crate::policy::LOW_NODE_UTILIZATION) {
        return Some(format!("{when} nothing runs: no profile enables LowNodeUtilization"));
    }
    let run = plan.runs.iter().find(|r| r.nodes.iter().any(|n| n.class == NodeClass::Overutilized))?;
    let still = still_over(run);
    let Some(exit) = &run.early_exit else {
        return Some(format!("{when} {still}, but none of its pods is evicted: {}", why_none_evicted(run)));
    };
    let text = match exit.kind {
        EarlyExitKind::NoUnderutilizedNode => {
            format!("{when} no node is below {}: nothing more will move while {still}", nothing_below(run))
        }
        EarlyExitKind::TooFewUnderutilizedNodes => {
            let under: Vec<&str> =
                run.nodes.iter().filter(|n| n.class == NodeClass::Underutilized).map(|n| n.name.as_str()).collect();
            let number_of_nodes = policy
                .profiles
                .iter()
                .find(|p| p.name == run.profile)
                .and_then(|p| p.low_node_utilization())
                .map_or(0, |a| a.number_of_nodes);
            format!(
                "{when} only {} node(s) are underutilized ({}), not more than numberOfNodes ({number_of_nodes}): \
                 nothing more will move while {still}",
                under.len(),
                under.join(", ")
            )
        }
        EarlyExitKind::AllNodesUnderutilized | EarlyExitKind::NoOverutilizedNode => {
            format!("{when} {}", exit.message)
        }
    };
    Some(text)
}

/// `40 % cpu (lowest: node-5 at 41.3 %)`, or, when no single resource keeps
/// every node out, each node's first threshold exceeded.
fn nothing_below(run: &PluginRun) -> String {
    let nodes: Vec<&NodeReport> = run.nodes.iter().filter(|n| !n.unschedulable).collect();
    if nodes.is_empty() {
        return "its thresholds: every node is cordoned".to_string();
    }
    let low = &run.thresholds.low;
    let common: Vec<String> = low
        .iter()
        .filter(|(r, l)| nodes.iter().all(|n| percent_of(n, r) > **l))
        .filter_map(|(r, l)| {
            let lowest = nodes.iter().min_by(|a, b| percent_of(a, r).total_cmp(&percent_of(b, r)))?;
            Some(format!("{} % {r} (lowest: {} at {} %)", pct(*l), lowest.name, percent_text(percent_of(lowest, r))))
        })
        .collect();
    if !common.is_empty() {
        return common.join(" nor ");
    }
    let per_node: Vec<String> = nodes
        .iter()
        .filter_map(|n| {
            let (r, l) = low.iter().find(|(r, l)| percent_of(n, r) > **l)?;
            Some(format!("{}: {r} {} % > {}", n.name, percent_text(percent_of(n, r)), pct(*l)))
        })
        .collect();
    format!("every threshold at once ({})", per_node.join("; "))
}

/// Per source node: how its loop ended and its pods' skip reasons, grouped,
/// most frequent first: `node-1: <stop> (19 × not reached: …; 3 × …)`.
fn why_none_evicted(run: &PluginRun) -> String {
    let parts: Vec<String> = run
        .source_nodes
        .iter()
        .map(|s| {
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for k in run.skipped.iter().filter(|k| k.node == s.node) {
                *counts.entry(k.message.as_str()).or_insert(0) += 1;
            }
            let mut counts: Vec<(&str, usize)> = counts.into_iter().collect();
            counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            let reasons: Vec<String> = counts.into_iter().map(|(m, c)| format!("{c} × {m}")).collect();
            if reasons.is_empty() {
                format!("{}: {}", s.node, s.stop_message)
            } else {
                format!("{}: {} ({})", s.node, s.stop_message, reasons.join("; "))
            }
        })
        .collect();
    parts.join("; ")
}
