//! Nodes ordered from the emptiest, so the scheduler cache can stop looking
//! once no further node can score as high as the runner-up.
//!
//! The bound: with both cpu and memory allocatable positive, LeastAllocated
//! ≤ 50 × (2 − uc − um) and BalancedAllocation ≤ 100 − 50 × |fc − fm|, where
//! `u` are the non-zero requested fractions and `f` the requested fractions
//! (capped at 1) after adding the pod. As `u ≥ f`, their sum is at most
//! `200 − 100 × max(fc, fm)`, and `max(fc, fm) ≥ min(1, k + min(α, β))` with
//! `k = max(requested cpu / allocatable cpu, requested memory / allocatable
//! memory)` of the node alone and `α`, `β` the pod's requests as fractions
//! of the node's allocatable. `k` does not depend on the pod, so the nodes of
//! one allocatable size are kept sorted by it. For a pod requesting neither
//! cpu nor memory, BalancedAllocation is 0 and LeastAllocated ≤ 100 × (1 −
//! the mean of the node's own non-zero cpu and memory fractions, each capped
//! at 1): a second order by that mean. Nodes lacking cpu or memory
//! allocatable, or whose requests break `non-zero ≥ requested ≥ 0`, are
//! always looked at.
//!
//! The other scores are the same on every node when no node has a
//! PreferNoSchedule taint (TaintToleration: 100 each), the pod has no
//! preferred node affinity (NodeAffinity: 0) and no inter-pod affinity term
//! applies (InterPodAffinity: 0); otherwise [`NodeOrder::constant_scores`]
//! says so and every node is looked at.

use std::collections::{BTreeMap, HashMap};

use crate::pod::PodInfo;

use super::inter_pod_affinity;
use super::resources_fit::{PodAmounts, MAX_NODE_SCORE};
use super::snapshot::Amounts;
use super::Snapshot;

/// Fractions are kept in billionths.
const ONE: i64 = 1_000_000_000;

/// `floor(part / whole × ONE)`, at most `ONE`; `part` ≥ 0, `whole` > 0.
fn fraction(part: i64, whole: i64) -> i64 {
    let q = i128::from(part) * i128::from(ONE) / i128::from(whole);
    q.min(i128::from(ONE)) as i64
}

/// An allocatable size: `(cpu millicores, memory bytes)`, both positive.
type Size = (i64, i64);

/// The nodes of one size in the two orders: `(key, slot)` → the slot's
/// amounts (kept inline so the scan reads memory in order).
#[derive(Default)]
struct Sorted {
    by_max: BTreeMap<(i64, usize), Amounts>,
    by_mean: BTreeMap<(i64, usize), Amounts>,
}

/// The nodes by allocatable size, each size sorted by its keys, and a copy
/// of every slot's [`Amounts`] (compact, for the scan).
pub(crate) struct NodeOrder {
    /// Per slot: the rank of its node name (equal names, equal ranks), so
    /// names compare as integers.
    pub(crate) name_rank: Vec<u32>,
    amounts: Vec<Amounts>,
    sizes: HashMap<Size, Sorted>,
    /// Per slot: its size and current keys (`None`: always looked at).
    keys: Vec<Option<(Size, i64, i64)>>,
    /// Slots always looked at.
    always: Vec<usize>,
    /// Some node has a PreferNoSchedule taint.
    prefer_no_schedule: bool,
}

impl NodeOrder {
    pub(crate) fn new(snap: &Snapshot<'_>) -> NodeOrder {
        let mut by_name: Vec<usize> = (0..snap.slots.len()).collect();
        by_name.sort_by(|a, b| snap.slots[*a].node.name.cmp(&snap.slots[*b].node.name));
        let mut name_rank = vec![0u32; snap.slots.len()];
        for (pos, pair) in by_name.iter().enumerate() {
            let same = pos > 0 && snap.slots[by_name[pos - 1]].node.name == snap.slots[*pair].node.name;
            name_rank[*pair] = if same { name_rank[by_name[pos - 1]] } else { pos as u32 };
        }
        let mut order = NodeOrder {
            name_rank,
            amounts: snap.slots.iter().map(|s| s.amounts).collect(),
            sizes: HashMap::new(),
            keys: vec![None; snap.slots.len()],
            always: Vec::new(),
            prefer_no_schedule: snap
                .slots
                .iter()
                .any(|s| s.node.taints.iter().any(|t| t.effect == crate::node::TaintEffect::PreferNoSchedule)),
        };
        for i in 0..snap.slots.len() {
            order.insert(i);
        }
        order
    }

    fn insert(&mut self, i: usize) {
        let a = &self.amounts[i];
        let bounded = a.alloc_cpu > 0
            && a.alloc_memory > 0
            && a.requested_cpu >= 0
            && a.requested_memory >= 0
            && a.non_zero_cpu >= a.requested_cpu
            && a.non_zero_memory >= a.requested_memory;
        if !bounded {
            self.keys[i] = None;
            self.always.push(i);
            return;
        }
        let size = (a.alloc_cpu, a.alloc_memory);
        let by_max = fraction(a.requested_cpu, a.alloc_cpu).max(fraction(a.requested_memory, a.alloc_memory));
        // Floor of the mean of two floors: never above the real mean.
        let by_mean = (fraction(a.non_zero_cpu, a.alloc_cpu) + fraction(a.non_zero_memory, a.alloc_memory)) / 2;
        let sorted = self.sizes.entry(size).or_default();
        sorted.by_max.insert((by_max, i), *a);
        sorted.by_mean.insert((by_mean, i), *a);
        self.keys[i] = Some((size, by_max, by_mean));
    }

    /// Takes slot `i`'s new amounts after a pod was added to it.
    pub(crate) fn update(&mut self, i: usize, amounts: Amounts) {
        match self.keys[i] {
            Some((size, by_max, by_mean)) => {
                if let Some(sorted) = self.sizes.get_mut(&size) {
                    sorted.by_max.remove(&(by_max, i));
                    sorted.by_mean.remove(&(by_mean, i));
                }
            }
            None => self.always.retain(|&j| j != i),
        }
        self.amounts[i] = amounts;
        self.insert(i);
    }

    /// The score every node gets from the plugins other than the two
    /// resource ones, when it is the same on every node: TaintToleration 100
    /// (weight 3), NodeAffinity and InterPodAffinity 0; `None` otherwise.
    pub(crate) fn constant_scores(&self, snap: &Snapshot<'_>, pod: &PodInfo) -> Option<i64> {
        let own = &pod.affinity;
        if self.prefer_no_schedule
            || !own.node_affinity.preferred.is_empty()
            || !own.pod_affinity.preferred.is_empty()
            || !own.pod_anti_affinity.preferred.is_empty()
        {
            return None;
        }
        let (_, topology) = inter_pod_affinity::raw_scores(snap, pod, &[]);
        (!topology).then_some(3 * MAX_NODE_SCORE)
    }

    /// Whether the bounds hold for this pod: `non-zero ≥ requested ≥ 0` on
    /// cpu and memory.
    pub(crate) fn applies(pod: &PodAmounts) -> bool {
        (0..2).all(|r| pod.requests[r] >= 0 && pod.non_zero[r] >= pod.requests[r])
    }

    /// Calls `visit(slot, amounts, bound)` on the slots in the order to look
    /// at them, `bound` being an upper bound of LeastAllocated +
    /// BalancedAllocation for the pod on that slot (`None`: always looked
    /// at); `visit` returns false to skip the rest of the size.
    pub(crate) fn scan(&self, pod: &PodAmounts, mut visit: impl FnMut(usize, &Amounts, Option<f64>) -> bool) {
        for &i in &self.always {
            visit(i, &self.amounts[i], None);
        }
        let max = MAX_NODE_SCORE as f64;
        let (cpu, memory) = (pod.requests[0], pod.requests[1]);
        let best_effort = cpu == 0 && memory == 0;
        for (&(alloc_cpu, alloc_memory), sorted) in &self.sizes {
            if best_effort {
                for (&(mean, i), a) in &sorted.by_mean {
                    if !visit(i, a, Some(max * (1.0 - mean as f64 / ONE as f64))) {
                        break;
                    }
                }
            } else {
                let shift = fraction(cpu, alloc_cpu).min(fraction(memory, alloc_memory));
                for (&(k, i), a) in &sorted.by_max {
                    let full = k.saturating_add(shift).min(ONE) as f64 / ONE as f64;
                    if !visit(i, a, Some(2.0 * max - max * full)) {
                        break;
                    }
                }
            }
        }
    }
}
