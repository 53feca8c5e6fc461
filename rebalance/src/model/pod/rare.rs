//! [`PodRare`]: the fields of a pod that few pods set (a nomination, a
//! priority class name, init containers, host ports, spread constraints, a
//! deletion time, pod-level resources and overhead), kept out of line in one
//! [`Sparse`] part: a pod that sets none of them holds 8 bytes for all of
//! them instead of ~150 (at 150,000 pods, ~21 MiB less to load; kdrift
//! issue 39 item 4).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::spec::{ContainerInfo, HostPort};
use super::status::TopologySpreadConstraint;
use crate::model::resources::ResourceList;
use crate::model::sparse::{EmptyPart, Sparse};

/// The rarely set fields of a [`super::PodInfo`], read and written as
/// `pod.rare.FIELD` (unset, they read as empty and hold no allocation).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PodRare {
    /// `status.nominatedNodeName` (set by preemption).
    pub nominated_node_name: Option<String>,
    /// `spec.priorityClassName`.
    pub priority_class_name: Option<String>,
    /// `spec.initContainers` in order (init containers and sidecars).
    pub init_containers: Vec<ContainerInfo>,
    /// Pod-level `spec.resources.requests` (cpu/memory; defaulted from
    /// pod-level limits when no container requests that resource).
    pub pod_level_requests: Sparse<ResourceList>,
    /// Pod-level `spec.resources.limits`.
    pub pod_level_limits: Sparse<ResourceList>,
    /// `spec.overhead`.
    pub overhead: Sparse<ResourceList>,
    /// Host ports of app containers and sidecars (`GetHostPorts`).
    pub host_ports: Vec<HostPort>,
    /// `metadata.deletionTimestamp` (terminating).
    pub deletion_timestamp: Option<DateTime<Utc>>,
    /// `spec.topologySpreadConstraints`.
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
}

static EMPTY_RARE: PodRare = PodRare {
    nominated_node_name: None,
    priority_class_name: None,
    init_containers: Vec::new(),
    pod_level_requests: Sparse::none(),
    pod_level_limits: Sparse::none(),
    overhead: Sparse::none(),
    host_ports: Vec::new(),
    deletion_timestamp: None,
    topology_spread_constraints: Vec::new(),
};

impl EmptyPart for PodRare {
    fn empty() -> &'static PodRare {
        &EMPTY_RARE
    }
}

impl PodRare {
    /// Gives every list exactly its entries' room (see `PodInfo::fit_lists`).
    pub(crate) fn fit_lists(&mut self) {
        self.init_containers.shrink_to_fit();
        self.host_ports.shrink_to_fit();
        self.topology_spread_constraints.shrink_to_fit();
    }
}
