//! The landing simulation as first written (one full scheduler snapshot per
//! replacement, node usage recounted over every pod): the reference the
//! faster [`super::simulate_plan_with`] must match exactly, on generated
//! clusters (property test below) and on the benchmark cluster.

use proptest::prelude::*;

use super::labels::label_diffs;
use super::landing::{bound_to, landing_warnings, pile_up, pile_up_message};
use super::usage::{cpu_skew, percent, schedulable, tracked_resources};
use super::*;
use crate::model::resources::ResourceList;
use crate::planner::{plan, Plan, PlanOptions, Snapshot};
use crate::policy::Policy;
use crate::scheduler::{pick_node_with, scheduler_message, ClusterState, ScoringConfig, StrategyType};

// The bench cluster lives in `kdrift-scenario`, which depends on this crate:
// through the dev-dependency (for benches/planner.rs) its snapshots have the
// types of this crate's ordinary build, not of this test build, so the unit
// tests compile its one source file here (its `kdrift_rebalance::` paths name
// this crate through lib.rs's `extern crate self`; its own tests are in
// kdrift-scenario, these use `generate` and `policy` only).
#[allow(dead_code)]
#[path = "../../../scenario/src/bench_cluster.rs"]
mod bench_cluster;

fn reference_simulate(snapshot: &Snapshot, plan: &Plan, options: &SimulateOptions) -> Simulation {
    let tracked = tracked_resources(plan);
    let before = snapshot.cluster_state();
    let mut warnings = Vec::new();
    let mut valid = Vec::new();
    for e in plan.evictions() {
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
    let indices: Vec<usize> = valid.iter().map(|(e, _)| e.pod.index).collect();
    let mut state = snapshot.state_without(&indices);
    let mut landings = Vec::new();
    for (e, original) in valid {
        let owner = original.controller().map(|o| format!("{}/{}", o.kind, o.name));
        let outcome = if owner.is_none() {
            LandingOutcome::NotRecreated
        } else {
            let incoming = original.unbound_copy();
            match pick_node_with(&state, &incoming, &options.scoring) {
                Some(p) => {
                    let runner_up = p.candidates.iter().find(|c| c.total < p.score);
                    let outcome = LandingOutcome::Scheduled {
                        node: p.node.clone(),
                        score: p.score,
                        tie_with: p.tie_with.clone(),
                        runner_up: runner_up.map(|c| c.node.clone()),
                        runner_up_score: runner_up.map(|c| c.total),
                    };
                    state.pods.push(bound_to(incoming, &p.node));
                    outcome
                }
                None => LandingOutcome::Unschedulable {
                    message: scheduler_message(&state, &incoming)
                        .unwrap_or_else(|| "no node passes the scheduler's filters".to_string()),
                },
            }
        };
        let diffs = match &outcome {
            LandingOutcome::Scheduled { node, .. } if *node != e.source_node => {
                match (before.node(&e.source_node), before.node(node)) {
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
    warnings.sort_by_key(|w| w.severity);
    let moves: Vec<(String, Option<String>)> =
        landings.iter().map(|l| (l.source_node.clone(), l.node().map(str::to_string))).collect();
    let nodes = reference_node_changes(&before, &state, &tracked, &moves);
    Simulation {
        predicted_usage: super::measured::predicted_usage(snapshot, plan, &landings),
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

/// Per node of `before` (first occurrence of each name, state order).
fn reference_node_changes(
    before: &ClusterState,
    after: &ClusterState,
    tracked: &[String],
    moves: &[(String, Option<String>)],
) -> Vec<NodeChange> {
    let mut seen = std::collections::BTreeSet::new();
    before
        .nodes
        .iter()
        .filter(|n| seen.insert(n.name.as_str()))
        .map(|n| {
            let (ub, ua): (ResourceList, ResourceList) = (before.usage(&n.name), after.usage(&n.name));
            let resources = tracked
                .iter()
                .map(|r| {
                    let allocatable = n.allocatable.get_opt(r);
                    ResourceChange {
                        resource: r.clone(),
                        allocatable,
                        before: ub.get(r),
                        after: ua.get(r),
                        percent_before: percent(ub.get(r), allocatable),
                        percent_after: percent(ua.get(r), allocatable),
                    }
                })
                .collect();
            NodeChange {
                node: n.name.clone(),
                schedulable: schedulable(n),
                resources,
                pods_out: moves.iter().filter(|(from, _)| *from == n.name).count(),
                pods_in: moves.iter().filter(|(_, to)| to.as_deref() == Some(n.name.as_str())).count(),
            }
        })
        .collect()
}

/// A policy for generated clusters: thresholds → targets on cpu and pods.
fn policy(threshold: u32, target: u32, node_fit: bool) -> Policy {
    Policy::from_yaml(&format!(
        "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: p
    pluginConfig:
      - name: DefaultEvictor
        args: {{nodeFit: {node_fit}}}
      - name: LowNodeUtilization
        args:
          thresholds: {{cpu: {threshold}, pods: {threshold}}}
          targetThresholds: {{cpu: {target}, pods: {target}}}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
"
    ))
    .expect("valid policy")
}

fn now() -> chrono::DateTime<chrono::Utc> {
    bench_cluster::generate(0, 0).snapshot.now
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// Generated clusters with every scheduler feature the model has: the
    /// simulation equals the reference one, landing by landing and node by node.
    #[test]
    fn same_simulation_as_the_reference(
        (nodes, pods) in crate::scheduler::cache_tests::arb_cluster(),
        threshold in 5u32..40,
        gap in 0u32..40,
        node_fit in any::<bool>(),
        strategy in 0usize..4,
    ) {
        let snapshot = Snapshot::new(nodes, pods, now());
        let p = plan(&snapshot, &policy(threshold, threshold + gap, node_fit), &PlanOptions::default());
        // Every NodeResourcesFit strategy, and the default one with other
        // plugin weights: the cache path equals pick_node_with.
        let scoring = match strategy {
            0 => ScoringConfig::with_strategy(StrategyType::LeastAllocated),
            1 => ScoringConfig::with_strategy(StrategyType::MostAllocated),
            2 => ScoringConfig::with_strategy(StrategyType::RequestedToCapacityRatio),
            _ => {
                let mut c = ScoringConfig::default();
                c.weights.node_resources_fit = 5;
                c.weights.taint_toleration = 0;
                c
            }
        };
        let options = SimulateOptions { scoring, ..SimulateOptions::default() };
        prop_assert_eq!(simulate_plan_with(&snapshot, &p, &options), reference_simulate(&snapshot, &p, &options));
    }

    /// The benchmark cluster shape, small.
    #[test]
    fn same_simulation_on_bench_clusters(nodes in 10usize..60, seed in any::<u64>()) {
        let c = bench_cluster::generate(nodes, seed);
        let policy = bench_cluster::policy(false).expect("bench policy");
        let p = plan(&c.snapshot, &policy, &PlanOptions::default());
        let options = SimulateOptions::default();
        prop_assert_eq!(simulate_plan_with(&c.snapshot, &p, &options), reference_simulate(&c.snapshot, &p, &options));
    }
}
