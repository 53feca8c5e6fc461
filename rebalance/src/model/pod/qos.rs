//! Pod QoS classes (Guaranteed, Burstable, BestEffort) computed like Kubernetes.
//!
//! Source: kubernetes `pkg/apis/core/v1/helper/qos` `ComputePodQOS` (v1.32+,
//! with pod-level resources). Only `cpu` and `memory` count; only amounts
//! greater than zero count. Ephemeral containers never count.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::model::resources::{ResourceList, CPU, MEMORY};

/// A pod's quality-of-service class. Ordered as descheduler sorts eviction
/// candidates: BestEffort < Burstable < Guaranteed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum QosClass {
    /// No container sets a cpu or memory request or limit.
    BestEffort,
    /// Anything between.
    Burstable,
    /// Every container sets cpu and memory limits, and requests equal limits.
    Guaranteed,
}

impl QosClass {
    /// The API spelling (`Guaranteed`, `Burstable`, `BestEffort`).
    pub fn as_str(self) -> &'static str {
        match self {
            QosClass::BestEffort => "BestEffort",
            QosClass::Burstable => "Burstable",
            QosClass::Guaranteed => "Guaranteed",
        }
    }

    /// Parses the API spelling (as in `status.qosClass`); anything else is `None`.
    pub fn parse(s: &str) -> Option<QosClass> {
        match s {
            "BestEffort" => Some(QosClass::BestEffort),
            "Burstable" => Some(QosClass::Burstable),
            "Guaranteed" => Some(QosClass::Guaranteed),
            _ => None,
        }
    }
}

impl std::fmt::Display for QosClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn is_qos_resource(name: &str) -> bool {
    name == CPU || name == MEMORY
}

/// Adds the positive cpu/memory amounts of `reqs` and `lims` to the running
/// sums; returns true when `lims` lacks a positive cpu or memory limit.
fn accumulate(
    reqs: &ResourceList,
    lims: &ResourceList,
    requests: &mut ResourceList,
    limits: &mut ResourceList,
) -> bool {
    for (name, v) in reqs.iter() {
        if is_qos_resource(name) && v > 0 {
            requests.add(&ResourceList::from_pairs(&[(name, v)]));
        }
    }
    let mut found = BTreeSet::new();
    for (name, v) in lims.iter() {
        if is_qos_resource(name) && v > 0 {
            found.insert(name);
            limits.add(&ResourceList::from_pairs(&[(name, v)]));
        }
    }
    !(found.contains(CPU) && found.contains(MEMORY))
}

/// Computes the QoS class from each container's `(requests, limits)` (app and
/// init containers alike, sidecars included), or from the pod-level
/// `(requests, limits)` when the pod sets `spec.resources` (pod-level resources
/// take over entirely, as in `ComputePodQOS`).
///
/// Requests are expected AFTER the API server's defaulting (a missing request
/// defaults to the limit), which [`crate::model::pod::PodInfo::from_json`] applies.
///
/// Source: kubernetes `qos.ComputePodQOS`.
pub fn compute_qos<'a>(
    containers: impl IntoIterator<Item = (&'a ResourceList, &'a ResourceList)>,
    pod_level: Option<(&ResourceList, &ResourceList)>,
) -> QosClass {
    let mut requests = ResourceList::new();
    let mut limits = ResourceList::new();
    let mut is_guaranteed = true;
    match pod_level {
        Some((reqs, lims)) => {
            let missing = accumulate(reqs, lims, &mut requests, &mut limits);
            // Upstream checks the cpu+memory limit set only when pod-level limits
            // are non-empty; without limits the requests==limits test below fails.
            if !lims.is_empty() && missing {
                is_guaranteed = false;
            }
        }
        None => {
            for (reqs, lims) in containers {
                if accumulate(reqs, lims, &mut requests, &mut limits) {
                    is_guaranteed = false;
                }
            }
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return QosClass::BestEffort;
    }
    if is_guaranteed {
        for (name, req) in requests.iter() {
            if limits.get_opt(name) != Some(req) {
                is_guaranteed = false;
                break;
            }
        }
    }
    if is_guaranteed && requests.len() == limits.len() {
        QosClass::Guaranteed
    } else {
        QosClass::Burstable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rl(pairs: &[(&str, i64)]) -> ResourceList {
        ResourceList::from_pairs(pairs)
    }

    #[test]
    fn best_effort_when_nothing_is_set() {
        let empty = rl(&[]);
        assert_eq!(compute_qos([(&empty, &empty)], None), QosClass::BestEffort);
        // Zero amounts and non-QoS resources do not count.
        let zero = rl(&[("cpu", 0), ("ephemeral-storage", 100)]);
        assert_eq!(compute_qos([(&zero, &empty)], None), QosClass::BestEffort);
    }

    #[test]
    fn guaranteed_needs_equal_cpu_and_memory_in_every_container() {
        let a = rl(&[("cpu", 500), ("memory", 1 << 20)]);
        let b = rl(&[("cpu", 100), ("memory", 2 << 20)]);
        assert_eq!(compute_qos([(&a, &a), (&b, &b)], None), QosClass::Guaranteed);
        // One container without limits → Burstable.
        let none = rl(&[]);
        assert_eq!(compute_qos([(&a, &a), (&none, &none)], None), QosClass::Burstable);
        // Request below limit → Burstable.
        let lower = rl(&[("cpu", 250), ("memory", 1 << 20)]);
        assert_eq!(compute_qos([(&lower, &a)], None), QosClass::Burstable);
        // Only a cpu limit → Burstable.
        let cpu_only = rl(&[("cpu", 500)]);
        assert_eq!(compute_qos([(&cpu_only, &cpu_only)], None), QosClass::Burstable);
    }

    #[test]
    fn guaranteed_compares_sums_across_containers() {
        // Upstream sums requests and limits over containers before comparing.
        let a_req = rl(&[("cpu", 100), ("memory", 10)]);
        let a_lim = rl(&[("cpu", 200), ("memory", 10)]);
        let b_req = rl(&[("cpu", 200), ("memory", 10)]);
        let b_lim = rl(&[("cpu", 100), ("memory", 10)]);
        assert_eq!(compute_qos([(&a_req, &a_lim), (&b_req, &b_lim)], None), QosClass::Guaranteed);
    }

    #[test]
    fn pod_level_resources_take_over() {
        let empty = rl(&[]);
        let pod = rl(&[("cpu", 1000), ("memory", 1 << 30)]);
        assert_eq!(compute_qos([(&empty, &empty)], Some((&pod, &pod))), QosClass::Guaranteed);
        let req = rl(&[("cpu", 500)]);
        assert_eq!(compute_qos([(&pod, &pod)], Some((&req, &empty))), QosClass::Burstable);
    }

    #[test]
    fn ordering_matches_descheduler_sort() {
        assert!(QosClass::BestEffort < QosClass::Burstable);
        assert!(QosClass::Burstable < QosClass::Guaranteed);
        assert_eq!(QosClass::parse("Guaranteed"), Some(QosClass::Guaranteed));
        assert_eq!(QosClass::parse("guaranteed"), None);
    }
}
