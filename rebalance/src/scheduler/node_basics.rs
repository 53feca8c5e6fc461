//! NodeUnschedulable, NodeName and NodePorts: the filters that look at one
//! node field or one pod field.

use super::{FilterFailure, NodeSlot};
use crate::model::node::{NodeInfo, Taint, TaintEffect};
use crate::model::pod::{tolerations_tolerate, HostPort, PodInfo};

/// The taint a cordoned node implicitly carries.
pub(crate) const UNSCHEDULABLE_TAINT_KEY: &str = "node.kubernetes.io/unschedulable";

/// A cordoned node rejects the pod unless the pod tolerates
/// `node.kubernetes.io/unschedulable:NoSchedule`.
/// Source: kube-scheduler NodeUnschedulable `Filter`.
pub(crate) fn node_unschedulable(pod: &PodInfo, node: &NodeInfo) -> Option<FilterFailure> {
    if !node.unschedulable {
        return None;
    }
    let taint = Taint::new(UNSCHEDULABLE_TAINT_KEY, "", TaintEffect::NoSchedule);
    if tolerations_tolerate(&pod.tolerations, &taint) {
        None
    } else {
        Some(FilterFailure::NodeUnschedulable)
    }
}

/// A pod with `spec.nodeName` fits only that node.
/// Source: kube-scheduler NodeName `Fits`.
pub(crate) fn node_name(pod: &PodInfo, node: &NodeInfo) -> Option<FilterFailure> {
    match &pod.node_name {
        Some(wanted) if *wanted != node.name => Some(FilterFailure::NodeNameMismatch { requested: wanted.clone() }),
        _ => None,
    }
}

/// Whether `used` (a port bound on the node) conflicts with `wanted`: same
/// protocol and port, and either address is `0.0.0.0` or both are equal.
/// Source: kube-scheduler `HostPortInfo.CheckConflict`.
fn ports_conflict(wanted: &HostPort, used: &HostPort) -> bool {
    const ANY: &str = "0.0.0.0";
    wanted.port > 0
        && wanted.port == used.port
        && wanted.protocol == used.protocol
        && (wanted.host_ip == ANY || used.host_ip == ANY || wanted.host_ip == used.host_ip)
}

/// Every host port of the pod already bound on the node (the scheduler
/// reports the first). Source: kube-scheduler NodePorts `fitsPorts`.
pub(crate) fn node_ports(pod: &PodInfo, slot: &NodeSlot<'_>) -> Vec<FilterFailure> {
    pod.rare
        .host_ports
        .iter()
        .filter(|wanted| slot.pods.iter().any(|p| p.rare.host_ports.iter().any(|used| ports_conflict(wanted, used))))
        .map(|wanted| FilterFailure::HostPortConflict { port: wanted.clone() })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(p: i32, proto: &str, ip: &str) -> HostPort {
        HostPort { container: "c".into(), port: p, protocol: proto.into(), host_ip: ip.into() }
    }

    #[test]
    fn port_conflicts() {
        assert!(ports_conflict(&port(80, "TCP", "0.0.0.0"), &port(80, "TCP", "10.0.0.1")));
        assert!(ports_conflict(&port(80, "TCP", "10.0.0.1"), &port(80, "TCP", "0.0.0.0")));
        assert!(ports_conflict(&port(80, "TCP", "10.0.0.1"), &port(80, "TCP", "10.0.0.1")));
        assert!(!ports_conflict(&port(80, "TCP", "10.0.0.1"), &port(80, "TCP", "10.0.0.2")));
        assert!(!ports_conflict(&port(80, "UDP", "0.0.0.0"), &port(80, "TCP", "0.0.0.0")));
        assert!(!ports_conflict(&port(81, "TCP", "0.0.0.0"), &port(80, "TCP", "0.0.0.0")));
    }
}
