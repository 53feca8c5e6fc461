//! InterPodAffinity: required pod affinity / anti-affinity of the incoming
//! pod, required anti-affinity of existing pods (filter), and preferred terms
//! of both sides (score).
//!
//! Counting follows the scheduler: matches are tallied per topology domain
//! `(topologyKey, node label value)` in a PreFilter pass over every existing
//! pod, then each node is checked against the tallies of its own domains.

use std::collections::{BTreeMap, HashMap};

use crate::model::node::NodeInfo;
use crate::model::pod::{PodAffinityTerm, PodInfo};

use super::{FilterFailure, NodeSlot, Snapshot};

/// The label every namespace carries (Kubernetes 1.21+), the only namespace
/// label this model knows.
pub(crate) const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// The weight an existing pod's REQUIRED affinity term gives, in scoring, to
/// an incoming pod it matches. Source: `InterPodAffinityArgs.HardPodAffinityWeight` default 1.
const HARD_POD_AFFINITY_WEIGHT: i64 = 1;

type Domain = (String, String);

/// Whether `term`, carried by a pod in namespace `owner_namespace`, selects
/// `target`: the namespace must be listed (default: the owner's own
/// namespace) or selected by `namespaceSelector`, and the labels must match
/// `labelSelector` (absent: matches nothing).
/// Source: kube-scheduler `framework.AffinityTerm.Matches`, `newAffinityTerm`
/// (`getNamespacesFromPodAffinityTerm`).
pub(crate) fn term_matches(term: &PodAffinityTerm, owner_namespace: &str, target: &PodInfo) -> bool {
    let namespace_ok = if term.namespaces.is_empty() && term.namespace_selector.is_none() {
        target.namespace == owner_namespace
    } else {
        term.namespaces.contains(&target.namespace)
            || term.namespace_selector.as_ref().is_some_and(|s| {
                let labels: BTreeMap<String, String> =
                    [(NAMESPACE_NAME_LABEL.to_string(), target.namespace.clone())].into_iter().collect();
                s.matches(&labels)
            })
    };
    namespace_ok && term.label_selector.as_ref().is_some_and(|s| s.matches(&target.labels))
}

impl PodAffinityTerm {
    /// Whether this term, carried by a pod in `owner_namespace`, selects
    /// `target` (the rule the InterPodAffinity filter applies; see
    /// `term_matches`). Used to name the pods a required affinity pins a
    /// pod to.
    pub fn selects(&self, owner_namespace: &str, target: &PodInfo) -> bool {
        term_matches(self, owner_namespace, target)
    }
}

fn domain_of(node: &NodeInfo, topology_key: &str) -> Option<Domain> {
    node.labels.get(topology_key).map(|v| (topology_key.to_string(), v.clone()))
}

/// The PreFilter tallies for one incoming pod.
/// Source: kube-scheduler InterPodAffinity `PreFilter`
/// (`getExistingAntiAffinityCounts`, `getIncomingAffinityAntiAffinityCounts`).
pub(crate) struct PreFilterState<'a> {
    /// Domains holding existing pods that match ALL of the incoming pod's
    /// required affinity terms (one entry per term's topology key).
    affinity: HashMap<Domain, Vec<&'a PodInfo>>,
    /// Domains holding existing pods matched by one of the incoming pod's
    /// required anti-affinity terms.
    anti_affinity: HashMap<Domain, Vec<&'a PodInfo>>,
    /// Domains where an existing pod's required anti-affinity term matches the incoming pod.
    existing_anti_affinity: HashMap<Domain, Vec<&'a PodInfo>>,
    /// The incoming pod matches all of its own required affinity terms.
    matches_own_affinity: bool,
    /// The incoming pod has required affinity or anti-affinity terms.
    own_required_terms: bool,
}

impl<'a> PreFilterState<'a> {
    pub(crate) fn build(snap: &Snapshot<'a>, pod: &PodInfo) -> PreFilterState<'a> {
        let required_affinity = &pod.affinity.pod_affinity.required;
        let required_anti = &pod.affinity.pod_anti_affinity.required;
        let mut state = PreFilterState {
            affinity: HashMap::new(),
            anti_affinity: HashMap::new(),
            existing_anti_affinity: HashMap::new(),
            matches_own_affinity: !required_affinity.is_empty()
                && required_affinity.iter().all(|t| term_matches(t, &pod.namespace, pod)),
            own_required_terms: !required_affinity.is_empty() || !required_anti.is_empty(),
        };
        // Without required terms of its own, only existing pods with terms matter.
        let all = state.own_required_terms;
        for slot in snap.slots_for_affinity(all) {
            for existing in if all { &slot.pods } else { &slot.affinity_pods } {
                for t in &existing.affinity.pod_anti_affinity.required {
                    if term_matches(t, &existing.namespace, pod) {
                        if let Some(d) = domain_of(slot.node, &t.topology_key) {
                            state.existing_anti_affinity.entry(d).or_default().push(existing);
                        }
                    }
                }
                if !required_affinity.is_empty()
                    && required_affinity.iter().all(|t| term_matches(t, &pod.namespace, existing))
                {
                    for t in required_affinity {
                        if let Some(d) = domain_of(slot.node, &t.topology_key) {
                            state.affinity.entry(d).or_default().push(existing);
                        }
                    }
                }
                for t in required_anti {
                    if term_matches(t, &pod.namespace, existing) {
                        if let Some(d) = domain_of(slot.node, &t.topology_key) {
                            state.anti_affinity.entry(d).or_default().push(existing);
                        }
                    }
                }
            }
        }
        state
    }

    /// True when [`PreFilterState::filter`] passes every node: the pod has
    /// no required terms and no existing pod's required anti-affinity
    /// matches it (the PreFilter's `skip`).
    pub(crate) fn is_empty(&self) -> bool {
        !self.own_required_terms && self.existing_anti_affinity.is_empty()
    }

    /// Source: kube-scheduler `satisfyPodAffinity`, including the special case
    /// that lets the first pod of a group with affinity to itself go anywhere
    /// (no pod matches anywhere, the pod matches its own terms, and the node
    /// has every topology label).
    fn pod_affinity(&self, pod: &PodInfo, node: &NodeInfo) -> Option<FilterFailure> {
        let mut unsatisfied: Option<&str> = None;
        for t in &pod.affinity.pod_affinity.required {
            match domain_of(node, &t.topology_key) {
                None => {
                    return Some(FilterFailure::PodAffinityMismatch {
                        topology_key: t.topology_key.clone(),
                        missing_label: true,
                    })
                }
                Some(d) => {
                    if self.affinity.get(&d).is_none_or(Vec::is_empty) && unsatisfied.is_none() {
                        unsatisfied = Some(&t.topology_key);
                    }
                }
            }
        }
        let key = unsatisfied?;
        if self.affinity.is_empty() && self.matches_own_affinity {
            return None;
        }
        Some(FilterFailure::PodAffinityMismatch { topology_key: key.to_string(), missing_label: false })
    }

    /// Source: kube-scheduler `satisfyPodAntiAffinity`.
    fn pod_anti_affinity(&self, pod: &PodInfo, node: &NodeInfo) -> Option<FilterFailure> {
        for t in &pod.affinity.pod_anti_affinity.required {
            if let Some(d) = domain_of(node, &t.topology_key) {
                if let Some(first) = self.anti_affinity.get(&d).and_then(|v| v.first()) {
                    return Some(FilterFailure::PodAntiAffinityConflict {
                        topology_key: t.topology_key.clone(),
                        existing_pod: first.key(),
                    });
                }
            }
        }
        None
    }

    /// Source: kube-scheduler `satisfyExistingPodsAntiAffinity` (every label
    /// of the node is looked up as a domain).
    fn existing_anti_affinity(&self, node: &NodeInfo) -> Option<FilterFailure> {
        if self.existing_anti_affinity.is_empty() {
            return None;
        }
        for (k, v) in &node.labels {
            if let Some(first) = self.existing_anti_affinity.get(&(k.clone(), v.clone())).and_then(|l| l.first()) {
                return Some(FilterFailure::ExistingPodAntiAffinity {
                    existing_pod: first.key(),
                    topology_key: k.clone(),
                });
            }
        }
        None
    }

    /// The three checks in the scheduler's order; the scheduler reports only
    /// the first failing one.
    /// Source: kube-scheduler InterPodAffinity `Filter`.
    pub(crate) fn filter(&self, pod: &PodInfo, node: &NodeInfo) -> Vec<FilterFailure> {
        [self.pod_affinity(pod, node), self.pod_anti_affinity(pod, node), self.existing_anti_affinity(node)]
            .into_iter()
            .flatten()
            .collect()
    }
}

/// Raw InterPodAffinity scores of `candidates` and whether any topology score
/// exists (without any, the scheduler skips normalisation and every node gets 0).
/// Per existing pod on every node: the incoming pod's preferred affinity
/// (+weight) and anti-affinity (−weight) terms that match it, its own required
/// affinity terms that match the incoming pod (+1), and its preferred affinity
/// (+weight) and anti-affinity (−weight) terms that match the incoming pod,
/// each credited to the existing pod's topology domain.
/// Source: kube-scheduler InterPodAffinity `PreScore` / `processExistingPod` / `Score`.
pub(crate) fn raw_scores(snap: &Snapshot<'_>, pod: &PodInfo, candidates: &[&NodeSlot<'_>]) -> (Vec<i64>, bool) {
    let mut topo: HashMap<String, HashMap<String, i64>> = HashMap::new();
    let mut add = |node: &NodeInfo, key: &str, delta: i64| {
        if let Some(v) = node.labels.get(key) {
            *topo.entry(key.to_string()).or_default().entry(v.clone()).or_insert(0) += delta;
        }
    };
    let own = &pod.affinity;
    // Without preferred terms of its own, only existing pods with terms matter.
    let all = !own.pod_affinity.preferred.is_empty() || !own.pod_anti_affinity.preferred.is_empty();
    for slot in snap.slots_for_affinity(all) {
        for existing in if all { &slot.pods } else { &slot.affinity_pods } {
            for w in &own.pod_affinity.preferred {
                if term_matches(&w.term, &pod.namespace, existing) {
                    add(slot.node, &w.term.topology_key, i64::from(w.weight));
                }
            }
            for w in &own.pod_anti_affinity.preferred {
                if term_matches(&w.term, &pod.namespace, existing) {
                    add(slot.node, &w.term.topology_key, -i64::from(w.weight));
                }
            }
            let theirs = &existing.affinity;
            for t in &theirs.pod_affinity.required {
                if term_matches(t, &existing.namespace, pod) {
                    add(slot.node, &t.topology_key, HARD_POD_AFFINITY_WEIGHT);
                }
            }
            for w in &theirs.pod_affinity.preferred {
                if term_matches(&w.term, &existing.namespace, pod) {
                    add(slot.node, &w.term.topology_key, i64::from(w.weight));
                }
            }
            for w in &theirs.pod_anti_affinity.preferred {
                if term_matches(&w.term, &existing.namespace, pod) {
                    add(slot.node, &w.term.topology_key, -i64::from(w.weight));
                }
            }
        }
    }
    let scores = candidates
        .iter()
        .map(|slot| topo.iter().filter_map(|(key, values)| slot.node.labels.get(key).and_then(|v| values.get(v))).sum())
        .collect();
    (scores, !topo.is_empty())
}
