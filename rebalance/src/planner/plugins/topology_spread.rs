//! `RemovePodsViolatingTopologySpreadConstraint` planned: which pods
//! descheduler v0.36 would evict to even out topology domains, and why the
//! others stay.
//!
//! Source: descheduler v0.36 `removepodsviolatingtopologyspreadconstraint/topologyspreadconstraint.go`;
//! descheduler-plugins.md §3.2 (its `balanceDomains` pseudo-code is followed
//! step by step in [`balance`]). Pods: those bound to the cycle's nodes,
//! then `namespaces` → `labelSelector` → the DefaultEvictor Filter (so
//! non-evictable pods count in no domain). Per namespace, every listed pod's
//! constraints whose `whenUnsatisfiable` is in `constraints` become one
//! internal constraint each (selector with `matchLabelKeys` ANDed in;
//! `nodeAffinityPolicy` unset = Honor keeps the pod's nodeSelector and
//! required affinity, `nodeTaintsPolicy` unset = Ignore; identical ones kept
//! once; `minDomains` ignored). Domains: every node with the topology key
//! that passes the policies, plus the nodes of counted pods. After all
//! namespaces the chosen pods are evicted in the order they were chosen,
//! re-checked against the filters and PreEvictionFilter; node limit → that
//! node's other pods are skipped, total limit → the plugin ends.
//!
//! Deterministic where upstream is not: namespaces by name, constraints in
//! order of first appearance, pods on a node by name (upstream's tests sort
//! them so), domains of equal size by value, the chosen set in choice
//! order. Pods evicted earlier in the cycle still count in their domains but
//! are skipped as already evicted.
//!
//! Listing: pods of balanced constraints, pods not among those moved and
//! pods no constraint counts do not break the rule: they are counted
//! ([`PluginRun::not_matching`]), not listed; so is a pod the Filter
//! protects unless a constraint of its namespace selects it (then it is
//! listed with the Filter's reason, after its namespace's constraints).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::model::node::{NodeInfo, TaintEffect};
use crate::model::pod::{
    tolerations_tolerate, LabelSelector, NodeSelectorTerm, PodInfo, Requirement, SelectorOperator, Toleration,
    TopologySpreadConstraint,
};
use crate::planner::cycle::Cycle;
use crate::planner::evictor::FilterOutcome;
use crate::planner::limits::LimitHit;
use crate::planner::node_fit::{FitState, NodeFit};
use crate::planner::plan::{PluginRun, SkipReason, StopReason};
use crate::policy::{
    ExtensionPoint, Profile, RemovePodsViolatingTopologySpreadConstraintArgs,
    REMOVE_PODS_VIOLATING_TOPOLOGY_SPREAD_CONSTRAINT,
};

/// descheduler v0.36's V2 log for a chosen pod that fits no node below the average.
pub const DOES_NOT_FIT: &str = "ignoring pod for eviction as it does not fit on any other node";
/// descheduler v0.36's V2 log for a constraint whose domains are within maxSkew.
pub const ALREADY_BALANCED: &str = "Skipping topology constraint because it is already balanced";

/// The owner pod's `nodeSelector` and required node affinity terms.
pub(crate) type NodeAffinityOf = (crate::Labels, Option<Vec<NodeSelectorTerm>>);

/// Upstream's internal `topologySpreadConstraint`: one pod's constraint
/// with the inclusion policies resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SpreadConstraint {
    /// `maxSkew`: the largest allowed difference in matching pods between domains.
    pub(crate) max_skew: i32,
    /// `topologyKey`: the node label whose values are the domains.
    pub(crate) topology_key: String,
    /// `None` matches no pod.
    pub(crate) selector: Option<LabelSelector>,
    /// `nodeAffinityPolicy: Honor`: the owner pod's nodeSelector and
    /// required affinity (kept only then).
    pub(crate) affinity: Option<NodeAffinityOf>,
    /// `nodeTaintsPolicy: Honor`: the owner pod's tolerations (kept only then).
    pub(crate) tolerations: Option<Vec<Toleration>>,
}

impl SpreadConstraint {
    /// `newTopologySpreadConstraint` for `c` of `pod`.
    pub(crate) fn new(c: &TopologySpreadConstraint, pod: &PodInfo) -> SpreadConstraint {
        let selector = c.label_selector.clone().map(|mut s| {
            for k in &c.match_label_keys {
                if let Some(v) = pod.labels.get(k) {
                    s.match_expressions.push(Requirement {
                        key: k.clone(),
                        operator: SelectorOperator::In,
                        values: vec![v.to_string()],
                    });
                }
            }
            s
        });
        let honor_affinity = c.node_affinity_policy.as_deref() != Some("Ignore");
        let honor_taints = c.node_taints_policy.as_deref() == Some("Honor");
        SpreadConstraint {
            max_skew: c.max_skew,
            topology_key: c.topology_key.clone(),
            selector,
            affinity: honor_affinity.then(|| (pod.node_selector.clone(), pod.affinity.node_affinity.required.clone())),
            tolerations: honor_taints.then(|| pod.tolerations.clone()),
        }
    }

    /// The node passes the inclusion policies (`matchNodeInclusionPolicies`).
    fn includes(&self, node: &NodeInfo) -> bool {
        if let Some((selector, required)) = &self.affinity {
            if !selector.iter().all(|(k, v)| node.labels.get(k).map(String::as_str) == Some(v)) {
                return false;
            }
            if let Some(terms) = required {
                if !terms.iter().any(|t| t.matches(node)) {
                    return false;
                }
            }
        }
        if let Some(tolerations) = &self.tolerations {
            let blocking =
                |t: &&crate::model::node::Taint| matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute);
            if !node.taints.iter().filter(blocking).all(|t| tolerations_tolerate(tolerations, t)) {
                return false;
            }
        }
        true
    }

    fn selects(&self, pod: &PodInfo) -> bool {
        self.selector.as_ref().is_some_and(|s| s.matches(&pod.labels))
    }

    fn text(&self, namespace: &str) -> String {
        format!("constraint {} maxSkew {} in namespace {namespace}", self.topology_key, self.max_skew)
    }
}

/// `hasSelectorOrAffinity`: a nodeSelector or node affinity.
fn has_selector_or_affinity(p: &PodInfo) -> bool {
    !p.node_selector.is_empty()
        || p.affinity.node_affinity.required.is_some()
        || !p.affinity.node_affinity.preferred.is_empty()
}

/// `sortDomains` within one domain: non-evictable pods first, then pods with
/// a nodeSelector or node affinity, then the rest; each group by priority
/// ascending (none first). Stable, so equal pods keep their order. Pods are
/// taken from the end.
pub(crate) fn sort_domain(pods: &mut [usize], all: &[PodInfo], evictable: &dyn Fn(&PodInfo) -> bool) {
    pods.sort_by_key(|&i| {
        let p = &all[i];
        (evictable(p), !has_selector_or_affinity(p), p.priority.map_or((0u8, 0), |v| (1u8, v)))
    });
}

/// One domain: its topology value and its pods (snapshot indices).
struct Domain {
    value: String,
    pods: Vec<usize>,
}

/// What balancing one constraint decided.
struct Balanced {
    /// Pods chosen, with the rule (numbers included).
    chosen: Vec<(usize, String)>,
    /// Pods chosen by the arithmetic but fitting no node below the average.
    unfit: Vec<usize>,
}

/// `balanceDomains`, exactly as upstream's pseudo-code (descheduler-plugins.md §3.2).
fn balance<'a>(
    c: &SpreadConstraint,
    mut d: Vec<Domain>,
    sum_pods: usize,
    nodes: &[&'a NodeInfo],
    all: &'a [PodInfo],
    node_fit: bool,
    state: Rc<FitState<'a>>,
) -> Balanced {
    let ideal = sum_pods as f64 / d.len() as f64;
    for dom in &mut d {
        sort_domain(&mut dom.pods, all, &|_| true);
    }
    d.sort_by_key(|dom| dom.pods.len());
    let below_values: BTreeSet<&str> =
        d.iter().filter(|dom| (dom.pods.len() as f64) < ideal).map(|dom| dom.value.as_str()).collect();
    let below: Vec<&NodeInfo> = nodes
        .iter()
        .filter(|n| n.labels.get(&c.topology_key).is_some_and(|v| below_values.contains(v.as_str())) && c.includes(n))
        .copied()
        .collect();
    let fit = NodeFit::sharing(below, state);
    let key = &c.topology_key;
    let mut out = Balanced { chosen: Vec::new(), unfit: Vec::new() };
    let (mut i, mut j) = (0usize, d.len() - 1);
    while i < j {
        if d[j].pods.len() as f64 <= ideal {
            j -= 1;
        }
        let (big, small) = (d[j].pods.len(), d[i].pods.len());
        let skew = big as f64 - small as f64;
        if skew <= f64::from(c.max_skew) {
            i += 1;
            continue;
        }
        let above = (big as f64 - ideal).ceil();
        let below_by = (ideal - small as f64).ceil();
        let half = ((skew - f64::from(c.max_skew)) / 2.0).ceil();
        let moved = above.min(below_by).min(half) as i64;
        if moved <= 0 {
            i += 1;
            continue;
        }
        let moved = moved as usize;
        // Stable, one nodeFit per pod (not per comparison).
        d[j].pods.sort_by_cached_key(|&p| fit.fits_any_other_node(&all[p]));
        let from = d[j].pods.len() - moved;
        let taken: Vec<usize> = d[j].pods.split_off(from);
        let rule = format!(
            "domain {key}={} has {big} pods, {key}={} {small} (idealAvg {ideal:.2}), maxSkew {}: move {moved}",
            d[j].value, d[i].value, c.max_skew
        );
        for &p in &taken {
            if node_fit && !fit.fits_any_other_node(&all[p]) {
                out.unfit.push(p);
                continue;
            }
            out.chosen.push((p, rule.clone()));
        }
        d[i].pods.extend(taken);
    }
    out
}

fn rule(key: &str, message: String, upstream: bool) -> SkipReason {
    SkipReason::Rule { rule: key.to_string(), message, upstream }
}

/// Why a counted pod does not break the rule (said only when the pod is
/// explained).
#[derive(Debug, Clone, Copy)]
enum Unbroken {
    /// No constraint of its namespace (of a `whenUnsatisfiable` the plugin
    /// balances) selects it.
    NoConstraint,
    /// Its constraint is balanced: the run's note at this index says so.
    Balanced(usize),
    /// Its constraint is unbalanced, but balancing moves other pods.
    NotMoved,
}

impl Unbroken {
    fn text(self, notes: &[String]) -> String {
        match self {
            Unbroken::NoConstraint => {
                "no topology spread constraint of its namespace that this plugin balances selects it".to_string()
            }
            Unbroken::Balanced(i) => notes.get(i).cloned().unwrap_or_default(),
            Unbroken::NotMoved => {
                "a constraint selecting it is unbalanced, but balancing moves other pods (its domain is not above \
                 the average, or pods of its domain come first)"
                    .to_string()
            }
        }
    }
}

/// Runs `RemovePodsViolatingTopologySpreadConstraint` for `profile` with `args` in the cycle.
pub(crate) fn run(
    cycle: &mut Cycle<'_>,
    profile: &Profile,
    args: &RemovePodsViolatingTopologySpreadConstraintArgs,
) -> PluginRun {
    let args = args.defaulted();
    let mut run =
        PluginRun::new(&profile.name, REMOVE_PODS_VIOLATING_TOPOLOGY_SPREAD_CONSTRAINT, ExtensionPoint::Balance);
    let snapshot = cycle.snapshot;
    let all = &snapshot.pods;
    let evictor = cycle.evictor(profile);
    let before = cycle.evicted.clone();
    let nodes = cycle.nodes.clone();
    let node_fit = args.topology_balance_node_fit.unwrap_or(true);
    // Listing: nodes in cycle order, pods on a node by name.
    let mut by_namespace: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    // Pods the Filter protects, per namespace: listed only when a
    // constraint of their namespace selects them, counted otherwise.
    let mut protected: BTreeMap<&str, Vec<(usize, SkipReason)>> = BTreeMap::new();
    for n in &nodes {
        let mut on: Vec<usize> = cycle.pods_by_node.get(n.name.as_str()).cloned().unwrap_or_default();
        on.sort_by(|a, b| all[*a].name.cmp(&all[*b].name));
        for idx in on {
            let p = &all[idx];
            if !args.scope.selects(&p.namespace, &p.labels) {
                continue;
            }
            if let FilterOutcome::Fails(reason) = evictor.filter(p) {
                protected.entry(p.namespace.as_str()).or_default().push((idx, reason));
                continue;
            }
            by_namespace.entry(p.namespace.as_str()).or_default().push(idx);
        }
    }
    let node_of: BTreeMap<&str, &NodeInfo> = nodes.iter().map(|n| (n.name.as_str(), *n)).collect();
    let mut chosen: Vec<(usize, String)> = Vec::new();
    let mut chosen_set: BTreeSet<usize> = BTreeSet::new();
    // Why each counted pod stays; `Ok`: it does not break the rule (its
    // constraints are balanced, or it is not among the pods moved).
    let mut why: BTreeMap<usize, Result<Unbroken, SkipReason>> = BTreeMap::new();
    for (ns, pods) in &by_namespace {
        let mut constraints: Vec<SpreadConstraint> = Vec::new();
        for &idx in pods {
            for c in &all[idx].rare.topology_spread_constraints {
                if !args.constraints.contains(&c.when_unsatisfiable) {
                    continue;
                }
                let sc = SpreadConstraint::new(c, &all[idx]);
                if !constraints.contains(&sc) {
                    constraints.push(sc);
                }
            }
        }
        for c in &constraints {
            let mut domains: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for n in &nodes {
                if let Some(v) = n.labels.get(&c.topology_key) {
                    if c.includes(n) {
                        domains.entry(v.clone()).or_default();
                    }
                }
            }
            let mut sum = 0usize;
            for &idx in pods {
                let p = &all[idx];
                if p.is_terminating() || !c.selects(p) {
                    continue;
                }
                let Some(v) =
                    p.node_name.as_deref().and_then(|n| node_of.get(n)).and_then(|n| n.labels.get(&c.topology_key))
                else {
                    continue;
                };
                domains.entry(v.clone()).or_default().push(idx);
                sum += 1;
            }
            let sizes: Vec<String> =
                domains.iter().map(|(v, p)| format!("{}={v} {}", c.topology_key, p.len())).collect();
            let max = domains.values().map(Vec::len).max().unwrap_or(0);
            let min = domains.values().map(Vec::len).min().unwrap_or(0);
            let members: Vec<usize> = domains.values().flatten().copied().collect();
            if (max - min) as i64 <= i64::from(c.max_skew) {
                let text = format!("{ALREADY_BALANCED}: {} ({})", c.text(ns), sizes.join(", "));
                for idx in members {
                    why.insert(idx, Ok(Unbroken::Balanced(run.notes.len())));
                }
                run.notes.push(text);
                continue;
            }
            let d: Vec<Domain> = domains.into_iter().map(|(value, pods)| Domain { value, pods }).collect();
            let outcome = balance(c, d, sum, &nodes, all, node_fit, cycle.fit_state());
            for idx in members {
                why.insert(idx, Ok(Unbroken::NotMoved));
            }
            for idx in outcome.unfit {
                why.insert(idx, Err(rule("does-not-fit", DOES_NOT_FIT.to_string(), true)));
            }
            for (idx, text) in outcome.chosen {
                if chosen_set.insert(idx) {
                    chosen.push((idx, format!("{}: {text}", c.text(ns))));
                }
            }
        }
        for &idx in pods {
            // No constraint of the namespace counts it.
            why.entry(idx).or_insert(Ok(Unbroken::NoConstraint));
        }
        for (idx, reason) in protected.remove(ns).unwrap_or_default() {
            if constraints.iter().any(|c| c.selects(&all[idx])) {
                let node = all[idx].node_name.clone().unwrap_or_default();
                cycle.skip(&mut run, idx, &node, reason);
            } else {
                cycle.not_matching(&mut run, idx, || Unbroken::NoConstraint.text(&[]));
            }
        }
    }
    // Namespaces whose every pod is protected: no constraint is read.
    for &(idx, _) in protected.values().flatten() {
        cycle.not_matching(&mut run, idx, || Unbroken::NoConstraint.text(&[]));
    }
    // Taken out while the pods are counted, for the explained pod's text.
    let notes = std::mem::take(&mut run.notes);
    for (idx, reason) in why {
        if chosen_set.contains(&idx) {
            continue;
        }
        match reason {
            Err(reason) => {
                let node = all[idx].node_name.clone().unwrap_or_default();
                cycle.skip(&mut run, idx, &node, reason);
            }
            Ok(kept) => cycle.not_matching(&mut run, idx, || kept.text(&notes)),
        }
    }
    run.notes = notes;
    let mut node_limited: BTreeSet<String> = BTreeSet::new();
    let mut ended = false;
    for (rank, (idx, text)) in chosen.into_iter().enumerate() {
        let p = &all[idx];
        let node = p.node_name.clone().unwrap_or_default();
        if ended {
            cycle.skip(&mut run, idx, &node, SkipReason::NotReached { stop: StopReason::MaxTotal });
            continue;
        }
        if node_limited.contains(&node) {
            cycle.skip(&mut run, idx, &node, SkipReason::NotReached { stop: StopReason::MaxPerNode });
            continue;
        }
        if before.contains(&idx) {
            cycle.skip(&mut run, idx, &node, SkipReason::AlreadyEvicted);
            continue;
        }
        if let Some(reason) = evictor.pre_eviction(p) {
            cycle.skip(&mut run, idx, &node, reason);
            continue;
        }
        match cycle.evict(&mut run, idx, &node, rank + 1, text) {
            Ok(()) | Err(LimitHit::Namespace) => {}
            Err(LimitHit::Node) => {
                node_limited.insert(node);
            }
            Err(LimitHit::Total) => ended = true,
        }
    }
    run
}
