//! The scheduler's per-cycle view of the cluster: one slot per node with the
//! pods that count toward it and their summed requests (kube-scheduler's
//! `NodeInfo` list), plus the amounts the hot filters and scores read, cached
//! as integers.

use crate::fast_hash::{fast_map, FastMap};
use crate::model::node::NodeInfo;
use crate::model::pod::PodInfo;
use crate::model::resources::{ResourceList, CPU, EPHEMERAL_STORAGE, MEMORY, PODS};

use super::ClusterState;

/// Whether two pod records are the same pod: same uid when both have one,
/// otherwise same namespace and name.
pub(crate) fn same_pod(a: &PodInfo, b: &PodInfo) -> bool {
    match (&a.uid, &b.uid) {
        (Some(x), Some(y)) => x == y,
        _ => a.namespace == b.namespace && a.name == b.name,
    }
}

/// True when the pod carries any inter-pod affinity or anti-affinity term
/// (required or preferred): only such existing pods can affect another pod's
/// InterPodAffinity filter or score through their own terms.
pub(crate) fn has_pod_affinity_terms(p: &PodInfo) -> bool {
    !p.affinity.pod_affinity.is_empty() || !p.affinity.pod_anti_affinity.is_empty()
}

/// A slot's amounts read by NodeResourcesFit and the resource scores, as
/// `ResourceList::get` returns them (0 when absent), and whether only
/// pod-side filters and NodeResourcesFit can reject the node.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Amounts {
    /// The node is not cordoned and has no taint: NodeUnschedulable and
    /// TaintToleration pass every pod.
    pub(crate) plain: bool,
    /// Pods on the node.
    pub(crate) pods: i64,
    pub(crate) alloc_pods: i64,
    pub(crate) alloc_cpu: i64,
    pub(crate) alloc_memory: i64,
    pub(crate) alloc_ephemeral: i64,
    pub(crate) requested_cpu: i64,
    pub(crate) requested_memory: i64,
    pub(crate) requested_ephemeral: i64,
    pub(crate) non_zero_cpu: i64,
    pub(crate) non_zero_memory: i64,
    /// Both cpu and memory allocatable positive and every cpu/memory amount
    /// [`super::resources_fit::small`]: the straight-line scores apply.
    pub(crate) small: bool,
}

impl Amounts {
    /// Recomputes [`Amounts::small`].
    pub(crate) fn refresh_small(&mut self) {
        use super::resources_fit::small;
        self.small = self.alloc_cpu > 0
            && self.alloc_memory > 0
            && [
                self.alloc_cpu,
                self.alloc_memory,
                self.requested_cpu,
                self.requested_memory,
                self.non_zero_cpu,
                self.non_zero_memory,
            ]
            .iter()
            .all(|v| small(*v));
    }
}

/// One node with the pods that count toward it (the scheduler's `NodeInfo`).
pub(crate) struct NodeSlot<'a> {
    pub(crate) node: &'a NodeInfo,
    pub(crate) pods: Vec<&'a PodInfo>,
    /// Sum of the pods' requests (`NodeInfo.Requested`).
    pub(crate) requested: ResourceList,
    /// Sum of the pods' non-zero requests (`NodeInfo.NonZeroRequested`).
    pub(crate) non_zero_requested: ResourceList,
    /// The pods of `pods` with inter-pod affinity terms, in the same order
    /// (`NodeInfo.PodsWithAffinity` / `PodsWithRequiredAntiAffinity`).
    pub(crate) affinity_pods: Vec<&'a PodInfo>,
    /// The cached amounts; kept in step with the lists by [`NodeSlot::push`].
    pub(crate) amounts: Amounts,
    /// Pods counted by their sums only ([`NodeSlot::add_summed`]): their
    /// summed requests with `pods` = their number; in `requested` and the
    /// pod count, not in `pods`.
    pub(crate) summed: ResourceList,
}

impl<'a> NodeSlot<'a> {
    pub(crate) fn new(node: &'a NodeInfo) -> NodeSlot<'a> {
        let a = &node.allocatable;
        let mut slot = NodeSlot {
            node,
            pods: Vec::new(),
            requested: ResourceList::new(),
            non_zero_requested: ResourceList::new(),
            affinity_pods: Vec::new(),
            summed: ResourceList::new(),
            amounts: Amounts {
                plain: !node.unschedulable && node.taints.is_empty(),
                alloc_pods: a.get(PODS),
                alloc_cpu: a.get(CPU),
                alloc_memory: a.get(MEMORY),
                alloc_ephemeral: a.get(EPHEMERAL_STORAGE),
                ..Amounts::default()
            },
        };
        slot.amounts.refresh_small();
        slot
    }

    /// Adds a pod that counts toward the node (through [`Snapshot::push`]).
    fn push(&mut self, p: &'a PodInfo) {
        self.pods.push(p);
        self.requested.add(&p.requests);
        self.non_zero_requested.add(&p.non_zero_requests);
        if has_pod_affinity_terms(p) {
            self.affinity_pods.push(p);
        }
        self.refresh_amounts();
    }

    /// Pods on the node: those listed and those counted by their sums.
    pub(crate) fn pod_count(&self) -> i64 {
        (self.pods.len() as i64).saturating_add(self.summed.get(PODS))
    }

    /// Adds pods known only by their summed requests (`pods` = their number):
    /// they count toward the requested amounts and the pod count, as
    /// NodeResourcesFit reads them, and are invisible to the filters that
    /// read pods (NodePorts, InterPodAffinity). Their non-zero requests are
    /// unknown: the scores do not read such a slot
    /// ([`super::evaluate_with_sums`]).
    pub(crate) fn add_summed(&mut self, summed: &ResourceList) {
        self.summed.add(summed);
        let mut requests = summed.clone();
        requests.remove(PODS);
        self.requested.add(&requests);
        self.refresh_amounts();
    }

    fn refresh_amounts(&mut self) {
        let pods = self.pod_count();
        let a = &mut self.amounts;
        a.pods = pods;
        a.requested_cpu = self.requested.get(CPU);
        a.requested_memory = self.requested.get(MEMORY);
        a.requested_ephemeral = self.requested.get(EPHEMERAL_STORAGE);
        a.non_zero_cpu = self.non_zero_requested.get(CPU);
        a.non_zero_memory = self.non_zero_requested.get(MEMORY);
        a.refresh_small();
    }

    /// The node's usage as [`ClusterState::usage`] counts it.
    pub(crate) fn usage(&self) -> ResourceList {
        let mut used = self.requested.clone();
        used.set(PODS, self.pod_count());
        used
    }
}

/// The scheduler's snapshot for one scheduling cycle. The incoming pod itself
/// never counts as an existing pod, so evaluating a bound pod asks "where
/// could it go if it were not there".
pub(crate) struct Snapshot<'a> {
    pub(crate) slots: Vec<NodeSlot<'a>>,
    /// Node name → its first slot (pods bound to a duplicated name count there).
    pub(crate) index: FastMap<&'a str, usize>,
    /// The slots with pods in `affinity_pods`, ascending.
    pub(crate) affinity_slots: Vec<usize>,
}

impl<'a> Snapshot<'a> {
    /// The snapshot of `state` for scheduling `incoming`.
    pub(crate) fn build(state: &'a ClusterState, incoming: &PodInfo) -> Snapshot<'a> {
        Snapshot::from_parts(&state.nodes, state.pods.iter(), Some(incoming))
    }

    /// One slot per node, in order; every pod that counts toward usage and is
    /// bound to a known node goes to that node's first slot, in order; pods
    /// that are [`same_pod`] as `incoming` are left out.
    pub(crate) fn from_parts(
        nodes: &'a [NodeInfo],
        pods: impl IntoIterator<Item = &'a PodInfo>,
        incoming: Option<&PodInfo>,
    ) -> Snapshot<'a> {
        let slots: Vec<NodeSlot<'a>> = nodes.iter().map(NodeSlot::new).collect();
        let mut index: FastMap<&str, usize> = fast_map(nodes.len());
        for (i, s) in slots.iter().enumerate() {
            index.entry(s.node.name.as_str()).or_insert(i);
        }
        let mut snap = Snapshot { slots, index, affinity_slots: Vec::new() };
        for p in pods {
            if !p.counts_toward_usage() || incoming.is_some_and(|inc| same_pod(p, inc)) {
                continue;
            }
            if let Some(&i) = p.node_name.as_deref().and_then(|n| snap.index.get(n)) {
                snap.push(i, p);
            }
        }
        snap
    }

    /// Adds a pod that counts toward slot `i`.
    pub(crate) fn push(&mut self, i: usize, p: &'a PodInfo) {
        let slot = &mut self.slots[i];
        let had = !slot.affinity_pods.is_empty();
        slot.push(p);
        if !had && !slot.affinity_pods.is_empty() {
            if let Err(at) = self.affinity_slots.binary_search(&i) {
                self.affinity_slots.insert(at, i);
            }
        }
    }

    /// The slots to look at for existing pods' inter-pod affinity terms:
    /// all of them (`all`), or only those with such pods, in slot order.
    pub(crate) fn slots_for_affinity(&self, all: bool) -> impl Iterator<Item = &NodeSlot<'a>> {
        let (every, some) = if all { (Some(&self.slots), None) } else { (None, Some(&self.affinity_slots)) };
        every.into_iter().flatten().chain(some.into_iter().flatten().map(|&i| &self.slots[i]))
    }

    /// The same snapshot without the pods that are [`same_pod`] as `incoming`
    /// (what [`Snapshot::build`] gives for the state the slots hold).
    pub(crate) fn without(&self, incoming: &PodInfo) -> Snapshot<'a> {
        let slots = self.slots.iter().map(|s| NodeSlot::new(s.node)).collect();
        let mut snap = Snapshot { slots, index: self.index.clone(), affinity_slots: Vec::new() };
        for (i, old) in self.slots.iter().enumerate() {
            for p in old.pods.iter().filter(|p| !same_pod(p, incoming)) {
                snap.push(i, p);
            }
            if !old.summed.is_empty() {
                snap.slots[i].add_summed(&old.summed);
            }
        }
        snap
    }
}
