//! Whether room can be made on a node that is left but short: which of its
//! pods could move (not DaemonSet, static or mirror pods, which are bound to
//! the node), whether any has a lower priority than the pending pod (what
//! preemption would need), and the LowNodeUtilization threshold pair the
//! rebalance simulation (the chart default's LowNodeUtilization alone) shows
//! moving pods off it — so that a next step
//! pointing to `kdrift rebalance plan` names a policy that plans something,
//! not the chart default that may plan nothing. The chart default policy,
//! whole, is also planned once and simulated: what its one run frees on
//! each short node ([`DefaultPolicyRelief`]).

use chrono::{DateTime, Utc};
use kdrift_rebalance::{
    plan as plan_policy, simulate_plan_with, simulate_rounds_with, Candidates, Plan, PodInfo, Policy, Rounds,
    Simulation, Snapshot, Verdict,
};
use kdrift_store::Reader;
use serde::Serialize;

use super::chain::Evaluated;
use super::why_full::EXPLAINED_NODES;
use crate::AnalyzeError;

/// Nodes up to which `why-pending` runs the threshold simulation (11 pairs ×
/// up to 10 nights each); above, the step points to `kdrift rebalance
/// recommend` instead of running it inside `why-pending`.
pub const SIMULATED_NODES: usize = 100;

/// A threshold pair the simulation shows freeing a short node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReliefPolicy {
    /// LowNodeUtilization `thresholds` for every configured resource, percent.
    pub threshold: f64,
    /// `targetThresholds` for every configured resource, percent.
    pub target: f64,
    /// Nights that evicted something before the simulation converged.
    pub nights: usize,
    /// Evictions over those nights (whole cluster).
    pub evictions: usize,
    /// What left the node of the short resource (cpu millicores, bytes, units).
    pub freed: i64,
}

/// What descheduler's chart default policy, whole (RemoveDuplicates and the
/// other default plugins, not LowNodeUtilization alone), frees on a short
/// node in one run, as `kdrift rebalance plan --simulate` predicts it
/// (new-user trial 39: why-pending said no threshold pair frees node-1 while
/// the default policy's RemoveDuplicates freed 175m there).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DefaultPolicyRelief {
    /// The short resource's requests that leave the node after the landings
    /// (cpu millicores, bytes, units): evicted minus landed back.
    pub freed: i64,
    /// Pods the plan evicts from the node.
    pub evictions: usize,
    /// The plugins that evict them, in plan order, each once.
    pub plugins: Vec<String>,
}

/// Room on one short node that is left after the constraints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Relief {
    /// The node.
    pub node: String,
    /// The short resource.
    pub resource: String,
    /// Pods on the node requesting the resource that could run elsewhere
    /// (not DaemonSet, static or mirror pods).
    pub movable_pods: usize,
    /// What those pods request of the resource (same unit as `freed`).
    pub movable_amount: i64,
    /// Pods on the node requesting it that cannot move (DaemonSet, static, mirror).
    pub fixed_pods: usize,
    /// Whether a pod on the node has a lower priority than the pending pod
    /// (`spec.priority`, 0 when unset): preemption's only possible victims.
    pub lower_priority: bool,
    /// The threshold pair that frees the node (fewest evictions, then
    /// nights), when the simulation ran and one does.
    pub policy: Option<ReliefPolicy>,
    /// Why no pair is named (the simulation did not run, or no pair freed the node).
    pub no_policy: Option<String>,
    /// What the chart default policy, whole, frees on the node in one run,
    /// when it evicts something there (the simulation ran).
    pub default_policy: Option<DefaultPolicyRelief>,
}

/// The relief of every short node that is left (at most
/// [`EXPLAINED_NODES`], the smallest shortfalls, as `why_full` explains
/// them), at the failure instant `at`.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(super) fn relief(store: &Reader, ev: &Evaluated, at: DateTime<Utc>) -> Result<Vec<Relief>, AnalyzeError> {
    let Some(pod) = ev.pod.as_ref() else { return Ok(Vec::new()) };
    // Sets, not scans: 5,000 shortfalls against 5,000 nodes left were 25M
    // string comparisons per chain (kdrift issue 39's 1M-event store).
    let left: std::collections::HashSet<&str> = ev.state.left.iter().map(String::as_str).collect();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut short: Vec<(&str, i64)> = Vec::new();
    for s in ev.state.shortfalls.iter().filter(|s| left.contains(s.node.as_str())) {
        // The first shortfall of each node, as before.
        if seen.insert(s.node.as_str()) {
            short.push((s.node.as_str(), s.short));
        }
    }
    short.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
    short.truncate(EXPLAINED_NODES);
    let nodes: Vec<&str> = short.into_iter().map(|(n, _)| n).collect();
    if nodes.is_empty() {
        return Ok(Vec::new());
    }
    let nodes = nodes.as_slice();
    let pods = ev.unlisted.pods_on(store, at, &ev.cluster, &ev.event_only, nodes)?;
    let own = pod.priority.unwrap_or(0);
    let mut out = Vec::new();
    let mut simulated: Option<Option<(kdrift_rebalance::Snapshot, Policy)>> = None;
    // The chart default policy's one run, planned and simulated once.
    let mut default_run: Option<(Plan, Simulation)> = None;
    for sf in ev.state.shortfalls.iter().filter(|s| nodes.contains(&s.node.as_str())) {
        let on: &[PodInfo] = pods.get(&sf.node).map_or(&[], Vec::as_slice);
        let requesting = || on.iter().filter(|p| p.requests.get(&sf.resource) > 0);
        let fixed = |p: &&PodInfo| p.is_daemonset_pod() || p.is_static() || p.is_mirror();
        let movable: Vec<&PodInfo> = requesting().filter(|p| !fixed(p)).collect();
        let mut r = Relief {
            node: sf.node.clone(),
            resource: sf.resource.clone(),
            movable_pods: movable.len(),
            movable_amount: movable.iter().map(|p| p.requests.get(&sf.resource)).sum(),
            fixed_pods: requesting().filter(fixed).count(),
            lower_priority: on.iter().any(|p| p.priority.unwrap_or(0) < own),
            policy: None,
            no_policy: None,
            default_policy: None,
        };
        if r.movable_pods > 0 {
            if ev.state.nodes.len() > SIMULATED_NODES {
                r.no_policy = Some(format!(
                    "{} nodes: find a threshold pair with `kdrift rebalance recommend`",
                    ev.state.nodes.len()
                ));
            } else {
                if simulated.is_none() {
                    let loaded = crate::snapshot::load_snapshot(store, Some(at))?;
                    simulated = Some(Policy::from_yaml("deschedulerPolicy: null").ok().map(|p| (loaded.snapshot, p)));
                }
                if let Some(Some((snapshot, chart_default))) = &simulated {
                    // The chart default's LowNodeUtilization alone: the step
                    // names a threshold pair, whatever the other plugins do.
                    let policy = chart_default.low_node_utilization_only();
                    match freeing_pair(snapshot, &policy, &sf.node, &sf.resource, sf.short) {
                        Ok(p) => r.policy = Some(p),
                        Err(why) => r.no_policy = Some(why),
                    }
                    let (plan, simulation) =
                        default_run.get_or_insert_with(|| default_policy_run(snapshot, chart_default));
                    r.default_policy = default_policy_relief(plan, simulation, &sf.node, &sf.resource);
                }
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// One run of the whole chart default `policy` on `snapshot`, and where
/// its evicted pods land.
fn default_policy_run(snapshot: &Snapshot, policy: &Policy) -> (Plan, Simulation) {
    let candidates = Candidates::default();
    let plan = plan_policy(snapshot, policy, &candidates.plan_options);
    let simulation = simulate_plan_with(snapshot, &plan, &candidates.simulate);
    (plan, simulation)
}

/// What the chart default's run ([`default_policy_run`]) frees of
/// `resource` on `node`, when it evicts a pod there.
fn default_policy_relief(
    plan: &Plan,
    simulation: &Simulation,
    node: &str,
    resource: &str,
) -> Option<DefaultPolicyRelief> {
    let mut plugins: Vec<String> = Vec::new();
    let mut evictions = 0;
    for e in plan.evictions().filter(|e| e.source_node == node) {
        evictions += 1;
        if !plugins.contains(&e.plugin) {
            plugins.push(e.plugin.clone());
        }
    }
    if evictions == 0 {
        return None;
    }
    let change = simulation.node(node)?.resource(resource)?;
    Some(DefaultPolicyRelief { freed: change.before - change.after, evictions, plugins })
}

/// What `rounds` took off `node` of `resource`: its amount before the first
/// night minus after the last.
fn freed_on(rounds: &Rounds, node: &str, resource: &str) -> i64 {
    let before = rounds.rounds.first().and_then(|r| r.simulation.node(node)).and_then(|n| n.resource(resource));
    let after = rounds.rounds.last().and_then(|r| r.simulation.node(node)).and_then(|n| n.resource(resource));
    match (before, after) {
        (Some(b), Some(a)) => b.before - a.after,
        _ => 0,
    }
}

/// The default candidate pairs of `kdrift rebalance recommend`, each
/// simulated; the converging pair that frees at least `short` of `resource`
/// on `node` (else any that frees some), by fewest evictions then nights
/// (as recommend ranks). `Err` says why none does.
fn freeing_pair(
    snapshot: &Snapshot,
    policy: &Policy,
    node: &str,
    resource: &str,
    short: i64,
) -> Result<ReliefPolicy, String> {
    let candidates = Candidates::default();
    let mut found: Vec<ReliefPolicy> = Vec::new();
    let mut stalled: Option<String> = None;
    for &(threshold, target) in &candidates.pairs {
        let Ok(p) = policy.with_uniform_thresholds(threshold, target) else { continue };
        let rounds =
            simulate_rounds_with(snapshot, &p, &candidates.plan_options, &candidates.simulate, candidates.max_rounds);
        match &rounds.verdict {
            Verdict::Converged { rounds: nights } => {
                let freed = freed_on(&rounds, node, resource);
                if freed > 0 {
                    found.push(ReliefPolicy {
                        threshold,
                        target,
                        nights: *nights,
                        evictions: rounds.total_evictions(),
                        freed,
                    });
                }
            }
            Verdict::NothingToDo { reason } => return Err(reason.clone()),
            Verdict::Stalled { reason, .. } => {
                stalled.get_or_insert_with(|| reason.clone());
            }
            Verdict::Limit { .. } => {}
        }
    }
    found.sort_by(|a, b| {
        (a.freed < short).cmp(&(b.freed < short)).then(a.evictions.cmp(&b.evictions)).then(a.nights.cmp(&b.nights))
    });
    found.into_iter().next().ok_or_else(|| match stalled {
        Some(reason) => format!(
            "no LowNodeUtilization threshold pair frees {resource} on {node} in the simulation (one that evicts \
             stalls: {reason})"
        ),
        None => format!("no LowNodeUtilization threshold pair frees {resource} on {node} in the simulation"),
    })
}
