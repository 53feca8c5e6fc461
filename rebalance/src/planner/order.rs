//! The two orders of the eviction loop, with upstream's non-determinism
//! resolved by documented tie-breaks.
//!
//! - Source nodes: descending by the raw usage sum (descheduler v0.36
//!   `sortNodesByUsage`, an unstable `sort.Slice` over map order); equal sums
//!   → node name ascending.
//! - Pods on a node: descheduler v0.36 `SortPodsBasedOnPriorityLowToHigh`:
//!   priority ascending with no priority first, then QoS BestEffort <
//!   Burstable < Guaranteed, then pods without the
//!   `descheduler.alpha.kubernetes.io/prefer-no-eviction` annotation first
//!   (the upstream comparator is not a strict order and the sort unstable);
//!   equal pods → namespace, then name ascending.

use std::cmp::Ordering;

use crate::model::pod::qos::QosClass;
use crate::model::pod::PodInfo;

/// The annotation that asks descheduler to prefer other pods.
pub const PREFER_NO_EVICTION: &str = "descheduler.alpha.kubernetes.io/prefer-no-eviction";

/// Whether `pod` carries [`PREFER_NO_EVICTION`].
pub fn prefers_no_eviction(pod: &PodInfo) -> bool {
    pod.annotations.contains_key(PREFER_NO_EVICTION)
}

/// descheduler's pod order, made total (see the module docs).
pub fn compare_pods(a: &PodInfo, b: &PodInfo) -> Ordering {
    let prio = |p: &PodInfo| match p.priority {
        None => (0u8, 0i32),
        Some(v) => (1u8, v),
    };
    prio(a)
        .cmp(&prio(b))
        .then_with(|| a.qos.cmp(&b.qos))
        .then_with(|| prefers_no_eviction(a).cmp(&prefers_no_eviction(b)))
        .then_with(|| a.namespace.cmp(&b.namespace))
        .then_with(|| a.name.cmp(&b.name))
}

/// descheduler's source order made total: usage sum descending, then name.
pub fn compare_sources(a: (&str, i64), b: (&str, i64)) -> Ordering {
    b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0))
}

/// The rule that placed a pod at `rank` of `total` on `node`, in words.
pub(crate) fn rule(pod: &PodInfo, rank: usize, total: usize, node: &str) -> String {
    let prio = match pod.priority {
        None => "no priority, which sorts first".to_string(),
        Some(p) => format!("priority {p}"),
    };
    let qos = match pod.qos {
        QosClass::BestEffort => "BestEffort",
        QosClass::Burstable => "Burstable",
        QosClass::Guaranteed => "Guaranteed",
    };
    let annot = if prefers_no_eviction(pod) { "has it, so last among equals" } else { "has none" };
    format!(
        "#{rank} of {total} removable pods on {node}: lowest priority first ({prio}), then BestEffort \
         before Burstable before Guaranteed ({qos}), then pods without the prefer-no-eviction annotation \
         ({annot}); ties by namespace/name"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::resources::ResourceList;

    fn pod(name: &str, prio: Option<i32>, qos: QosClass, prefer: bool) -> PodInfo {
        let mut p = PodInfo::new("ns", name);
        p.priority = prio;
        p.qos = qos;
        p.qos_from_status = true;
        p.requests = ResourceList::new();
        if prefer {
            p.annotations.insert(PREFER_NO_EVICTION.into(), "true".into());
        }
        p
    }

    #[test]
    fn pod_order() {
        let mut pods = [
            pod("g0", Some(0), QosClass::Guaranteed, false),
            pod("b0", Some(0), QosClass::BestEffort, false),
            pod("bu0", Some(0), QosClass::Burstable, false),
            pod("none-g", None, QosClass::Guaranteed, false),
            pod("neg", Some(-5), QosClass::Guaranteed, false),
            pod("b0-prefer", Some(0), QosClass::BestEffort, true),
            pod("a-b0", Some(0), QosClass::BestEffort, false),
            pod("high", Some(1000), QosClass::BestEffort, false),
        ];
        pods.sort_by(compare_pods);
        let names: Vec<&str> = pods.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["none-g", "neg", "a-b0", "b0", "b0-prefer", "bu0", "g0", "high"]);
    }

    #[test]
    fn source_order() {
        let mut nodes = [("b", 10), ("a", 10), ("c", 20)];
        nodes.sort_by(|x, y| compare_sources(*x, *y));
        assert_eq!(nodes, [("c", 20), ("a", 10), ("b", 10)]);
    }
}
