//! `RemovePodsViolatingInterPodAntiAffinity` planned: which pods descheduler v0.36 would evict, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodsviolatinginterpodantiaffinity/pod_antiaffinity.go`
//! and `utils.CheckPodsWithAntiAffinityExist`; descheduler-plugins.md §2.3.
//!
//! The pods of every node of the cycle (`ListPodsOnNodes`: bound, not
//! Succeeded/Failed) that pass `namespaces` / `labelSelector` — and only
//! those — are both the candidates and the pods they are checked against;
//! the DefaultEvictor does not narrow the latter (a protected pod still
//! conflicts). Pods evicted by earlier plugins of the cycle still count as
//! existing pods (upstream's informer still lists them) but are not
//! candidates. Per node, candidates go lowest priority first
//! ([`compare_pods`]: no priority, then ascending; BestEffort < Burstable <
//! Guaranteed; pods without prefer-no-eviction first; then namespace/name,
//! kdrift's tie-break for upstream's unstable sort).
//!
//! A candidate violates when one of its **own required** anti-affinity terms
//! (preferred terms and other pods' terms are ignored) matches another pod
//! (a different name; the namespace is not compared) in the term's
//! `namespaces` (or the candidate's own namespace; `namespaceSelector` is
//! ignored) that is on the same node, or on a node with the same value of
//! the term's `topologyKey` (both nodes carrying it). A missing selector
//! matches nothing; an invalid one makes the whole check "no violation".
//! An evicted pod leaves the set at once, so later candidates stop
//! conflicting with it. The pods a term's selector matches are found once
//! per (selector, namespaces, topologyKey) and indexed by node and by
//! topology value (descheduler's `hasSameLabelValue`), so a candidate only
//! looks at the pods of its own domain.
//!
//! Limits: the node limit ends the node ("not reached" for the rest), the
//! total limit ends the plugin, the namespace limit skips the pod. A pod
//! without required anti-affinity or without a conflicting pod does not
//! break the rule: it is counted ([`PluginRun::not_matching`]), not listed.
//! A pod that breaks it and is kept is reported with the first of: not
//! reached, already evicted, the Filter, the PreEvictionFilter (upstream
//! checks the rule first too).

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use crate::model::node::NodeInfo;
use crate::model::pod::{LabelSelector, PodAffinityTerm, PodInfo, SelectorOperator};
use crate::planner::cycle::Cycle;
use crate::planner::evictor::FilterOutcome;
use crate::planner::limits::LimitHit;
use crate::planner::order::compare_pods;
use crate::planner::plan::{PluginRun, SkipReason, StopReason};
use crate::planner::Snapshot;
use crate::policy::{ExtensionPoint, Profile, RemovePodsViolatingInterPodAntiAffinityArgs};

fn keep(rule: &str, message: String, upstream: bool) -> SkipReason {
    SkipReason::Rule { rule: rule.to_string(), message, upstream }
}

/// Whether `metav1.LabelSelectorAsSelector` accepts the selector's
/// operators and values (In/NotIn need values, Exists/DoesNotExist none).
fn selector_valid(s: &LabelSelector) -> bool {
    s.match_expressions.iter().all(|r| match r.operator {
        SelectorOperator::In | SelectorOperator::NotIn => !r.values.is_empty(),
        SelectorOperator::Exists | SelectorOperator::DoesNotExist => r.values.is_empty(),
        _ => false,
    })
}

/// The pods the check looks at, and the nodes they are on.
struct Existing<'a> {
    snapshot: &'a Snapshot,
    nodes: BTreeMap<&'a str, &'a NodeInfo>,
    /// Snapshot indices, in node then input order.
    pods: Vec<usize>,
    /// Evicted by this run: no longer existing.
    gone: BTreeSet<usize>,
    /// `pods` by namespace as (position in `pods`, snapshot index), in order.
    by_namespace: HashMap<&'a str, Vec<(usize, usize)>>,
    /// See [`Existing::matching`].
    matching: RefCell<Matching<'a>>,
    /// See [`Existing::by_label`].
    by_label: OnceCell<LabelIndex<'a>>,
}

/// Existing pods by (namespace, label key, label value).
type LabelIndex<'a> = HashMap<(&'a str, &'a str, &'a str), Vec<(usize, usize)>>;

/// Existing pods per (selector, namespaces): see [`Existing::matching`].
type Matching<'a> = HashMap<(&'a LabelSelector, &'a [String], &'a str), Rc<Matches<'a>>>;

/// Existing pods a term's selector matches, as (position in
/// [`Existing::pods`], snapshot index) in listing order.
#[derive(Default)]
struct Matches<'a> {
    /// By the node they are on.
    by_node: HashMap<&'a str, Vec<(usize, usize)>>,
    /// By their node's value of the term's topology key.
    by_value: HashMap<&'a str, Vec<(usize, usize)>>,
}

impl<'a> Existing<'a> {
    /// The existing pods (position in `pods`, snapshot index) in
    /// `namespaces` whose labels `selector` matches, in listing order, by
    /// their node and by their node's `key` label value; cached per
    /// (selector, namespaces, key).
    fn matching(&self, selector: &'a LabelSelector, namespaces: &'a [String], key: &'a str) -> Rc<Matches<'a>> {
        let cache_key = (selector, namespaces, key);
        if let Some(found) = self.matching.borrow().get(&cache_key) {
            return Rc::clone(found);
        }
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut out = Matches::default();
        for ns in namespaces {
            if !seen.insert(ns.as_str()) {
                continue;
            }
            let Some(list) = self.by_namespace.get(ns.as_str()) else { continue };
            // With a matchLabels pair, only the pods carrying it can match.
            let list: &[(usize, usize)] = match selector.match_labels.iter().next() {
                Some((k, v)) => self.by_label(ns, k, v),
                None => list,
            };
            for &(pos, i) in list {
                let o = &self.snapshot.pods[i];
                if !selector.matches(&o.labels) {
                    continue;
                }
                let Some(node) = o.node_name.as_deref().and_then(|n| self.nodes.get(n)) else { continue };
                out.by_node.entry(node.name.as_str()).or_default().push((pos, i));
                if let Some(v) = node.labels.get(key) {
                    out.by_value.entry(v.as_str()).or_default().push((pos, i));
                }
            }
        }
        for list in out.by_node.values_mut().chain(out.by_value.values_mut()) {
            list.sort_unstable();
        }
        let out = Rc::new(out);
        self.matching.borrow_mut().insert(cache_key, Rc::clone(&out));
        out
    }

    /// The existing pods of namespace `ns` carrying label `key=value`, in
    /// listing order (the namespace's pods are indexed by label on first use).
    fn by_label<'s>(&'s self, ns: &'a str, key: &'a str, value: &'a str) -> &'s [(usize, usize)] {
        let labels = self.by_label.get_or_init(|| {
            let mut out: LabelIndex<'a> = HashMap::new();
            for (pos, &i) in self.pods.iter().enumerate() {
                let p = &self.snapshot.pods[i];
                for (k, v) in &p.labels {
                    out.entry((p.namespace.as_str(), k, v)).or_default().push((pos, i));
                }
            }
            out
        });
        labels.get(&(ns, key, value)).map_or(&[], Vec::as_slice)
    }

    /// `CheckPodsWithAntiAffinityExist` for the candidate at `idx`: the
    /// conflicting pod and the term; `Err(None)` when the pod does not
    /// break the rule (no required anti-affinity, no conflicting pod),
    /// `Err(Some(why))` when upstream gives up on it (its node is not in the
    /// cycle, an invalid selector).
    fn conflict(&self, idx: usize) -> Result<(usize, &'a PodAffinityTerm), Option<SkipReason>> {
        let snapshot: &'a Snapshot = self.snapshot;
        let pod: &'a PodInfo = &snapshot.pods[idx];
        let terms = &pod.affinity.pod_anti_affinity.required;
        if terms.is_empty() {
            return Err(None);
        }
        let Some(own_node) = pod.node_name.as_deref().and_then(|n| self.nodes.get(n)) else {
            return Err(Some(keep("node-not-considered", "CandidatePod does not exist in nodeMap".to_string(), true)));
        };
        for term in terms {
            let Some(selector) = &term.label_selector else { continue };
            if !selector_valid(selector) {
                return Err(Some(keep(
                    "anti-affinity-selector-invalid",
                    "Unable to convert LabelSelector into Selector".to_string(),
                    true,
                )));
            }
            // The existing pods in the term's namespaces (or the pod's own)
            // that its selector matches, in listing order: computed once per
            // (selector, namespaces) — the replicas of one owner share it.
            let namespaces: &'a [String] =
                if term.namespaces.is_empty() { std::slice::from_ref(&pod.namespace) } else { &term.namespaces };
            // Same domain: on the pod's node, or on a node with the same
            // value of the topology key (both carrying it).
            let matching = self.matching(selector, namespaces, term.topology_key.as_str());
            let same_node = matching.by_node.get(own_node.name.as_str());
            let same_value = own_node.labels.get(&term.topology_key).and_then(|v| matching.by_value.get(v.as_str()));
            let first = same_node
                .into_iter()
                .chain(same_value)
                .filter_map(|list| {
                    list.iter()
                        .find(|&&(_, other)| !self.gone.contains(&other) && self.snapshot.pods[other].name != pod.name)
                })
                .map(|&(pos, _)| pos)
                .min();
            if let Some(pos) = first {
                return Ok((self.pods[pos], term));
            }
        }
        Err(None)
    }
}

/// Runs `RemovePodsViolatingInterPodAntiAffinity` for `profile` with `args` in the cycle.
pub(crate) fn run(
    cycle: &mut Cycle<'_>,
    profile: &Profile,
    args: &RemovePodsViolatingInterPodAntiAffinityArgs,
) -> PluginRun {
    let mut run = PluginRun::new(
        &profile.name,
        crate::policy::REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY,
        ExtensionPoint::Deschedule,
    );
    let evictor = cycle.evictor(profile);
    let snapshot = cycle.snapshot;
    let nodes = cycle.nodes.clone();
    let in_scope = |i: &usize| {
        let p = &snapshot.pods[*i];
        args.scope.selects(&p.namespace, &p.labels)
    };
    let mut existing = Existing {
        snapshot,
        nodes: nodes.iter().map(|n| (n.name.as_str(), *n)).collect(),
        pods: nodes
            .iter()
            .flat_map(|n| cycle.pods_by_node.get(n.name.as_str()).cloned().unwrap_or_default())
            .filter(in_scope)
            .collect(),
        gone: BTreeSet::new(),
        by_namespace: HashMap::new(),
        matching: RefCell::new(HashMap::new()),
        by_label: OnceCell::new(),
    };
    for (pos, &idx) in existing.pods.iter().enumerate() {
        existing.by_namespace.entry(snapshot.pods[idx].namespace.as_str()).or_default().push((pos, idx));
    }
    let mut ended = false;
    for node in &nodes {
        let mut candidates: Vec<usize> = cycle
            .pods_by_node
            .get(node.name.as_str())
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(in_scope)
            .collect();
        candidates.sort_by(|a, b| compare_pods(&snapshot.pods[*a], &snapshot.pods[*b]));
        let mut stop: Option<StopReason> = ended.then_some(StopReason::NotVisited);
        let mut rank = 0;
        for idx in candidates {
            let (other, term) = match existing.conflict(idx) {
                Ok(found) => found,
                Err(Some(reason)) => {
                    cycle.skip(&mut run, idx, &node.name, reason);
                    continue;
                }
                Err(None) => {
                    cycle.not_matching(&mut run, idx, || {
                        let terms = snapshot.pods[idx].affinity.pod_anti_affinity.required.len();
                        if terms == 0 {
                            "it has no required pod anti-affinity".to_string()
                        } else {
                            let keys: Vec<&str> = snapshot.pods[idx]
                                .affinity
                                .pod_anti_affinity
                                .required
                                .iter()
                                .map(|t| t.topology_key.as_str())
                                .collect();
                            format!(
                                "no pod its {terms} required anti-affinity term(s) select runs in its domain on {} \
                                 (topologyKey {})",
                                node.name,
                                keys.join(", ")
                            )
                        }
                    });
                    continue;
                }
            };
            if let Some(stop) = &stop {
                cycle.skip(&mut run, idx, &node.name, SkipReason::NotReached { stop: stop.clone() });
                continue;
            }
            if cycle.evicted.contains(&idx) {
                cycle.skip(&mut run, idx, &node.name, SkipReason::AlreadyEvicted);
                continue;
            }
            let pod = &snapshot.pods[idx];
            if let FilterOutcome::Fails(reason) = evictor.filter(pod) {
                cycle.skip(&mut run, idx, &node.name, reason);
                continue;
            }
            if let Some(reason) = evictor.pre_eviction(pod) {
                cycle.skip(&mut run, idx, &node.name, reason);
                continue;
            }
            let o = &snapshot.pods[other];
            let rule = format!(
                "required anti-affinity with {}/{} on {} (topologyKey {})",
                o.namespace,
                o.name,
                o.node_name.as_deref().unwrap_or(""),
                term.topology_key
            );
            rank += 1;
            match cycle.evict(&mut run, idx, &node.name, rank, rule) {
                Ok(()) => {
                    existing.gone.insert(idx);
                }
                Err(LimitHit::Namespace) => {}
                Err(LimitHit::Node) => stop = Some(StopReason::MaxPerNode),
                Err(LimitHit::Total) => {
                    stop = Some(StopReason::MaxTotal);
                    ended = true;
                }
            }
        }
    }
    run
}
