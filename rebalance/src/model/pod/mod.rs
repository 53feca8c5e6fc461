//! Pods as the scheduler and descheduler see them, read tolerantly from a
//! stored Pod object (current camelCase API JSON; fields may be null or
//! missing in old dumps).
//!
//! The effective requests follow kube's `PodRequests` (component-helpers
//! `resource/helpers.go`), which descheduler v0.36 also uses (§1 of the
//! descheduler reference): `max(sum(app containers + restartable init
//! "sidecars"), peak of any single init container plus the sidecars started
//! before it)`, pod-level `spec.resources.requests` override cpu/memory, then
//! `spec.overhead` is added. Spec only: resized amounts in `status` are ignored.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::error::ModelError;
use crate::model::extract::{describe, get, get_path, Reader};
use crate::model::labels::{Interner, Labels};
use crate::model::resources::{ResourceList, CPU, MEMORY};
use crate::model::sparse::Sparse;

pub mod filter_fields;
pub mod qos;
mod rare;
mod read;
mod read_status;
mod spec;
mod status;
pub mod text;

use qos::{compute_qos, QosClass};
pub use rare::PodRare;
pub(crate) use read::{container_info, read_affinity, read_label_selector};
use read::{read_container, read_tolerations, read_volumes};
pub(crate) use read_status::{push_image, read_spread_constraints};
pub use spec::{
    tolerations_tolerate, Affinity, ContainerInfo, ContainerKind, HostPort, LabelSelector, NodeAffinity,
    NodeSelectorTerm, PodAffinityRules, PodAffinityTerm, PreferredNodeTerm, Requirement, SelectorOperator, Toleration,
    TolerationOperator, Volume, VolumeSource, WeightedPodAffinityTerm,
};
pub use status::{ContainerStatus, PodCondition, PodStatusInfo, TopologySpreadConstraint};

/// The scheduler's non-zero defaults for SCORING only: a container without a
/// cpu request counts as 100m, without a memory request as 200 MiB.
/// Source: kube-scheduler `schedutil.DefaultMilliCPURequest` / `DefaultMemoryRequest`.
pub const NON_ZERO_DEFAULTS: [(&str, i64); 2] = [(CPU, 100), (MEMORY, 200 * 1024 * 1024)];

/// Resources a pod-level `spec.resources` may set.
/// Source: kube `resourcehelper.IsSupportedPodLevelResource` (cpu, memory).
const POD_LEVEL_RESOURCES: [&str; 2] = [CPU, MEMORY];

/// A pod's `status.phase`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum PodPhase {
    /// Accepted, not all containers running yet (includes unscheduled pods).
    Pending,
    /// Bound and at least one container running.
    Running,
    /// All containers terminated successfully; no longer uses node resources.
    Succeeded,
    /// All containers terminated, at least one failed; no longer uses node resources.
    Failed,
    /// The state could not be obtained.
    Unknown,
}

impl PodPhase {
    /// Parses the API spelling.
    pub fn parse(s: &str) -> Option<PodPhase> {
        match s {
            "Pending" => Some(PodPhase::Pending),
            "Running" => Some(PodPhase::Running),
            "Succeeded" => Some(PodPhase::Succeeded),
            "Failed" => Some(PodPhase::Failed),
            "Unknown" => Some(PodPhase::Unknown),
            _ => None,
        }
    }

    /// The API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PodPhase::Pending => "Pending",
            PodPhase::Running => "Running",
            PodPhase::Succeeded => "Succeeded",
            PodPhase::Failed => "Failed",
            PodPhase::Unknown => "Unknown",
        }
    }

    /// Succeeded or Failed: the pod no longer counts toward node usage
    /// (descheduler v0.36 §1; the scheduler's informer drops terminal pods too).
    pub fn is_terminal(self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }
}

/// One `metadata.ownerReferences` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OwnerRef {
    /// `apiVersion`, e.g. `apps/v1`.
    pub api_version: String,
    /// `kind`, e.g. `ReplicaSet`, `DaemonSet`, `StatefulSet`, `Job`, `Node`.
    pub kind: String,
    /// `name`.
    pub name: String,
    /// `uid`.
    pub uid: String,
    /// `controller: true` — the managing controller.
    pub controller: bool,
}

/// A pod as the scheduling and eviction models need it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PodInfo {
    /// `metadata.namespace` (`default` when missing).
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: Option<String>,
    /// `metadata.resourceVersion` (opaque; compared for equality only, e.g.
    /// by `rebalance apply` to see whether a planned pod changed).
    pub resource_version: Option<String>,
    /// `spec.nodeName`: the node the pod is bound to (empty reads as `None`).
    pub node_name: Option<String>,
    /// `spec.schedulerName`, one shared string per load (every pod names
    /// the same one or two).
    #[serde(serialize_with = "crate::model::labels::serialize_shared_opt")]
    pub scheduler_name: Option<std::sync::Arc<str>>,
    /// `status.phase`.
    pub phase: Option<PodPhase>,
    /// `metadata.labels`.
    pub labels: Labels,
    /// `metadata.annotations`.
    pub annotations: Labels,
    /// `metadata.ownerReferences`; see [`PodInfo::controller`].
    pub owners: Vec<OwnerRef>,
    /// `spec.priority`.
    pub priority: Option<i32>,
    /// `spec.containers`.
    pub containers: Vec<ContainerInfo>,
    /// The effective requests used for filtering and node usage (see the
    /// module docs; [`PodInfo::compute_requests`]).
    pub requests: ResourceList,
    /// The requests with the scheduler's non-zero defaults (100m cpu / 200 MiB
    /// memory per container that does not set them), for scoring only.
    pub non_zero_requests: ResourceList,
    /// The QoS class: `status.qosClass` when present (fixed by the API server
    /// at creation), otherwise computed by `compute_qos`.
    pub qos: QosClass,
    /// True when [`PodInfo::qos`] came from `status.qosClass`.
    pub qos_from_status: bool,
    /// `spec.nodeSelector`.
    pub node_selector: Labels,
    /// `spec.affinity`.
    pub affinity: Sparse<Affinity>,
    /// `spec.tolerations`.
    pub tolerations: Vec<Toleration>,
    /// `spec.volumes`, summarised.
    pub volumes: Vec<Volume>,
    /// `metadata.creationTimestamp`.
    pub creation_timestamp: Option<DateTime<Utc>>,
    /// `spec.containers[].image`, in order (init containers not included:
    /// descheduler's RemoveDuplicates keys on these): one per app container
    /// (`""` for one without an image), or empty when no container names
    /// an image (so such a pod holds no allocation for it).
    pub images: Vec<String>,
    /// `status.startTime`: when the kubelet accepted the pod (here rather
    /// than in [`PodInfo::status`]: most pods set it and nothing else there).
    pub start_time: Option<DateTime<Utc>>,
    /// The status beyond phase and start time, boxed because most planning never reads it
    /// (read it with [`PodInfo::status`]).
    pub status: Option<Box<PodStatusInfo>>,
    /// The fields few pods set (nomination, priority class name, init
    /// containers, pod-level resources, overhead, host ports, deletion time,
    /// spread constraints), out of line: `pod.rare.init_containers`.
    /// Serialized flattened, as the fields were.
    #[serde(flatten)]
    pub rare: Sparse<PodRare>,
}

impl PodInfo {
    /// An empty pod (no containers, BestEffort, unbound, Pending) — a base for
    /// tests and what-if simulations. Set fields, then call
    /// [`PodInfo::refresh_derived`].
    pub fn new(namespace: &str, name: &str) -> PodInfo {
        PodInfo {
            namespace: namespace.to_string(),
            name: name.to_string(),
            uid: None,
            resource_version: None,
            node_name: None,
            scheduler_name: None,
            phase: Some(PodPhase::Pending),
            labels: Labels::new(),
            annotations: Labels::new(),
            owners: Vec::new(),
            priority: None,
            containers: Vec::new(),
            requests: ResourceList::new(),
            non_zero_requests: ResourceList::new(),
            qos: QosClass::BestEffort,
            qos_from_status: false,
            node_selector: Labels::new(),
            affinity: Sparse::default(),
            tolerations: Vec::new(),
            volumes: Vec::new(),
            creation_timestamp: None,
            images: Vec::new(),
            start_time: None,
            status: None,
            rare: Sparse::none(),
        }
    }

    /// The status fields beyond phase ([`PodStatusInfo`]); all unset when
    /// not read.
    pub fn status(&self) -> &PodStatusInfo {
        self.status.as_deref().unwrap_or(&status::EMPTY_STATUS)
    }

    /// Points the pod's label, annotation and node selector strings at
    /// `interner`'s (see [`Labels::share`]): what a load of many pods does
    /// with each, so that a key or value repeated across pods is held once.
    pub fn share_strings(&mut self, interner: &mut Interner) {
        self.labels.share(interner);
        self.annotations.share(interner);
        self.node_selector.share(interner);
        if let Some(s) = &mut self.scheduler_name {
            interner.share(s);
        }
    }

    /// `namespace/name`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// The owner reference with `controller: true`.
    pub fn controller(&self) -> Option<&OwnerRef> {
        self.owners.iter().find(|o| o.controller)
    }

    /// Succeeded or Failed.
    pub fn is_terminal(&self) -> bool {
        self.phase.is_some_and(PodPhase::is_terminal)
    }

    /// Whether the pod counts toward a node's usage: bound (`spec.nodeName`
    /// set) and not terminal (descheduler v0.36 §1; the scheduler cache).
    pub fn counts_toward_usage(&self) -> bool {
        self.node_name.is_some() && !self.is_terminal()
    }

    /// Whether the pod is terminating (`metadata.deletionTimestamp` set).
    pub fn is_terminating(&self) -> bool {
        self.rare.deletion_timestamp.is_some()
    }

    /// A mirror pod (annotation `kubernetes.io/config.mirror`).
    pub fn is_mirror(&self) -> bool {
        self.annotations.contains_key("kubernetes.io/config.mirror")
    }

    /// A static pod (annotation `kubernetes.io/config.source` other than `api`).
    pub fn is_static(&self) -> bool {
        self.annotations.get("kubernetes.io/config.source").is_some_and(|s| s != "api")
    }

    /// Owned by a DaemonSet (any owner reference of kind DaemonSet, as descheduler checks).
    pub fn is_daemonset_pod(&self) -> bool {
        self.owners.iter().any(|o| o.kind == "DaemonSet")
    }

    /// Mounts a hostPath or emptyDir volume (descheduler's PodsWithLocalStorage).
    pub fn has_local_storage(&self) -> bool {
        self.volumes.iter().any(|v| matches!(v.source, VolumeSource::HostPath { .. } | VolumeSource::EmptyDir { .. }))
    }

    /// Names of the PersistentVolumeClaims mounted (descheduler's PodsWithPVC).
    pub fn pvc_names(&self) -> Vec<&str> {
        self.volumes
            .iter()
            .filter_map(|v| match &v.source {
                VolumeSource::PersistentVolumeClaim { claim_name } => Some(claim_name.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Every container (init and app) that requests a resource without
    /// setting a limit for it, as `(container, resource)`.
    pub fn requests_without_limits(&self) -> Vec<(&str, &str)> {
        self.rare
            .init_containers
            .iter()
            .chain(self.containers.iter())
            .flat_map(|c| c.requests_without_limit().into_iter().map(move |r| (c.name.as_str(), r)))
            .collect()
    }

    /// A copy as a replacement pod would be before scheduling: no node, no
    /// nomination, phase Pending — what to hand to [`crate::scheduler::evaluate`]
    /// when simulating where an evicted pod's replacement lands.
    pub fn unbound_copy(&self) -> PodInfo {
        let mut p = self.clone();
        p.node_name = None;
        if let Some(rare) = p.rare.get_mut_if_set() {
            rare.nominated_node_name = None;
        }
        p.phase = Some(PodPhase::Pending);
        p
    }

    /// The effective requests, optionally with per-container defaults for
    /// resources a container does not list (`non_missing`, e.g.
    /// `NON_ZERO_DEFAULTS` for scoring).
    ///
    /// Source: kube component-helpers `resource.PodRequests` /
    /// `AggregateContainerRequests` (descheduler v0.36 §1): app containers and
    /// sidecars add up; each init container needs its own requests plus the
    /// sidecars started before it; the pod needs the larger of the two;
    /// pod-level cpu/memory requests replace the aggregate; overhead is added.
    pub fn compute_requests(&self, non_missing: Option<&ResourceList>) -> ResourceList {
        let with_defaults = |c: &ContainerInfo| -> ResourceList {
            let mut r = c.requests.clone();
            if let Some(d) = non_missing {
                for (k, v) in d.iter() {
                    if !r.contains(k) {
                        r.set(k, v);
                    }
                }
            }
            r
        };
        let mut reqs = ResourceList::new();
        for c in &self.containers {
            reqs.add(&with_defaults(c));
        }
        let mut sidecars = ResourceList::new();
        let mut init_peak = ResourceList::new();
        for c in &self.rare.init_containers {
            let own = with_defaults(c);
            let in_use = if c.kind == ContainerKind::Sidecar {
                reqs.add(&own);
                sidecars.add(&own);
                sidecars.clone()
            } else {
                own.plus(&sidecars)
            };
            init_peak.max_with(&in_use);
        }
        reqs.max_with(&init_peak);
        for r in POD_LEVEL_RESOURCES {
            if let Some(v) = self.rare.pod_level_requests.get_opt(r) {
                reqs.set(r, v);
            }
        }
        reqs.add(&self.rare.overhead);
        reqs
    }

    /// The QoS class computed from the spec (ignoring `status.qosClass`).
    pub fn computed_qos(&self) -> QosClass {
        let pod_level = if self.rare.pod_level_requests.is_empty() && self.rare.pod_level_limits.is_empty() {
            None
        } else {
            Some((&*self.rare.pod_level_requests, &*self.rare.pod_level_limits))
        };
        compute_qos(
            self.containers.iter().chain(self.rare.init_containers.iter()).map(|c| (&c.requests, &c.limits)),
            pod_level,
        )
    }

    /// Pod-level defaulting (`defaultPodRequests`): a pod-level limit without a
    /// pod-level request becomes the request when no container requests that
    /// resource. Needs the containers and the pod-level lists read.
    pub(crate) fn default_pod_level_requests(&mut self) {
        for res in POD_LEVEL_RESOURCES {
            if let Some(limit) = self.rare.pod_level_limits.get_opt(res) {
                let any_container =
                    self.containers.iter().chain(self.rare.init_containers.iter()).any(|c| c.requests.contains(res));
                if !self.rare.pod_level_requests.contains(res) && !any_container {
                    self.rare.pod_level_requests.set(res, limit);
                }
            }
        }
    }

    /// Gives every list exactly its entries' room: pushed one by one, or
    /// collected in place from the parser's list, they kept room for four
    /// (a bench pod's one container held 512 bytes instead of 128; at
    /// 150,000 pods, ~1 KB a pod over all lists, kdrift issue 39 item 4).
    pub(crate) fn fit_lists(&mut self) {
        self.owners.shrink_to_fit();
        self.containers.shrink_to_fit();
        self.tolerations.shrink_to_fit();
        self.volumes.shrink_to_fit();
        self.images.shrink_to_fit();
        if let Some(rare) = self.rare.get_mut_if_set() {
            rare.fit_lists();
        }
    }

    /// Recomputes [`PodInfo::requests`], [`PodInfo::non_zero_requests`] and,
    /// unless it came from the status, [`PodInfo::qos`] after fields were changed.
    pub fn refresh_derived(&mut self) {
        self.requests = self.compute_requests(None);
        self.non_zero_requests = self.compute_requests(Some(&ResourceList::from_pairs(&NON_ZERO_DEFAULTS)));
        if !self.qos_from_status {
            self.qos = self.computed_qos();
        }
    }

    /// Reads a Pod object as stored (API JSON, camelCase). Missing and null
    /// fields read as unset; wrongly typed fields, bad quantities and bad
    /// timestamps are errors naming the pod and the field, e.g.
    /// `pod default/x: spec.containers[1].resources.requests.cpu: "abc" is not a quantity (…)`.
    pub fn from_json(v: &Value) -> Result<PodInfo, ModelError> {
        if !v.is_object() {
            return Err(ModelError::NotAnObject { expected: "Pod", found: describe(v) });
        }
        let meta = get(v, "metadata");
        let mget = |k: &str| meta.and_then(|m| get(m, k));
        let probe = Reader::new("pod ?".to_string());
        let namespace = probe
            .opt_str(mget("namespace"), "metadata.namespace")?
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "default".to_string());
        let name = probe.opt_str(mget("name"), "metadata.name")?.ok_or_else(|| ModelError::MissingField {
            object: format!("pod {namespace}/?"),
            field: "metadata.name".to_string(),
        })?;
        let r = Reader::new(format!("pod {namespace}/{name}"));
        let mut pod = PodInfo::new(&namespace, &name);
        pod.phase = None;
        let mut rare = PodRare::default();

        pod.uid = r.opt_str(mget("uid"), "metadata.uid")?.filter(|s| !s.is_empty());
        pod.resource_version =
            r.opt_str(mget("resourceVersion"), "metadata.resourceVersion")?.filter(|s| !s.is_empty());
        pod.labels = r.string_map(mget("labels"), "metadata.labels")?.into();
        pod.annotations = r.string_map(mget("annotations"), "metadata.annotations")?.into();
        pod.creation_timestamp = r.opt_time(mget("creationTimestamp"), "metadata.creationTimestamp")?;
        rare.deletion_timestamp = r.opt_time(mget("deletionTimestamp"), "metadata.deletionTimestamp")?;
        for (i, o) in r.array(mget("ownerReferences"), "metadata.ownerReferences")?.iter().enumerate() {
            let p = format!("metadata.ownerReferences[{i}]");
            pod.owners.push(OwnerRef {
                api_version: r.opt_str(get(o, "apiVersion"), &format!("{p}.apiVersion"))?.unwrap_or_default(),
                kind: r.opt_str(get(o, "kind"), &format!("{p}.kind"))?.unwrap_or_default(),
                name: r.opt_str(get(o, "name"), &format!("{p}.name"))?.unwrap_or_default(),
                uid: r.opt_str(get(o, "uid"), &format!("{p}.uid"))?.unwrap_or_default(),
                controller: r.opt_bool(get(o, "controller"), &format!("{p}.controller"))?.unwrap_or(false),
            });
        }

        let spec = get(v, "spec");
        // Break-it (issue 34): `spec: "bad"` read as an empty spec, silently.
        if let Some(other) = spec.filter(|s| !s.is_object()) {
            return Err(r.bad("spec", format!("expected an object, got {}", describe(other))));
        }
        let sget = |k: &str| spec.and_then(|s| get(s, k));
        pod.node_name = r.opt_str(sget("nodeName"), "spec.nodeName")?.filter(|s| !s.is_empty());
        pod.scheduler_name =
            r.opt_str(sget("schedulerName"), "spec.schedulerName")?.filter(|s| !s.is_empty()).map(Into::into);
        pod.priority = r.opt_i32(sget("priority"), "spec.priority")?;
        rare.priority_class_name =
            r.opt_str(sget("priorityClassName"), "spec.priorityClassName")?.filter(|s| !s.is_empty());

        for (i, c) in r.array(sget("containers"), "spec.containers")?.iter().enumerate() {
            let (info, ports) = read_container(&r, c, &format!("spec.containers[{i}]"), false)?;
            push_image(&mut pod.images, i, r.opt_str(get(c, "image"), &format!("spec.containers[{i}].image"))?);
            rare.host_ports.extend(ports);
            pod.containers.push(info);
        }
        let mut sidecar_ports = Vec::new();
        for (i, c) in r.array(sget("initContainers"), "spec.initContainers")?.iter().enumerate() {
            let (info, ports) = read_container(&r, c, &format!("spec.initContainers[{i}]"), true)?;
            // Only sidecars hold their host ports for the pod's lifetime (`GetHostPorts`).
            if info.kind == ContainerKind::Sidecar {
                sidecar_ports.extend(ports);
            }
            rare.init_containers.push(info);
        }
        sidecar_ports.append(&mut rare.host_ports);
        rare.host_ports = sidecar_ports;

        rare.pod_level_requests =
            r.resource_list(get_path(v, &["spec", "resources", "requests"]), "spec.resources.requests")?.into();
        rare.pod_level_limits =
            r.resource_list(get_path(v, &["spec", "resources", "limits"]), "spec.resources.limits")?.into();
        rare.overhead = r.resource_list(sget("overhead"), "spec.overhead")?.into();
        pod.node_selector = r.string_map(sget("nodeSelector"), "spec.nodeSelector")?.into();
        pod.affinity = read_affinity(&r, sget("affinity"))?.into();
        pod.tolerations = read_tolerations(&r, sget("tolerations"))?;
        pod.volumes = read_volumes(&r, sget("volumes"))?;
        rare.topology_spread_constraints = read_spread_constraints(&r, sget("topologySpreadConstraints"))?;

        let status = get(v, "status");
        if let Some(other) = status.filter(|s| !s.is_object()) {
            return Err(r.bad("status", format!("expected an object, got {}", describe(other))));
        }
        let stget = |k: &str| status.and_then(|s| get(s, k));
        if let Some(phase) = r.opt_str(stget("phase"), "status.phase")?.filter(|s| !s.is_empty()) {
            pod.phase = Some(PodPhase::parse(&phase).ok_or_else(|| {
                r.bad(
                    "status.phase",
                    format!("{phase:?} is not a pod phase (expected Pending, Running, Succeeded, Failed or Unknown)"),
                )
            })?);
        }
        rare.nominated_node_name =
            r.opt_str(stget("nominatedNodeName"), "status.nominatedNodeName")?.filter(|s| !s.is_empty());
        let status_qos = r.opt_str(stget("qosClass"), "status.qosClass")?;
        match status_qos.as_deref().and_then(QosClass::parse) {
            Some(q) => {
                pod.qos = q;
                pod.qos_from_status = true;
            }
            None => pod.qos_from_status = false,
        }
        (pod.start_time, pod.status) = read_status::read_status_info(&r, status)?;
        pod.rare = rare.into();
        pod.default_pod_level_requests();
        pod.fit_lists();
        pod.refresh_derived();
        Ok(pod)
    }
}

#[cfg(test)]
mod tests;
