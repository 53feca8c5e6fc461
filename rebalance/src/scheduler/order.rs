//! Nodes ordered from the emptiest, so the scheduler cache can stop looking
//! once no further node can score as high as the runner-up.
//!
//! The bound, for a node with positive cpu and memory allocatable: with
//! `x` the requested and `y` the non-zero requested fractions of the node
//! alone (`0 ≤ x ≤ y`), `v = min(1, non-zero fraction after adding the pod)`
//! and `f = min(1, requested fraction after adding it)` (`f ≤ v`):
//! LeastAllocated ≤ 50 × (2 − vc − vm) and BalancedAllocation ≤ 100 − 50 ×
//! |fc − fm| (0 for a pod requesting neither cpu nor memory), so their sum is
//! at most `200 − 50 × max over cpu and memory of (v + f)`. Without caps (a
//! node at most 90 % full in non-zero requests and a pod of at most 10 % of
//! it), `v + f ≥ x + y + 2α`, `α` the pod's smaller request fraction; with
//! caps, `≥ min(2, x + y + α)` still. `x + y` does not depend on the pod, so
//! the nodes of one allocatable size are kept sorted by its maximum over
//! cpu and memory. For a pod requesting neither cpu nor memory the bound is
//! LeastAllocated's alone, `100 − 50 × (vc + vm)`, with a second order by
//! `yc + ym`. Nodes lacking cpu or memory allocatable, fuller than 90 %, or
//! whose requests break `non-zero ≥ requested ≥ 0`, are always looked at.
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

/// A node fuller than this (billionths of allocatable, non-zero requests)
/// is always looked at; a pod of at most `ONE - FULL` of the node fills no
/// other one past its allocatable.
const FULL: i64 = ONE / 10 * 9;

/// The nodes of one size in the two orders: `(key, slot)` → the slot's
/// amounts (kept inline so the scan reads memory in order).
#[derive(Default)]
struct Sorted {
    /// Key: max over cpu and memory of `x + y` (billionths).
    by_sum: BTreeMap<(i64, usize), Amounts>,
    /// Key: `yc + ym` (billionths).
    by_non_zero: BTreeMap<(i64, usize), Amounts>,
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
        let (yc, ym) = if bounded {
            (fraction(a.non_zero_cpu, a.alloc_cpu), fraction(a.non_zero_memory, a.alloc_memory))
        } else {
            (ONE, ONE)
        };
        // Strict: the floored fractions stay below the real ones by < 10⁻⁹.
        if !bounded || yc >= FULL || ym >= FULL {
            self.keys[i] = None;
            self.always.push(i);
            return;
        }
        let size = (a.alloc_cpu, a.alloc_memory);
        // Floors: never above the real fractions.
        let by_sum =
            (fraction(a.requested_cpu, a.alloc_cpu) + yc).max(fraction(a.requested_memory, a.alloc_memory) + ym);
        let by_non_zero = yc + ym;
        let sorted = self.sizes.entry(size).or_default();
        sorted.by_sum.insert((by_sum, i), *a);
        sorted.by_non_zero.insert((by_non_zero, i), *a);
        self.keys[i] = Some((size, by_sum, by_non_zero));
    }

    /// Takes slot `i`'s new amounts after a pod was added to it.
    pub(crate) fn update(&mut self, i: usize, amounts: Amounts) {
        match self.keys[i] {
            Some((size, by_sum, by_non_zero)) => {
                if let Some(sorted) = self.sizes.get_mut(&size) {
                    sorted.by_sum.remove(&(by_sum, i));
                    sorted.by_non_zero.remove(&(by_non_zero, i));
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

    /// Calls `visit(slot, amounts)` on the slots that can still matter, from
    /// the emptiest; `visit` returns the LeastAllocated + BalancedAllocation
    /// score a node must now reach to matter (`None`: every node matters).
    /// The rest of a size is skipped once its bound (see the module docs),
    /// with a margin of 10⁻⁷ for float rounding, is below that.
    pub(crate) fn scan(&self, pod: &PodAmounts, mut visit: impl FnMut(usize, &Amounts) -> Option<i64>) {
        let mut need = None;
        for &i in &self.always {
            need = visit(i, &self.amounts[i]);
        }
        let best_effort = pod.requests[0] == 0 && pod.requests[1] == 0;
        // Bound = top − 50 × min(2, key + shift): the largest `key + shift`
        // (billionths) whose bound still reaches `need`.
        let top = if best_effort { MAX_NODE_SCORE } else { 2 * MAX_NODE_SCORE };
        let limit = |need: Option<i64>| -> i64 {
            need.map_or(i64::MAX, |n| {
                let l = (i128::from(top) - i128::from(n)) * i128::from(ONE / (MAX_NODE_SCORE / 2)) + 1;
                l.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
            })
        };
        for (&(alloc_cpu, alloc_memory), sorted) in &self.sizes {
            // The pod's fractions of this size: requests, and non-zero requests.
            let (rc, rm) = (fraction(pod.requests[0], alloc_cpu), fraction(pod.requests[1], alloc_memory));
            let (zc, zm) = (fraction(pod.non_zero[0], alloc_cpu), fraction(pod.non_zero[1], alloc_memory));
            let uncapped = zc < ONE - FULL && zm < ONE - FULL;
            let (order, shift) = match (best_effort, uncapped) {
                (true, true) => (&sorted.by_non_zero, zc + zm),
                (true, false) => (&sorted.by_non_zero, zc.min(zm)),
                (false, true) => (&sorted.by_sum, (rc + zc).min(rm + zm)),
                (false, false) => (&sorted.by_sum, rc.min(rm)),
            };
            let mut stop = limit(need);
            for (&(key, i), a) in order {
                if key.saturating_add(shift).min(2 * ONE) > stop {
                    break;
                }
                let now = visit(i, a);
                if now != need {
                    need = now;
                    stop = limit(need);
                }
            }
        }
    }
}
