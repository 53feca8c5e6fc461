//! A policy replayed over the store's history at a schedule's instants
//! (`kdrift rebalance backtest`): each night plans the whole policy on the
//! cluster as the store recorded it then — with the earlier simulated
//! nights' moves carried in — simulates where the evicted pods land, and
//! carries those moves on; then every FailedScheduling in the range is asked
//! again: would the pod still have failed on the cluster the simulated
//! nights would have left?
//!
//! What is recorded and what is simulated, kept apart in the result:
//! - recorded: each instant's nodes and pods, the FailedScheduling events,
//!   the pending pod's stored spec;
//! - simulated: every eviction (the planner), every landing (the scheduler
//!   model), and the state a failure is re-evaluated on: the recorded state
//!   at the failure with every earlier simulated move applied.
//!
//! A move is carried by pod name: a pod the simulation evicted from node A
//! and landed on node B is placed on B in every later recorded state where
//! a pod of that name still runs on A; one left Pending is taken off its
//! node; one nothing recreates is removed. A pod the real cluster replaced
//! under a new name (a ReplicaSet's suffix) is not followed: the carry-over
//! is a lower bound of what descheduler would have changed.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{
    plan, scheduler_message, simulate_plan_with, ClusterState, LandingOutcome, PlanOptions, PodInfo, PodPhase, Policy,
    Reading, ScoringConfig, SimulateOptions, Snapshot,
};
use kdrift_store::Reader;

/// How old a night's latest usage sample may be (as `rebalance plan`'s
/// instantaneous reading): 5 minutes.
const BACKTEST_USAGE_MAX_AGE_US: i64 = 5 * 60 * 1_000_000;
use serde::Serialize;

use crate::pending::{load_pod, pending_pods};
use crate::snapshot::load_snapshot;
use crate::AnalyzeError;

/// Where a simulated eviction left a pod, carried into later nights.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum Carried {
    /// Its replacement runs on `node`.
    On {
        /// The node it landed on.
        node: String,
        /// The node it was evicted from.
        from: String,
    },
    /// Its replacement stays Pending: fits no node.
    Pending {
        /// The node it was evicted from.
        from: String,
    },
    /// Nothing recreates it (no controller).
    Gone {
        /// The node it was evicted from.
        from: String,
    },
}

/// One simulated eviction of a night.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NightEviction {
    /// `namespace/name`.
    pub pod: String,
    /// The plugin that evicts it.
    pub plugin: String,
    /// Its node.
    pub from: String,
    /// Where it lands (simulated).
    pub carried: Carried,
}

/// One scheduled run of descheduler, simulated on the recorded cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Night {
    /// 1-based.
    pub number: usize,
    /// The scheduled instant.
    pub at: DateTime<Utc>,
    /// Earlier nights' moves that applied to this night's recorded cluster.
    pub carried_in: usize,
    /// Why nothing was planned (fewer than 2 nodes, an invalid policy, no
    /// nodes recorded then), if so.
    pub aborted: Option<String>,
    /// The simulated evictions, in order.
    pub evictions: Vec<NightEviction>,
}

/// A recorded FailedScheduling, asked again after the simulated nights.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureReplay {
    /// `namespace/name` of the pending pod.
    pub pod: String,
    /// Its first recorded FailedScheduling.
    pub at: DateTime<Utc>,
    /// The recorded message.
    pub recorded_message: String,
    /// What the simulation says.
    pub replay: Replay,
}

/// The re-evaluated outcome of one failure.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum Replay {
    /// The pod would have been scheduled (simulated).
    WouldFit {
        /// The node the scheduler model picks.
        node: String,
        /// The nights run before the failure.
        after_nights: usize,
    },
    /// It would still have failed (simulated), with the scheduler's message.
    StillFails {
        /// The message the scheduler would write.
        message: String,
        /// The nights run before the failure.
        after_nights: usize,
    },
    /// No scheduled run came before the failure: the policy could not have changed it.
    NoNightBefore,
    /// The store has no spec of the pod at its failure (known only from events).
    NoSpec,
}

/// The whole backtest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Backtest {
    /// The scheduler scoring the simulated landings used ([`backtest_with`]).
    pub scoring: ScoringConfig,
    /// Every scheduled night in the range, in order.
    pub nights: Vec<Night>,
    /// Every pod with a FailedScheduling in the range, by first failure.
    pub failures: Vec<FailureReplay>,
}

/// Replays `policy` at `instants` (ascending, the schedule's instants in
/// the range) and asks again every FailedScheduling whose first failure is
/// in `[since, until]`. See the module docs.
///
/// # Errors
/// A store read failing.
pub fn backtest(
    store: &Reader,
    policy: &Policy,
    instants: &[DateTime<Utc>],
    since: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Backtest, AnalyzeError> {
    backtest_with(store, policy, instants, since, until, &ScoringConfig::default())
}

/// [`backtest`] with the scheduler scoring the landings and the replayed
/// FailedSchedulings with `scoring` (NodeResourcesFit's strategy and the
/// score plugins' weights, e.g. MostAllocated for HighNodeUtilization).
///
/// # Errors
/// A store read failing.
pub fn backtest_with(
    store: &Reader,
    policy: &Policy,
    instants: &[DateTime<Utc>],
    since: DateTime<Utc>,
    until: DateTime<Utc>,
    scoring: &ScoringConfig,
) -> Result<Backtest, AnalyzeError> {
    let options = SimulateOptions { scoring: scoring.clone(), ..SimulateOptions::default() };
    let mut carried: BTreeMap<String, Carried> = BTreeMap::new();
    // The moves known after each night, for the failures between nights.
    let mut after: Vec<(DateTime<Utc>, BTreeMap<String, Carried>)> = Vec::new();
    let mut nights = Vec::new();
    for (i, at) in instants.iter().enumerate() {
        let loaded = load_snapshot(store, Some(*at))?;
        let (mut snapshot, carried_in) = with_moves(&loaded.snapshot, &carried);
        if policy.uses_measured_usage() {
            // The readings the store recorded then (the real cluster's, not
            // moved with the simulated nights); none → the plan uses requests.
            let usage = crate::measured_at(store, *at, Reading::Latest { max_age_us: BACKTEST_USAGE_MAX_AGE_US })?;
            snapshot.measured = (!usage.nodes.is_empty()).then_some(usage);
        }
        let mut night = Night { number: i + 1, at: *at, carried_in, aborted: None, evictions: Vec::new() };
        if snapshot.nodes.is_empty() {
            night.aborted = Some("the store has no nodes at this instant".to_string());
        } else {
            let planned = plan(&snapshot, policy, &PlanOptions::default());
            night.aborted = planned.aborted.clone();
            let simulation = simulate_plan_with(&snapshot, &planned, &options);
            for e in planned.evictions().filter(|e| e.refused_by_pdb.is_none()) {
                let from = e.source_node.clone();
                let landing = simulation.landings.iter().find(|l| l.order == e.order);
                let to = match landing.map(|l| &l.outcome) {
                    Some(LandingOutcome::Scheduled { node, .. }) => Carried::On { node: node.clone(), from },
                    Some(LandingOutcome::NotRecreated) => Carried::Gone { from },
                    _ => Carried::Pending { from },
                };
                carried.insert(e.pod.key(), to.clone());
                night.evictions.push(NightEviction {
                    pod: e.pod.key(),
                    plugin: e.plugin.clone(),
                    from: e.source_node.clone(),
                    carried: to,
                });
            }
        }
        after.push((*at, carried.clone()));
        nights.push(night);
    }
    let mut failures = Vec::new();
    for p in pending_pods(store)?.into_iter().filter(|p| p.first_failure >= since && p.first_failure <= until) {
        let key = format!("{}/{}", p.namespace, p.name);
        let before = after.iter().filter(|(at, _)| *at < p.first_failure).count();
        let replay = if before == 0 {
            Replay::NoNightBefore
        } else {
            match load_pod(store, &p.namespace, &p.name, &p.uid, p.first_failure)? {
                None => Replay::NoSpec,
                Some(pod) => {
                    let loaded = load_snapshot(store, Some(p.first_failure))?;
                    let (mut snapshot, _) = with_moves(&loaded.snapshot, &after[before - 1].1);
                    snapshot.pods.retain(|o| !(o.namespace == pod.namespace && o.name == pod.name));
                    let state = ClusterState::new(snapshot.nodes, snapshot.pods);
                    let pending = pod.unbound_copy();
                    match scheduler_message(&state, &pending) {
                        Some(message) => Replay::StillFails { message, after_nights: before },
                        None => match kdrift_rebalance::pick_node_with(&state, &pending, scoring) {
                            Some(placement) => Replay::WouldFit { node: placement.node, after_nights: before },
                            None => {
                                Replay::StillFails { message: "no feasible node".to_string(), after_nights: before }
                            }
                        },
                    }
                }
            }
        };
        failures.push(FailureReplay { pod: key, at: p.first_failure, recorded_message: p.latest_message, replay });
    }
    failures.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.pod.cmp(&b.pod)));
    Ok(Backtest { scoring: scoring.clone(), nights, failures })
}

/// `snapshot` with the carried moves applied to the pods of those names
/// still on the node they were evicted from; with how many applied.
fn with_moves(snapshot: &Snapshot, carried: &BTreeMap<String, Carried>) -> (Snapshot, usize) {
    let mut out = snapshot.clone();
    let mut applied = 0;
    out.pods.retain_mut(|p: &mut PodInfo| {
        let Some(c) = carried.get(&p.key()) else { return true };
        let from = match c {
            Carried::On { from, .. } | Carried::Pending { from } | Carried::Gone { from } => from,
        };
        if p.node_name.as_deref() != Some(from.as_str()) {
            return true;
        }
        applied += 1;
        match c {
            Carried::On { node, .. } => {
                p.node_name = Some(node.clone());
                p.phase = Some(PodPhase::Running);
                true
            }
            Carried::Pending { .. } => {
                *p = p.unbound_copy();
                true
            }
            Carried::Gone { .. } => false,
        }
    });
    (out, applied)
}
