//! Nodes ordered from the emptiest, so the scheduler cache can stop looking
//! once no further node can score as high as the runner-up.
//!
//! The bound, for a node with positive cpu and memory allocatable: with
//! `x` the requested and `y` the non-zero requested fractions of the node
//! alone (`0 ≤ x ≤ y`), `v = min(1, non-zero fraction after adding the pod)`
//! and `f = min(1, requested fraction after adding it)` (`f ≤ v`):
//! LeastAllocated ≤ 50 × (2 − vc − vm) and BalancedAllocation ≤ 100 − 50 ×
//! |fc − fm| (0 for a pod requesting neither cpu nor memory), so their sum is
//! at most `200 − 50 × S` with `S = vc + vm + |fc − fm|`, itself at least
//! `max over cpu and memory of (v + f)`.
//!
//! Without caps (a node at most 90 % full in non-zero requests and a pod of
//! at most 10 % of it), with `z` and `r` the pod's non-zero and requested
//! fractions: `S = (yc + ym) + (zc + zm) + |(xc − xm) + (rc − rm)|`, at least
//! `spread + (zc + zm) − |rc − rm|` where `spread = yc + ym + |xc − xm|`
//! depends on the node alone: the nodes of one allocatable size are kept
//! sorted by it, the scan stops at the first whose bound misses the
//! runner-up, and skips the nodes before whose own `S` already misses it.
//! With caps, `max(v + f) ≥ min(2, max(x + y) + α)`, `α` the pod's smaller
//! request fraction: a second order by `max(x + y)`. For a pod requesting
//! neither cpu nor memory the bound is LeastAllocated's alone, `100 − 50 ×
//! (vc + vm)`, with a third order by `yc + ym`. Nodes lacking cpu or memory
//! allocatable, fuller than 90 %, or whose requests break `non-zero ≥
//! requested ≥ 0`, are always looked at. Fractions are floored billionths;
//! the margins below cover the floors.
//!
//! The other scores are the same on every node when no node has a
//! PreferNoSchedule taint (TaintToleration: 100 each), the pod has no
//! preferred node affinity (NodeAffinity: 0) and no inter-pod affinity term
//! applies (InterPodAffinity: 0); otherwise [`NodeOrder::constant_scores`]
//! says so and every node is looked at.

use std::collections::{BTreeMap, HashMap};

use crate::model::pod::PodInfo;

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

/// The nodes of one size in the three orders: `(key, slot)` → the slot's
/// amounts (kept inline so the scan reads memory in order).
#[derive(Default)]
struct Sorted {
    /// Key: `spread = yc + ym + |xc − xm|`; value: the node's fractions and
    /// amounts.
    by_spread: BTreeMap<(i64, usize), (Fractions, Amounts)>,
    /// Key: max over cpu and memory of `x + y` (billionths).
    by_sum: BTreeMap<(i64, usize), Amounts>,
    /// Key: `yc + ym` (billionths).
    by_non_zero: BTreeMap<(i64, usize), Amounts>,
}

/// Margin (billionths) under which a bound computed from floored fractions
/// stays below the real one: each floor is off by less than one.
const FLOORS: i64 = 8;

/// Floored fractions (billionths) of a node's allocatable: requested `x`
/// and non-zero requested `y`, cpu and memory; or the same of a pod.
#[derive(Debug, Clone, Copy)]
struct Fractions {
    xc: i64,
    xm: i64,
    yc: i64,
    ym: i64,
}

/// Lower and upper bounds of LeastAllocated + BalancedAllocation (as
/// [`super::resources_fit::resource_scores`] computes them) of a pod
/// (`pod`: `x` its requests, `y` its non-zero requests) on an uncapped node,
/// from floored fractions. Each real fraction is in `[floor, floor + 1)`
/// billionths, so a sum of two is within 2 of the sum of floors; the float
/// arithmetic of BalancedAllocation is off by less than 10⁻¹³, covered by
/// one more billionth (× 50 = 5 × 10⁻⁸ points). Equal bounds are the score.
/// `best_effort`: the pod requests neither cpu nor memory, BalancedAllocation
/// is 0.
fn score_bounds(node: &Fractions, pod: &Fractions, best_effort: bool) -> (i64, i64) {
    const SCORE: i64 = MAX_NODE_SCORE;
    // LeastAllocated per resource: floor(100 × free), free ∈ (f − 2, f].
    let free_c = ONE - node.yc - pod.yc;
    let free_m = ONE - node.ym - pod.ym;
    let least_up = (SCORE * free_c / ONE + SCORE * free_m / ONE) / 2;
    let least_lo = (SCORE * (free_c - 2) / ONE + SCORE * (free_m - 2) / ONE) / 2;
    if best_effort {
        return (least_lo, least_up);
    }
    // BalancedAllocation: floor(100 − 50 × |fc − fm|), |fc − fm| within 2 of |Δ|.
    let delta = ((node.xc + pod.xc) - (node.xm + pod.xm)).abs();
    let half = SCORE / 2;
    let balanced_up = if delta < 3 { SCORE } else { (SCORE * ONE - half * (delta - 3)) / ONE };
    let balanced_lo = (SCORE * ONE - half * (delta + 3)) / ONE;
    (least_lo + balanced_lo, least_up + balanced_up)
}

/// Per slot: its size and keys `(spread, max(x + y), yc + ym)`.
type Keys = (Size, i64, i64, i64);

/// The nodes by allocatable size, each size sorted by its keys, and a copy
/// of every slot's [`Amounts`] (compact, for the scan).
pub(crate) struct NodeOrder {
    /// Per slot: the rank of its node name (equal names, equal ranks), so
    /// names compare as integers.
    pub(crate) name_rank: Vec<u32>,
    /// Rank → slot, when no two nodes share a name.
    pub(crate) slot_by_rank: Option<Vec<u32>>,
    amounts: Vec<Amounts>,
    sizes: HashMap<Size, Sorted>,
    /// Per slot: its size and current keys (`None`: always looked at).
    keys: Vec<Option<Keys>>,
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
        let distinct = by_name.windows(2).all(|w| snap.slots[w[0]].node.name != snap.slots[w[1]].node.name);
        let slot_by_rank = distinct.then(|| by_name.iter().map(|&i| i as u32).collect());
        let mut order = NodeOrder {
            name_rank,
            slot_by_rank,
            amounts: snap.slots.iter().map(|s| s.amounts).collect(),
            sizes: HashMap::new(),
            keys: vec![None; snap.slots.len()],
            always: Vec::new(),
            prefer_no_schedule: snap
                .slots
                .iter()
                .any(|s| s.node.taints.iter().any(|t| t.effect == crate::model::node::TaintEffect::PreferNoSchedule)),
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
        let (xc, xm) = (fraction(a.requested_cpu, a.alloc_cpu), fraction(a.requested_memory, a.alloc_memory));
        let by_sum = (xc + yc).max(xm + ym);
        let by_non_zero = yc + ym;
        let spread = by_non_zero + (xc - xm).abs();
        let sorted = self.sizes.entry(size).or_default();
        let fractions = Fractions { xc, xm, yc, ym };
        sorted.by_spread.insert((spread, i), (fractions, *a));
        sorted.by_sum.insert((by_sum, i), *a);
        sorted.by_non_zero.insert((by_non_zero, i), *a);
        self.keys[i] = Some((size, spread, by_sum, by_non_zero));
    }

    /// Takes slot `i`'s new amounts after a pod was added to it.
    pub(crate) fn update(&mut self, i: usize, amounts: Amounts) {
        match self.keys[i] {
            Some((size, spread, by_sum, by_non_zero)) => {
                if let Some(sorted) = self.sizes.get_mut(&size) {
                    sorted.by_spread.remove(&(spread, i));
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

    /// Slot `i`'s cached amounts.
    pub(crate) fn amounts_of(&self, i: usize) -> &Amounts {
        &self.amounts[i]
    }

    /// Whether the bounds hold for this pod: `non-zero ≥ requested ≥ 0` on
    /// cpu and memory.
    pub(crate) fn applies(pod: &PodAmounts) -> bool {
        (0..2).all(|r| pod.requests[r] >= 0 && pod.non_zero[r] >= pod.requests[r])
    }

    /// Calls `visit(slot, amounts, score)` on the slots that can still
    /// matter, from the emptiest, `score` being the slot's LeastAllocated +
    /// BalancedAllocation for the pod when the bounds pin it down; `visit`
    /// returns the score a node must now reach to matter (`None`: every node
    /// matters).
    /// The rest of a size is skipped once its bound (see the module docs),
    /// with a margin of 10⁻⁷ for float rounding, is below that.
    pub(crate) fn scan(&self, pod: &PodAmounts, mut visit: impl FnMut(usize, &Amounts, Option<i64>) -> Option<i64>) {
        let mut need = None;
        for &i in &self.always {
            need = visit(i, &self.amounts[i], None);
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
            let mut stop = limit(need);
            if uncapped && !best_effort {
                // S ≥ spread + (zc + zm) − |rc − rm|; then each node's own score bounds.
                let shift = zc + zm - (rc - rm).abs() - FLOORS;
                let pod_fractions = Fractions { xc: rc, xm: rm, yc: zc, ym: zm };
                for (&(spread, i), (node, a)) in &sorted.by_spread {
                    if spread.saturating_add(shift) > stop {
                        break;
                    }
                    let (lo, up) = score_bounds(node, &pod_fractions, false);
                    if need.is_some_and(|n| up < n) {
                        continue;
                    }
                    let now = visit(i, a, (lo == up).then_some(up));
                    if now != need {
                        need = now;
                        stop = limit(need);
                    }
                }
                continue;
            }
            // Without requests: S = (yc + ym) + (zc + zm), exact order. Capped:
            // max(v + f) ≥ min(2, key + α).
            let (order, shift) = match (best_effort, uncapped) {
                (true, true) => (&sorted.by_non_zero, zc + zm),
                (true, false) => (&sorted.by_non_zero, zc.min(zm)),
                (false, _) => (&sorted.by_sum, rc.min(rm)),
            };
            for (&(key, i), a) in order {
                if key.saturating_add(shift).min(2 * ONE) > stop {
                    break;
                }
                let now = visit(i, a, None);
                if now != need {
                    need = now;
                    stop = limit(need);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::scheduler::resources_fit::tests::amounts_of;
    use crate::scheduler::resources_fit::{resource_scores, small};

    /// `[cpu, memory]` allocatable, node requested, node non-zero, pod
    /// requests, pod non-zero.
    type Uncapped = ([i64; 2], [i64; 2], [i64; 2], [i64; 2], [i64; 2]);

    /// Amounts below `FULL` (node) and `ONE − FULL` (pod) of the allocatable,
    /// `requested ≤ non-zero`: the uncapped case the bounds are for.
    fn uncapped() -> impl Strategy<Value = Uncapped> {
        (prop_oneof![Just(8000i64), 1i64..200_000], prop_oneof![Just(32i64 << 30), 1i64..(1 << 45)]).prop_flat_map(
            |(c, m)| {
                let node = |a: i64| (0..=a * 9 / 10 - 1).prop_flat_map(move |nz| (0..=nz, Just(nz)));
                let pod = |a: i64| (0..=(a / 10 - 1).max(0)).prop_flat_map(move |nz| (0..=nz, Just(nz)));
                (Just([c, m]), node(c), node(m), pod(c), pod(m)).prop_map(|(alloc, (xc, yc), (xm, ym), pc, pm)| {
                    (alloc, [xc, xm], [yc, ym], [pc.0, pm.0], [pc.1, pm.1])
                })
            },
        )
    }

    proptest! {
        /// The bounds hold the exact LeastAllocated + BalancedAllocation (for
        /// a pod requesting neither cpu nor memory too), and equal bounds are it.
        #[test]
        fn score_bounds_hold_the_score(
            (alloc, requested, non_zero, pod_requests, pod_non_zero) in uncapped(), none in prop::bool::weighted(0.3),
        ) {
            let pod_requests = if none { [0, 0] } else { pod_requests };
            prop_assume!(alloc[0] * 9 / 10 > 0 && alloc[1] * 9 / 10 > 0);
            let a = amounts_of(alloc, requested, non_zero);
            let pod = PodAmounts {
                requests: [pod_requests[0], pod_requests[1], 0],
                non_zero: pod_non_zero,
                other_resources: false,
                small: pod_requests.iter().chain(&pod_non_zero).all(|v| small(*v)),
            };
            let f = |part: [i64; 2], i: usize| fraction(part[i], alloc[i]);
            let node = Fractions { xc: f(requested, 0), xm: f(requested, 1), yc: f(non_zero, 0), ym: f(non_zero, 1) };
            prop_assume!(node.yc < FULL && node.ym < FULL);
            let p = Fractions { xc: f(pod_requests, 0), xm: f(pod_requests, 1), yc: f(pod_non_zero, 0), ym: f(pod_non_zero, 1) };
            prop_assume!(p.yc < ONE - FULL && p.ym < ONE - FULL);
            let exact = resource_scores(&a, &pod);
            let best_effort = pod_requests == [0, 0];
            let (lo, up) = score_bounds(&node, &p, best_effort);
            prop_assert!(lo <= exact && exact <= up, "{lo} <= {exact} <= {up}");
            // The spread order's bound: 200 − 50 × S with S ≥ spread + shift.
            let spread = node.yc + node.ym + (node.xc - node.xm).abs();
            let shift = p.yc + p.ym - (p.xc - p.xm).abs() - FLOORS;
            let bound = (2 * MAX_NODE_SCORE) as f64 - 50.0 * (spread + shift) as f64 / ONE as f64;
            prop_assert!(best_effort || exact as f64 <= bound + 1e-6, "{exact} <= {bound}");
        }
    }
}
