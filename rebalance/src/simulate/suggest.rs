//! Threshold suggestions: run [`super::simulate_rounds`] for alternative
//! `thresholds` / `targetThresholds` and rank them (backs a future
//! `kdrift rebalance recommend`).
//!
//! A candidate `(threshold, target)` sets EVERY resource of every
//! LowNodeUtilization profile's `thresholds` to `threshold` and of its
//! `targetThresholds` to `target` (the configured resources are kept; the
//! rest of the policy is unchanged). For a policy with
//! `useDeviationThresholds` the values are deviations from the mean, so pass
//! deviation-sized candidates. Candidates the policy validation rejects are
//! left out.
//!
//! Ranking: candidates that converge and move something, by fewest
//! evictions, then fewest rounds, then the smallest cpu skew left, then
//! threshold and target; then those that converge without moving anything
//! (with their target no node is over it — e.g. node-1 at 97 % is "fine"
//! under a target of 100: technically converged, useless as advice); then
//! those that stall or hit the round limit.

use serde::Serialize;

use super::rounds::{simulate_rounds_with, Rounds, Verdict};
use super::SimulateOptions;
use crate::model::resources::CPU;
use crate::planner::{PlanOptions, Snapshot};
use crate::policy::{Policy, ResourceThresholds};

/// The candidates to try and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidates {
    /// `(threshold, target)` pairs in percent.
    pub pairs: Vec<(f64, f64)>,
    /// Rounds per candidate before giving up ([`Verdict::Limit`]).
    pub max_rounds: usize,
    /// Planner options for every round.
    pub plan_options: PlanOptions,
    /// Simulation options for every round.
    pub simulate: SimulateOptions,
}

impl Candidates {
    /// Every `threshold` with every `threshold + offset` at or below 100.
    pub fn grid(thresholds: &[f64], target_offsets: &[f64]) -> Candidates {
        let pairs = thresholds
            .iter()
            .flat_map(|t| target_offsets.iter().map(move |o| (*t, t + o)))
            .filter(|(t, h)| *t >= 0.0 && *h <= 100.0)
            .collect();
        Candidates { pairs, ..Candidates::default() }
    }
}

impl Default for Candidates {
    /// Thresholds 30, 40, 50, 60 with targets +20, +30, +40 (up to 100);
    /// 10 rounds each; default planner and simulation options.
    fn default() -> Self {
        let pairs = [30.0, 40.0, 50.0, 60.0]
            .iter()
            .flat_map(|t| [20.0, 30.0, 40.0].iter().map(move |o| (*t, t + o)))
            .filter(|(_, h)| *h <= 100.0)
            .collect();
        Candidates { pairs, max_rounds: 10, plan_options: PlanOptions::default(), simulate: SimulateOptions::default() }
    }
}

/// One candidate's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    /// The threshold tried, in percent.
    pub threshold: f64,
    /// The target tried, in percent.
    pub target: f64,
    /// The resulting `thresholds` of the first LowNodeUtilization profile.
    pub thresholds: ResourceThresholds,
    /// The resulting `targetThresholds` of that profile.
    pub target_thresholds: ResourceThresholds,
    /// How the rounds ended.
    pub verdict: Verdict,
    /// Rounds that evicted something before converging (`None` unless converged).
    pub rounds_to_converge: Option<usize>,
    /// Evictions over all rounds.
    pub evictions: usize,
    /// Replacements left Pending over all rounds.
    pub unschedulable: usize,
    /// Rounds with a pile-up.
    pub pile_ups: usize,
    /// The cpu skew (percentage points) after the last round.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub final_cpu_skew: Option<f64>,
    /// The highest cpu requested percent of a schedulable node after the last round.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub final_max_cpu_percent: Option<f64>,
}

impl Suggestion {
    /// Converged (a round planned nothing and no node is over its target).
    pub fn converged(&self) -> bool {
        matches!(self.verdict, Verdict::Converged { .. })
    }

    /// 0 = converged after moving pods, 1 = converged without moving any, 2 = not converged.
    fn rank(&self) -> u8 {
        match (self.converged(), self.evictions > 0) {
            (true, true) => 0,
            (true, false) => 1,
            (false, _) => 2,
        }
    }
}

/// `policy` with every LowNodeUtilization threshold set to `threshold` and
/// every target to `target`; `None` when the result fails validation.
fn with_thresholds(policy: &Policy, threshold: f64, target: f64) -> Option<Policy> {
    policy.with_uniform_thresholds(threshold, target).ok()
}

/// Tries every candidate on `snapshot` and ranks them (see the module docs).
pub fn suggest_thresholds(snapshot: &Snapshot, policy: &Policy, candidates: &Candidates) -> Vec<Suggestion> {
    let mut out: Vec<Suggestion> = candidates
        .pairs
        .iter()
        .filter_map(|&(threshold, target)| {
            let p = with_thresholds(policy, threshold, target)?;
            let rounds = simulate_rounds_with(
                snapshot,
                &p,
                &candidates.plan_options,
                &candidates.simulate,
                candidates.max_rounds,
            );
            let args = p.profiles.iter().find_map(|pr| pr.low_node_utilization());
            Some(suggestion(threshold, target, args, &rounds))
        })
        .collect();
    out.sort_by(|a, b| {
        a.rank()
            .cmp(&b.rank())
            .then_with(|| a.evictions.cmp(&b.evictions))
            .then_with(|| a.rounds_to_converge.cmp(&b.rounds_to_converge))
            .then_with(|| a.final_cpu_skew.unwrap_or(f64::MAX).total_cmp(&b.final_cpu_skew.unwrap_or(f64::MAX)))
            .then_with(|| a.threshold.total_cmp(&b.threshold))
            .then_with(|| a.target.total_cmp(&b.target))
    });
    out
}

fn suggestion(
    threshold: f64,
    target: f64,
    args: Option<&crate::policy::LowNodeUtilizationArgs>,
    rounds: &Rounds,
) -> Suggestion {
    let last = rounds.rounds.last().map(|r| &r.simulation);
    Suggestion {
        threshold,
        target,
        thresholds: args.map(|a| a.thresholds.clone()).unwrap_or_default(),
        target_thresholds: args.map(|a| a.target_thresholds.clone()).unwrap_or_default(),
        verdict: rounds.verdict.clone(),
        rounds_to_converge: rounds.rounds_to_converge(),
        evictions: rounds.total_evictions(),
        unschedulable: rounds.total_unschedulable(),
        pile_ups: rounds.pile_ups(),
        final_cpu_skew: last.and_then(|s| s.cpu_skew_after),
        final_max_cpu_percent: last.and_then(|s| {
            s.nodes.iter().filter(|n| n.schedulable).filter_map(|n| n.percent_after(CPU)).reduce(f64::max)
        }),
    }
}
