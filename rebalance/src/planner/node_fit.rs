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
        let Some(existing) = self.state.pods_on.get(node.name.as_str()) else {
            return false;
        };
        pod.affinity.pod_anti_affinity.required.iter().any(|term| {
            let own = [pod.namespace.clone()];
            let namespaces: &[String] =
                if term.namespaces.is_empty() && term.namespace_selector.is_none() { &own } else { &term.namespaces };
            existing.iter().any(|e| {
                e.name != pod.name
                    && namespaces.contains(&e.namespace)
                    && term.label_selector.as_ref().is_some_and(|s: &LabelSelector| s.matches(&e.labels))
            })
        })
    }
}

/// `spec.nodeSelector` and required node affinity (terms ORed; a term with
/// neither expressions nor fields matches nothing).
/// Source: component-helpers `nodeaffinity.GetRequiredNodeAffinity().Match`.
pub(crate) fn matches_node_selector(pod: &PodInfo, node: &NodeInfo) -> bool {
    if !pod.node_selector.iter().all(|(k, v)| node.labels.get(k) == Some(v)) {
        return false;
    }
    match &pod.affinity.node_affinity.required {
        None => true,
        // The scheduler model's term matching: one model serves both.
        Some(terms) => terms.iter().any(|t| t.matches(node)),
    }
}
