//! DefaultEvictor's `nodeFit`: would the pod fit some other Ready node?
//!
//! Source: descheduler v0.36 `pkg/descheduler/node/node.go`
//! (`PodFitsAnyOtherNode`, `NodeFit`, `fitsRequest`,
//! `podMatchesInterPodAntiAffinity`). Checks, all required: the pod's
//! `nodeSelector` and required node affinity; every NoSchedule/NoExecute
//! taint tolerated; every requested resource <= allocatable minus the
//! requests of the node's non-terminal pods, and at least one pod slot free;
//! the node not `spec.unschedulable`; the pod's own required anti-affinity
//! matches no pod on that node. Earlier evictions of the same cycle are not
//! taken into account (upstream issue #1026).

use std::collections::HashMap;
use std::rc::Rc;

use crate::model::node::{NodeInfo, TaintEffect};
use crate::model::pod::{tolerations_tolerate, LabelSelector, PodInfo};
use crate::model::resources::{ResourceList, CPU, MEMORY, PODS};

/// Nodes a nodeFit skip names with their failing check before `… (+N more)`.
pub(crate) const WHY_NOT_SHOWN: usize = 5;

/// What is on every node, for nodeFit: each node's requested amounts
/// (millicores, bytes, pods) and its pods. Built once per cycle and shared
/// by every [`NodeFit`] of the cycle (the pods do not change within it).
pub(crate) struct FitState<'a> {
    requested: HashMap<&'a str, ResourceList>,
    pods_on: HashMap<&'a str, Vec<&'a PodInfo>>,
}

impl<'a> FitState<'a> {
    /// Indexes `pods` (every pod of the snapshot) that count toward usage.
    pub(crate) fn new(pods: &'a [PodInfo]) -> FitState<'a> {
        let mut requested: HashMap<&str, ResourceList> = HashMap::new();
        let mut pods_on: HashMap<&str, Vec<&PodInfo>> = HashMap::new();
        let one_pod = ResourceList::from_pairs(&[(PODS, 1)]);
        for p in pods.iter().filter(|p| p.counts_toward_usage()) {
            let Some(n) = p.node_name.as_deref() else { continue };
            let r = requested.entry(n).or_default();
            r.add(&p.requests);
            r.add(&one_pod);
            pods_on.entry(n).or_default().push(p);
        }
        FitState { requested, pods_on }
    }
}

/// The nodes nodeFit may pick and what is on them.
pub(crate) struct NodeFit<'a> {
    nodes: Vec<&'a NodeInfo>,
    state: Rc<FitState<'a>>,
}

impl<'a> NodeFit<'a> {
    /// `nodes`: the Ready nodes matching the DefaultEvictor's `nodeSelector`;
    /// `pods`: every pod of the snapshot.
    pub(crate) fn new(nodes: Vec<&'a NodeInfo>, pods: &'a [PodInfo]) -> NodeFit<'a> {
        NodeFit::sharing(nodes, Rc::new(FitState::new(pods)))
    }

    /// `nodes` over an existing [`FitState`] of the cycle's pods.
    pub(crate) fn sharing(nodes: Vec<&'a NodeInfo>, state: Rc<FitState<'a>>) -> NodeFit<'a> {
        NodeFit { nodes, state }
    }

    /// `PodFitsAnyOtherNode`: some node other than the pod's own passes every check.
    pub(crate) fn fits_any_other_node(&self, pod: &PodInfo) -> bool {
        self.nodes.iter().filter(|n| Some(n.name.as_str()) != pod.node_name.as_deref()).any(|n| self.fits(pod, n))
    }

    /// `PodFitsAnyNode`: the first of the nodes (in their order, the pod's
    /// own included) that passes every check; on the pod's own node its
    /// requests are not checked (upstream `NodeFit` skips `fitsRequest` when
    /// `spec.nodeName` is that node).
    pub(crate) fn first_fit_any_node(&self, pod: &PodInfo) -> Option<&'a NodeInfo> {
        self.nodes.iter().copied().find(|n| self.fits_with(pod, n, Some(n.name.as_str()) != pod.node_name.as_deref()))
    }

    /// Why the pod fits none of the other nodes, node by node, the first
    /// failing check of each (e.g. `node-2: required anti-affinity with
    /// web/x; node-3: insufficient cpu (requests 400m, 100m free)`); at most
    /// [`WHY_NOT_SHOWN`] nodes, then `… (+N more)`.
    pub(crate) fn why_no_other_node(&self, pod: &PodInfo) -> String {
        let others: Vec<String> = self
            .nodes
            .iter()
            .filter(|n| Some(n.name.as_str()) != pod.node_name.as_deref())
            .filter_map(|n| self.first_failure(pod, n).map(|why| format!("{}: {why}", n.name)))
            .collect();
        if others.is_empty() {
            return "no other Ready node".to_string();
        }
        let more = others.len().saturating_sub(WHY_NOT_SHOWN);
        let mut text = others.into_iter().take(WHY_NOT_SHOWN).collect::<Vec<_>>().join("; ");
        if more > 0 {
            text.push_str(&format!("; … (+{more} more nodes)"));
        }
        text
    }

    /// The first check `node` fails for `pod`, in [`Self::fits`]' order,
    /// with its specifics; `None` when it fits.
    fn first_failure(&self, pod: &PodInfo, node: &NodeInfo) -> Option<String> {
        if !matches_node_selector(pod, node) {
            return Some("nodeSelector/required node affinity does not match".to_string());
        }
        let untolerated = node
            .taints
            .iter()
            .filter(|t| matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute))
            .find(|t| !tolerations_tolerate(&pod.tolerations, t));
        if let Some(t) = untolerated {
            let value = if t.value.is_empty() { String::new() } else { format!("={}", t.value) };
            return Some(format!("taint {}{value}:{:?} not tolerated", t.key, t.effect));
        }
        if let Some(short) = self.request_shortfall(pod, node) {
            return Some(short);
        }
        if node.unschedulable {
            return Some("unschedulable (cordoned)".to_string());
        }
        self.anti_affinity_partner(pod, node).map(|p| format!("required anti-affinity with {p}"))
    }

    /// The first resource the pod requests more of than `node` has free.
    fn request_shortfall(&self, pod: &PodInfo, node: &NodeInfo) -> Option<String> {
        if self.fits_request(pod, node) {
            return None;
        }
        let empty = ResourceList::new();
        let used = self.state.requested.get(node.name.as_str()).unwrap_or(&empty);
        let free = |r: &str| node.allocatable.get_opt(r).map_or(0, |a| a.saturating_sub(used.get(r)));
        if free(PODS) <= 0 {
            return Some("no free pod slot".to_string());
        }
        pod.requests.iter().find(|(r, want)| *want > free(r)).map(|(r, want)| {
            format!(
                "insufficient {r} (requests {}, {} free)",
                crate::model::quantity::format_amount(r, want),
                crate::model::quantity::format_amount(r, free(r).max(0))
            )
        })
    }

    fn fits(&self, pod: &PodInfo, node: &NodeInfo) -> bool {
        self.fits_with(pod, node, true)
    }

    fn fits_with(&self, pod: &PodInfo, node: &NodeInfo, check_request: bool) -> bool {
        matches_node_selector(pod, node)
            && node
                .taints
                .iter()
                .filter(|t| matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute))
                .all(|t| tolerations_tolerate(&pod.tolerations, t))
            && (!check_request || self.fits_request(pod, node))
            && !node.unschedulable
            && !self.anti_affinity_conflict(pod, node)
    }

    /// `fitsRequest`: each requested resource (zero-valued entries included)
    /// against allocatable minus what the node's pods request (0 available
    /// for an extended resource the node lacks), and a free pod slot.
    fn fits_request(&self, pod: &PodInfo, node: &NodeInfo) -> bool {
        let empty = ResourceList::new();
        let used = self.state.requested.get(node.name.as_str()).unwrap_or(&empty);
        let available = |r: &str| -> i64 {
            let basic = r == CPU || r == MEMORY || r == PODS;
            match node.allocatable.get_opt(r) {
                Some(a) => a.saturating_sub(used.get(r)),
                None if basic => 0i64.saturating_sub(used.get(r)),
                None => 0,
            }
        };
        pod.requests.iter().all(|(r, want)| want <= available(r)) && available(PODS) > 0
    }

    /// The pod's own required anti-affinity terms against the pods on `node`
    /// (same node, so any topology key matches). Term namespaces: the listed
    /// ones, or the pod's own when none are listed and there is no
    /// namespaceSelector. Source: descheduler `CheckPodsWithAntiAffinityExist`.
    fn anti_affinity_conflict(&self, pod: &PodInfo, node: &NodeInfo) -> bool {
        self.anti_affinity_partner(pod, node).is_some()
    }

    /// The first pod on `node` the pod's required anti-affinity selects
    /// (`namespace/name`).
    fn anti_affinity_partner(&self, pod: &PodInfo, node: &NodeInfo) -> Option<String> {
        let existing = self.state.pods_on.get(node.name.as_str())?;
        pod.affinity.pod_anti_affinity.required.iter().find_map(|term| {
            let own = [pod.namespace.clone()];
            let namespaces: &[String] =
                if term.namespaces.is_empty() && term.namespace_selector.is_none() { &own } else { &term.namespaces };
            existing
                .iter()
                .find(|e| {
                    e.name != pod.name
                        && namespaces.contains(&e.namespace)
                        && term.label_selector.as_ref().is_some_and(|s: &LabelSelector| s.matches(&e.labels))
                })
                .map(|e| e.key())
        })
    }
}

/// `spec.nodeSelector` and required node affinity (terms ORed; a term with
/// neither expressions nor fields matches nothing).
/// Source: component-helpers `nodeaffinity.GetRequiredNodeAffinity().Match`.
pub(crate) fn matches_node_selector(pod: &PodInfo, node: &NodeInfo) -> bool {
    if !pod.node_selector.iter().all(|(k, v)| node.labels.get(k).map(String::as_str) == Some(v)) {
        return false;
    }
    match &pod.affinity.node_affinity.required {
        None => true,
        // The scheduler model's term matching: one model serves both.
        Some(terms) => terms.iter().any(|t| t.matches(node)),
    }
}
