//! NodeResourcesFit (filter and LeastAllocated score) and
//! NodeResourcesBalancedAllocation (score).

use crate::model::pod::PodInfo;
use crate::model::resources::{ResourceList, CPU, EPHEMERAL_STORAGE, MEMORY, PODS};

use super::snapshot::Amounts;
use super::{FilterFailure, InsufficientResource, NodeSlot};

/// The scheduler's maximum node score.
pub(crate) const MAX_NODE_SCORE: i64 = 100;

/// Every resource the node lacks for the pod, in the scheduler's order:
/// pod count first, then cpu, memory, ephemeral-storage, then other
/// (extended, hugepages) resources by name. A pod that requests nothing only
/// needs a pod slot; a zero request is never insufficient.
/// Source: kube-scheduler NodeResourcesFit `fitsRequest`.
pub(crate) fn fits_request(pod: &PodInfo, slot: &NodeSlot<'_>) -> Vec<FilterFailure> {
    let alloc = &slot.node.allocatable;
    let mut out = Vec::new();
    let pod_count = slot.pod_count();
    let allowed = alloc.get(PODS);
    if pod_count + 1 > allowed {
        out.push(FilterFailure::Insufficient(InsufficientResource {
            resource: PODS.to_string(),
            requested: 1,
            used: pod_count,
            allocatable: allowed,
        }));
    }
    let mut check = |name: &str, requested: i64| {
        if requested <= 0 {
            return;
        }
        let used = slot.requested.get(name);
        let allocatable = alloc.get(name);
        if requested > allocatable.saturating_sub(used) {
            out.push(FilterFailure::Insufficient(InsufficientResource {
                resource: name.to_string(),
                requested,
                used,
                allocatable,
            }));
        }
    };
    for name in [CPU, MEMORY, EPHEMERAL_STORAGE] {
        check(name, pod.requests.get(name));
    }
    for (name, requested) in pod.requests.iter() {
        if matches!(name, CPU | MEMORY | EPHEMERAL_STORAGE | PODS) {
            continue;
        }
        check(name, requested);
    }
    out
}

/// NodeResourcesFit's default LeastAllocated score (0–100): per resource
/// `(allocatable − requested) × 100 / allocatable` (0 when over-requested),
/// averaged over cpu and memory with weight 1 each, integer division at both
/// steps; resources the node lacks are left out. `requested` is the node's
/// NON-ZERO requested plus the pod's NON-ZERO request (100m / 200 MiB per
/// container that sets none: `crate::model::pod::NON_ZERO_DEFAULTS`).
/// Source: kube-scheduler `leastResourceScorer` / `leastRequestedScore`,
/// `kubernetes-events.md` §6.
pub fn least_allocated_score(
    node_alloc: &ResourceList,
    node_requested_nonzero: &ResourceList,
    pod_nonzero: &ResourceList,
) -> i64 {
    least_allocated(
        [node_alloc.get(CPU), node_alloc.get(MEMORY)],
        [node_requested_nonzero.get(CPU), node_requested_nonzero.get(MEMORY)],
        [pod_nonzero.get(CPU), pod_nonzero.get(MEMORY)],
    )
}

/// [`least_allocated_score`] on `[cpu, memory]` amounts (0 when absent).
pub(crate) fn least_allocated(capacity: [i64; 2], node_requested: [i64; 2], pod: [i64; 2]) -> i64 {
    const SMALL: u64 = 1 << 53;
    let small = |v: i64| (v as u64) < SMALL; // also false for negatives
    let [c0, c1] = capacity;
    let [n0, n1] = node_requested;
    let [p0, p1] = pod;
    if c0 > 0 && c1 > 0 && small(c0) && small(c1) && small(n0) && small(n1) && small(p0) && small(p1) {
        // The usual case in i64: no overflow, no i128 division.
        let one = |c: i64, requested: i64| if requested > c { 0 } else { (c - requested) * MAX_NODE_SCORE / c };
        return (one(c0, n0 + p0) + one(c1, n1 + p1)) / 2;
    }
    let mut score: i128 = 0;
    let mut weights: i128 = 0;
    for i in 0..2 {
        if capacity[i] == 0 {
            continue;
        }
        score += least_one(capacity[i], node_requested[i], pod[i]);
        weights += 1;
    }
    if weights == 0 {
        return 0;
    }
    // Within 0..=100 for amounts no valid object has only: a negative
    // requested amount scores above 100, a negative capacity below 0.
    // Clamped, so that adding the other scores cannot overflow.
    (score / weights).clamp(0, i128::from(MAX_NODE_SCORE)) as i64
}

/// One resource's LeastAllocated score: `(capacity − requested) × 100 /
/// capacity`, 0 when over-requested; in `i64` when that cannot overflow,
/// otherwise in `i128` (the same value either way).
fn least_one(capacity: i64, node_requested: i64, pod: i64) -> i128 {
    const SMALL: u64 = 1 << 53;
    if capacity.unsigned_abs() < SMALL && node_requested.unsigned_abs() < SMALL && pod.unsigned_abs() < SMALL {
        let requested = node_requested + pod;
        return i128::from(if requested > capacity { 0 } else { (capacity - requested) * MAX_NODE_SCORE / capacity });
    }
    let (capacity, requested) = (i128::from(capacity), i128::from(node_requested) + i128::from(pod));
    if requested > capacity {
        0
    } else {
        (capacity - requested) * i128::from(MAX_NODE_SCORE) / capacity
    }
}

/// NodeResourcesBalancedAllocation's score (0–100): `(1 − std) × 100`
/// (truncated) of the cpu and memory fractions `requested / allocatable`
/// (each capped at 1; with two resources std = |f1 − f2| / 2), where
/// `requested` is the node's ACTUAL requested plus the pod's actual request —
/// the plugin uses real requests (`useRequested: true`), not the non-zero
/// defaults LeastAllocated uses. A pod requesting neither cpu nor memory
/// (best-effort) is not scored by this plugin: 0 for every node.
/// Source: kube-scheduler `balanced_allocation.go` (`balancedResourceScorer`,
/// PreScore skip for best-effort pods, kubernetes issue #129138), as of
/// v1.33–v1.35.
pub fn balanced_allocation_score(
    node_alloc: &ResourceList,
    node_requested: &ResourceList,
    pod_requests: &ResourceList,
) -> i64 {
    balanced_allocation(
        [node_alloc.get(CPU), node_alloc.get(MEMORY)],
        [node_requested.get(CPU), node_requested.get(MEMORY)],
        [pod_requests.get(CPU), pod_requests.get(MEMORY)],
    )
}

/// [`balanced_allocation_score`] on `[cpu, memory]` amounts (0 when absent).
pub(crate) fn balanced_allocation(capacity: [i64; 2], node_requested: [i64; 2], pod: [i64; 2]) -> i64 {
    if pod[0] == 0 && pod[1] == 0 {
        return 0;
    }
    let fraction = |i: usize| -> Option<f64> {
        // Capped at 1 (kube-scheduler); at 0 too, which only negative amounts go below.
        (capacity[i] != 0)
            .then(|| (node_requested[i].saturating_add(pod[i]) as f64 / capacity[i] as f64).clamp(0.0, 1.0))
    };
    let std = match (fraction(0), fraction(1)) {
        (Some(a), Some(b)) => ((a - b) / 2.0).abs(),
        _ => 0.0,
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// The incoming pod's amounts for [`fits`] and the resource scores, read once.
pub(crate) struct PodAmounts {
    /// `requests` of cpu, memory, ephemeral-storage (0 when absent).
    pub(crate) requests: [i64; 3],
    /// `non_zero_requests` of cpu and memory.
    pub(crate) non_zero: [i64; 2],
    /// The pod requests something besides cpu, memory, ephemeral-storage
    /// and pods: [`fits`] then takes the general path.
    pub(crate) other_resources: bool,
    /// Every cpu/memory amount is in `0..2^52` ([`small`]).
    pub(crate) small: bool,
}

/// In `0..2^52`: sums of two such amounts, and their products by 100, fit
/// an `i64` and convert to `f64` exactly.
pub(crate) fn small(v: i64) -> bool {
    (0..1 << 52).contains(&v)
}

impl PodAmounts {
    pub(crate) fn of(pod: &PodInfo) -> PodAmounts {
        PodAmounts {
            requests: [pod.requests.get(CPU), pod.requests.get(MEMORY), pod.requests.get(EPHEMERAL_STORAGE)],
            non_zero: [pod.non_zero_requests.get(CPU), pod.non_zero_requests.get(MEMORY)],
            other_resources: pod.requests.names().any(|n| !matches!(n, CPU | MEMORY | EPHEMERAL_STORAGE | PODS)),
            small: [CPU, MEMORY].iter().all(|r| small(pod.requests.get(r)) && small(pod.non_zero_requests.get(r))),
        }
    }
}

/// `fits_request(pod, slot).is_empty()`, on the slot's cached amounts.
pub(crate) fn fits(pod: &PodInfo, amounts: &PodAmounts, slot: &NodeSlot<'_>) -> bool {
    if amounts.other_resources {
        return fits_request(pod, slot).is_empty();
    }
    fits_amounts(amounts, &slot.amounts)
}

/// [`fits`] for a pod without [`PodAmounts::other_resources`].
pub(crate) fn fits_amounts(pod: &PodAmounts, a: &Amounts) -> bool {
    if a.pods + 1 > a.alloc_pods {
        return false;
    }
    let checks = [
        (pod.requests[0], a.alloc_cpu, a.requested_cpu),
        (pod.requests[1], a.alloc_memory, a.requested_memory),
        (pod.requests[2], a.alloc_ephemeral, a.requested_ephemeral),
    ];
    checks.iter().all(|&(requested, allocatable, used)| requested <= 0 || requested <= allocatable.saturating_sub(used))
}

/// LeastAllocated + BalancedAllocation of the pod on a node (weights 1).
pub(crate) fn resource_scores(a: &Amounts, pod: &PodAmounts) -> i64 {
    if a.small && pod.small {
        // Straight-line, same arithmetic: both capacities positive, no overflow.
        let least_one = |c: i64, z: i64| if z > c { 0 } else { (c - z) * MAX_NODE_SCORE / c };
        let least = (least_one(a.alloc_cpu, a.non_zero_cpu + pod.non_zero[0])
            + least_one(a.alloc_memory, a.non_zero_memory + pod.non_zero[1]))
            / 2;
        if pod.requests[0] == 0 && pod.requests[1] == 0 {
            return least;
        }
        let fc = ((a.requested_cpu + pod.requests[0]) as f64 / a.alloc_cpu as f64).min(1.0);
        let fm = ((a.requested_memory + pod.requests[1]) as f64 / a.alloc_memory as f64).min(1.0);
        let std = ((fc - fm) / 2.0).abs();
        return least + ((1.0 - std) * MAX_NODE_SCORE as f64) as i64;
    }
    let capacity = [a.alloc_cpu, a.alloc_memory];
    least_allocated(capacity, [a.non_zero_cpu, a.non_zero_memory], pod.non_zero)
        + balanced_allocation(capacity, [a.requested_cpu, a.requested_memory], [pod.requests[0], pod.requests[1]])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// LeastAllocated as first written: every step in i128.
    fn least_allocated_i128(capacity: [i64; 2], node_requested: [i64; 2], pod: [i64; 2]) -> i64 {
        let mut score: i128 = 0;
        let mut weights: i128 = 0;
        for i in 0..2 {
            let c = i128::from(capacity[i]);
            if c == 0 {
                continue;
            }
            let requested = i128::from(node_requested[i]) + i128::from(pod[i]);
            score += if requested > c { 0 } else { (c - requested) * i128::from(MAX_NODE_SCORE) / c };
            weights += 1;
        }
        if weights == 0 {
            return 0;
        }
        // Clamped like `least_allocated` (only negative amounts leave 0..=100).
        (score / weights).clamp(0, i128::from(MAX_NODE_SCORE)) as i64
    }

    fn amount() -> impl Strategy<Value = i64> {
        prop_oneof![4 => 0i64..100_000, 3 => 0i64..(1 << 40), 1 => any::<i64>(), 1 => Just(0)]
    }

    /// A node's amounts from allocatable, requested and non-zero requested
    /// `[cpu millicores, memory bytes]`, with its small-amount flag set.
    pub(crate) fn amounts_of(alloc: [i64; 2], requested: [i64; 2], non_zero: [i64; 2]) -> Amounts {
        let mut a = Amounts {
            alloc_cpu: alloc[0],
            alloc_memory: alloc[1],
            requested_cpu: requested[0],
            requested_memory: requested[1],
            non_zero_cpu: non_zero[0],
            non_zero_memory: non_zero[1],
            ..Amounts::default()
        };
        a.refresh_small();
        a
    }

    proptest! {
        /// The straight-line scores equal the general ones.
        #[test]
        fn resource_scores_shortcut_matches(
            alloc in [amount(), amount()], requested in [amount(), amount()], extra in [amount(), amount()],
            pod in [amount(), amount()], pod_extra in [0i64..500, 0i64..500],
        ) {
            let non_zero = [requested[0].saturating_add(extra[0]), requested[1].saturating_add(extra[1])];
            let a = amounts_of(alloc, requested, non_zero);
            let p = PodAmounts {
                requests: [pod[0], pod[1], 0],
                non_zero: [pod[0].saturating_add(pod_extra[0]), pod[1].saturating_add(pod_extra[1])],
                other_resources: false,
                small: [pod[0], pod[1]].iter().all(|v| small(*v)) && [pod[0].saturating_add(pod_extra[0]), pod[1].saturating_add(pod_extra[1])].iter().all(|v| small(*v)),
            };
            let general = least_allocated(alloc, [a.non_zero_cpu, a.non_zero_memory], p.non_zero)
                + balanced_allocation(alloc, requested, [pod[0], pod[1]]);
            prop_assert_eq!(resource_scores(&a, &p), general);
        }

        /// The i64 shortcut gives what the all-i128 computation gives.
        #[test]
        fn least_allocated_matches_the_i128_computation(
            c in [amount(), amount()], r in [amount(), amount()], p in [amount(), amount()],
        ) {
            prop_assert_eq!(least_allocated(c, r, p), least_allocated_i128(c, r, p));
        }
    }

    const MI: i64 = 1024 * 1024;

    #[test]
    fn least_allocated_examples() {
        let alloc = ResourceList::from_pairs(&[("cpu", 4000), ("memory", 10_000 * MI)]);
        let used = ResourceList::from_pairs(&[("cpu", 1000), ("memory", 2000 * MI)]);
        let pod = ResourceList::from_pairs(&[("cpu", 1000), ("memory", 3000 * MI)]);
        // cpu: (4000-2000)*100/4000 = 50; memory: (10000-5000)*100/10000 = 50.
        assert_eq!(least_allocated_score(&alloc, &used, &pod), 50);
        // Over-requested cpu scores 0 for cpu; memory (10000-200)*100/10000 = 98 → (0+98)/2.
        let big = ResourceList::from_pairs(&[("cpu", 5000), ("memory", 200 * MI)]);
        assert_eq!(least_allocated_score(&alloc, &ResourceList::new(), &big), 49);
        // Integer division: cpu (3-1)*100/3 = 66, memory 100 → (66+100)/2 = 83.
        let tiny = ResourceList::from_pairs(&[("cpu", 3), ("memory", 10)]);
        assert_eq!(least_allocated_score(&tiny, &ResourceList::new(), &ResourceList::from_pairs(&[("cpu", 1)])), 83);
        // A node without allocatable at all scores 0.
        assert_eq!(least_allocated_score(&ResourceList::new(), &used, &pod), 0);
    }

    #[test]
    fn balanced_allocation_examples() {
        let alloc = ResourceList::from_pairs(&[("cpu", 4000), ("memory", 4000 * MI)]);
        let pod = ResourceList::from_pairs(&[("cpu", 1000), ("memory", 1000 * MI)]);
        assert_eq!(balanced_allocation_score(&alloc, &ResourceList::new(), &pod), 100);
        // cpu 3000/4000 = .75, memory 1000/4000 = .25 → std .25 → 75.
        let used = ResourceList::from_pairs(&[("cpu", 2000)]);
        assert_eq!(balanced_allocation_score(&alloc, &used, &pod), 75);
        // Fractions cap at 1: cpu 2.0→1, memory .25 → std .375 → 62.
        let hog = ResourceList::from_pairs(&[("cpu", 7000)]);
        assert_eq!(balanced_allocation_score(&alloc, &hog, &pod), 62);
        // Best-effort pods are skipped.
        assert_eq!(balanced_allocation_score(&alloc, &used, &ResourceList::new()), 0);
    }
}
