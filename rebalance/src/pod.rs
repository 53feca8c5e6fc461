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

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::error::ModelError;
use crate::extract::{describe, get, get_path, Reader};
use crate::node::{Taint, TaintEffect};
use crate::qos::{compute_qos, QosClass};
use crate::resources::{ResourceList, CPU, MEMORY};

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

/// Which list a container comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ContainerKind {
    /// `spec.containers`.
    App,
    /// `spec.initContainers` running to completion before the app containers.
    Init,
    /// `spec.initContainers` with `restartPolicy: Always` (a sidecar that keeps running).
    Sidecar,
}

/// One container's resources (after the API server's defaulting: a resource
/// with a limit and no request gets request = limit, `SetDefaults_Pod`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContainerInfo {
    /// `name`.
    pub name: String,
    /// App, init or sidecar.
    pub kind: ContainerKind,
    /// `resources.requests`, defaulted from limits.
    pub requests: ResourceList,
    /// `resources.limits` as written.
    pub limits: ResourceList,
}

impl ContainerInfo {
    /// A container with the given requests and no limits.
    pub fn new(name: &str, kind: ContainerKind, requests: ResourceList) -> ContainerInfo {
        ContainerInfo { name: name.to_string(), kind, requests, limits: ResourceList::new() }
    }

    /// Resources this container requests without setting a limit for them.
    pub fn requests_without_limit(&self) -> Vec<&str> {
        self.requests.names().filter(|r| !self.limits.contains(r)).collect()
    }
}

/// A container port bound on the node (`hostPort` > 0).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct HostPort {
    /// The container that asks for it.
    pub container: String,
    /// `hostPort`.
    pub port: i32,
    /// `protocol`, defaulted to `TCP`.
    pub protocol: String,
    /// `hostIP`, defaulted to `0.0.0.0` (all addresses).
    pub host_ip: String,
}

/// What kind of volume a pod mounts, as far as eviction and scheduling care.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum VolumeSource {
    /// `hostPath` (local storage; descheduler's PodsWithLocalStorage).
    HostPath {
        /// `hostPath.path`.
        path: String,
    },
    /// `emptyDir` (local storage; descheduler's PodsWithLocalStorage).
    EmptyDir {
        /// `emptyDir.medium` (`Memory` for tmpfs), when set.
        medium: Option<String>,
    },
    /// `persistentVolumeClaim` (descheduler's PodsWithPVC).
    PersistentVolumeClaim {
        /// `persistentVolumeClaim.claimName`.
        claim_name: String,
    },
    /// `ephemeral` (a generic ephemeral volume backed by a per-pod PVC).
    Ephemeral,
    /// Any other source (`configMap`, `secret`, `projected`, `csi`, …), by its key.
    Other(String),
}

/// One `spec.volumes` entry, summarised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Volume {
    /// `name`.
    pub name: String,
    /// The source kind.
    pub source: VolumeSource,
}

/// The operator of a toleration.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum TolerationOperator {
    /// `Equal` (also the default when empty): key and value must match.
    Equal,
    /// `Exists`: any value (and, with an empty key, any taint).
    Exists,
    /// An operator this model does not know; tolerates nothing (upstream's default branch).
    Other(String),
}

/// One `spec.tolerations` entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Toleration {
    /// `key`; empty matches every key (only meaningful with `Exists`).
    pub key: String,
    /// `operator`.
    pub operator: TolerationOperator,
    /// `value`.
    pub value: String,
    /// `effect`; `None` matches every effect.
    pub effect: Option<TaintEffect>,
    /// `tolerationSeconds` (NoExecute only).
    pub toleration_seconds: Option<i64>,
}

impl Toleration {
    /// A toleration `key=value:effect` with operator Equal.
    pub fn equal(key: &str, value: &str, effect: Option<TaintEffect>) -> Toleration {
        Toleration {
            key: key.to_string(),
            operator: TolerationOperator::Equal,
            value: value.to_string(),
            effect,
            toleration_seconds: None,
        }
    }

    /// A toleration `key:effect` with operator Exists (empty key: everything).
    pub fn exists(key: &str, effect: Option<TaintEffect>) -> Toleration {
        Toleration {
            key: key.to_string(),
            operator: TolerationOperator::Exists,
            value: String::new(),
            effect,
            toleration_seconds: None,
        }
    }

    /// Whether this toleration tolerates `taint`.
    /// Source: k8s.io/api `Toleration.ToleratesTaint`.
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if let Some(effect) = &self.effect {
            if *effect != taint.effect {
                return false;
            }
        }
        if !self.key.is_empty() && self.key != taint.key {
            return false;
        }
        match &self.operator {
            TolerationOperator::Equal => self.value == taint.value,
            TolerationOperator::Exists => true,
            TolerationOperator::Other(_) => false,
        }
    }
}

/// Whether any of `tolerations` tolerates `taint`.
/// Source: kube `v1helper.TolerationsTolerateTaint`.
pub fn tolerations_tolerate(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| t.tolerates(taint))
}

/// An operator of a label selector or node selector requirement.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum SelectorOperator {
    /// The label is present and its value is one of the values.
    In,
    /// The label is absent or its value is none of the values.
    NotIn,
    /// The label is present.
    Exists,
    /// The label is absent.
    DoesNotExist,
    /// (node selectors only) the label's integer value is greater than the single value.
    Gt,
    /// (node selectors only) the label's integer value is less than the single value.
    Lt,
    /// Anything else; makes the requirement invalid (it matches nothing).
    Other(String),
}

impl SelectorOperator {
    /// Parses the API spelling.
    pub fn parse(s: &str) -> SelectorOperator {
        match s {
            "In" => SelectorOperator::In,
            "NotIn" => SelectorOperator::NotIn,
            "Exists" => SelectorOperator::Exists,
            "DoesNotExist" => SelectorOperator::DoesNotExist,
            "Gt" => SelectorOperator::Gt,
            "Lt" => SelectorOperator::Lt,
            other => SelectorOperator::Other(other.to_string()),
        }
    }
}

/// One requirement `key operator values` (label selectors, node selector terms).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Requirement {
    /// The label key (or, in `matchFields`, the field: only `metadata.name` is valid).
    pub key: String,
    /// The operator.
    pub operator: SelectorOperator,
    /// The values.
    pub values: Vec<String>,
}

/// A `metav1.LabelSelector`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct LabelSelector {
    /// `matchLabels`: every key must have exactly this value.
    pub match_labels: BTreeMap<String, String>,
    /// `matchExpressions` (In, NotIn, Exists, DoesNotExist), ANDed.
    pub match_expressions: Vec<Requirement>,
}

impl LabelSelector {
    /// A selector from `matchLabels` pairs.
    pub fn from_labels(pairs: &[(&str, &str)]) -> LabelSelector {
        LabelSelector {
            match_labels: pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            match_expressions: Vec::new(),
        }
    }

    /// True for the empty selector `{}`, which matches everything.
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }

    /// Whether `labels` satisfy the selector. An invalid selector (an unknown
    /// operator, In/NotIn without values, Exists/DoesNotExist with values)
    /// matches nothing, as `metav1.LabelSelectorAsSelector` fails on it.
    /// Source: apimachinery `metav1.LabelSelectorAsSelector` + `labels.Selector.Matches`.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        for (k, v) in &self.match_labels {
            if labels.get(k) != Some(v) {
                return false;
            }
        }
        self.match_expressions.iter().all(|r| {
            let value = labels.get(&r.key);
            match r.operator {
                SelectorOperator::In => !r.values.is_empty() && value.is_some_and(|v| r.values.contains(v)),
                SelectorOperator::NotIn => !r.values.is_empty() && value.is_none_or(|v| !r.values.contains(v)),
                SelectorOperator::Exists => r.values.is_empty() && value.is_some(),
                SelectorOperator::DoesNotExist => r.values.is_empty() && value.is_none(),
                SelectorOperator::Gt | SelectorOperator::Lt | SelectorOperator::Other(_) => false,
            }
        })
    }
}

/// A node selector term: `matchExpressions` on node labels and `matchFields`
/// on node fields, ANDed. A term with neither matches no node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct NodeSelectorTerm {
    /// `matchExpressions` on node labels.
    pub match_expressions: Vec<Requirement>,
    /// `matchFields` (only `metadata.name` with In/NotIn and one value is valid).
    pub match_fields: Vec<Requirement>,
}

/// A `preferredDuringSchedulingIgnoredDuringExecution` node affinity term.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct PreferredNodeTerm {
    /// `weight` (1–100).
    pub weight: i32,
    /// `preference`.
    pub preference: NodeSelectorTerm,
}

/// `spec.affinity.nodeAffinity`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct NodeAffinity {
    /// `requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`
    /// (ORed); `None` when there is no required node affinity.
    pub required: Option<Vec<NodeSelectorTerm>>,
    /// `preferredDuringSchedulingIgnoredDuringExecution`.
    pub preferred: Vec<PreferredNodeTerm>,
}

/// A pod (anti-)affinity term.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct PodAffinityTerm {
    /// `labelSelector`; `None` matches no pod.
    pub label_selector: Option<LabelSelector>,
    /// `namespaces`; when empty and `namespace_selector` is `None`, the term
    /// applies to the namespace of the pod that carries it.
    pub namespaces: Vec<String>,
    /// `namespaceSelector`; `Some(empty)` selects every namespace.
    pub namespace_selector: Option<LabelSelector>,
    /// `topologyKey`, e.g. `kubernetes.io/hostname`, `topology.kubernetes.io/zone`.
    pub topology_key: String,
}

/// A weighted (preferred) pod (anti-)affinity term.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct WeightedPodAffinityTerm {
    /// `weight` (1–100).
    pub weight: i32,
    /// `podAffinityTerm`.
    pub term: PodAffinityTerm,
}

/// `spec.affinity.podAffinity` or `spec.affinity.podAntiAffinity`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct PodAffinityRules {
    /// `requiredDuringSchedulingIgnoredDuringExecution` (ANDed).
    pub required: Vec<PodAffinityTerm>,
    /// `preferredDuringSchedulingIgnoredDuringExecution`.
    pub preferred: Vec<WeightedPodAffinityTerm>,
}

impl PodAffinityRules {
    /// True when neither required nor preferred terms exist.
    pub fn is_empty(&self) -> bool {
        self.required.is_empty() && self.preferred.is_empty()
    }
}

/// `spec.affinity`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Affinity {
    /// Node affinity.
    pub node_affinity: NodeAffinity,
    /// Pod affinity.
    pub pod_affinity: PodAffinityRules,
    /// Pod anti-affinity.
    pub pod_anti_affinity: PodAffinityRules,
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
    /// `status.nominatedNodeName` (set by preemption).
    pub nominated_node_name: Option<String>,
    /// `spec.schedulerName`.
    pub scheduler_name: Option<String>,
    /// `status.phase`.
    pub phase: Option<PodPhase>,
    /// `metadata.labels`.
    pub labels: BTreeMap<String, String>,
    /// `metadata.annotations`.
    pub annotations: BTreeMap<String, String>,
    /// `metadata.ownerReferences`; see [`PodInfo::controller`].
    pub owners: Vec<OwnerRef>,
    /// `spec.priority`.
    pub priority: Option<i32>,
    /// `spec.priorityClassName`.
    pub priority_class_name: Option<String>,
    /// `spec.containers`.
    pub containers: Vec<ContainerInfo>,
    /// `spec.initContainers` in order (init containers and sidecars).
    pub init_containers: Vec<ContainerInfo>,
    /// Pod-level `spec.resources.requests` (cpu/memory; defaulted from
    /// pod-level limits when no container requests that resource).
    pub pod_level_requests: ResourceList,
    /// Pod-level `spec.resources.limits`.
    pub pod_level_limits: ResourceList,
    /// `spec.overhead`.
    pub overhead: ResourceList,
    /// The effective requests used for filtering and node usage (see the
    /// module docs; [`PodInfo::compute_requests`]).
    pub requests: ResourceList,
    /// The requests with the scheduler's non-zero defaults (100m cpu / 200 MiB
    /// memory per container that does not set them), for scoring only.
    pub non_zero_requests: ResourceList,
    /// The QoS class: `status.qosClass` when present (fixed by the API server
    /// at creation), otherwise computed by [`compute_qos`].
    pub qos: QosClass,
    /// True when [`PodInfo::qos`] came from `status.qosClass`.
    pub qos_from_status: bool,
    /// `spec.nodeSelector`.
    pub node_selector: BTreeMap<String, String>,
    /// `spec.affinity`.
    pub affinity: Affinity,
    /// `spec.tolerations`.
    pub tolerations: Vec<Toleration>,
    /// Host ports of app containers and sidecars (`GetHostPorts`).
    pub host_ports: Vec<HostPort>,
    /// `spec.volumes`, summarised.
    pub volumes: Vec<Volume>,
    /// `metadata.creationTimestamp`.
    pub creation_timestamp: Option<DateTime<Utc>>,
    /// `metadata.deletionTimestamp` (terminating).
    pub deletion_timestamp: Option<DateTime<Utc>>,
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
            nominated_node_name: None,
            scheduler_name: None,
            phase: Some(PodPhase::Pending),
            labels: BTreeMap::new(),
            annotations: BTreeMap::new(),
            owners: Vec::new(),
            priority: None,
            priority_class_name: None,
            containers: Vec::new(),
            init_containers: Vec::new(),
            pod_level_requests: ResourceList::new(),
            pod_level_limits: ResourceList::new(),
            overhead: ResourceList::new(),
            requests: ResourceList::new(),
            non_zero_requests: ResourceList::new(),
            qos: QosClass::BestEffort,
            qos_from_status: false,
            node_selector: BTreeMap::new(),
            affinity: Affinity::default(),
            tolerations: Vec::new(),
            host_ports: Vec::new(),
            volumes: Vec::new(),
            creation_timestamp: None,
            deletion_timestamp: None,
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
        self.deletion_timestamp.is_some()
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
        self.init_containers
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
        p.nominated_node_name = None;
        p.phase = Some(PodPhase::Pending);
        p
    }

    /// The effective requests, optionally with per-container defaults for
    /// resources a container does not list (`non_missing`, e.g.
    /// [`NON_ZERO_DEFAULTS`] for scoring).
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
        for c in &self.init_containers {
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
            if let Some(v) = self.pod_level_requests.get_opt(r) {
                reqs.set(r, v);
            }
        }
        reqs.add(&self.overhead);
        reqs
    }

    /// The QoS class computed from the spec (ignoring `status.qosClass`).
    pub fn computed_qos(&self) -> QosClass {
        let pod_level = if self.pod_level_requests.is_empty() && self.pod_level_limits.is_empty() {
            None
        } else {
            Some((&self.pod_level_requests, &self.pod_level_limits))
        };
        compute_qos(
            self.containers.iter().chain(self.init_containers.iter()).map(|c| (&c.requests, &c.limits)),
            pod_level,
        )
    }

    /// Pod-level defaulting (`defaultPodRequests`): a pod-level limit without a
    /// pod-level request becomes the request when no container requests that
    /// resource. Needs the containers and the pod-level lists read.
    pub(crate) fn default_pod_level_requests(&mut self) {
        for res in POD_LEVEL_RESOURCES {
            if let Some(limit) = self.pod_level_limits.get_opt(res) {
                let any_container =
                    self.containers.iter().chain(self.init_containers.iter()).any(|c| c.requests.contains(res));
                if !self.pod_level_requests.contains(res) && !any_container {
                    self.pod_level_requests.set(res, limit);
                }
            }
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

        pod.uid = r.opt_str(mget("uid"), "metadata.uid")?.filter(|s| !s.is_empty());
        pod.resource_version =
            r.opt_str(mget("resourceVersion"), "metadata.resourceVersion")?.filter(|s| !s.is_empty());
        pod.labels = r.string_map(mget("labels"), "metadata.labels")?;
        pod.annotations = r.string_map(mget("annotations"), "metadata.annotations")?;
        pod.creation_timestamp = r.opt_time(mget("creationTimestamp"), "metadata.creationTimestamp")?;
        pod.deletion_timestamp = r.opt_time(mget("deletionTimestamp"), "metadata.deletionTimestamp")?;
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
        let sget = |k: &str| spec.and_then(|s| get(s, k));
        pod.node_name = r.opt_str(sget("nodeName"), "spec.nodeName")?.filter(|s| !s.is_empty());
        pod.scheduler_name = r.opt_str(sget("schedulerName"), "spec.schedulerName")?.filter(|s| !s.is_empty());
        pod.priority = r.opt_i32(sget("priority"), "spec.priority")?;
        pod.priority_class_name =
            r.opt_str(sget("priorityClassName"), "spec.priorityClassName")?.filter(|s| !s.is_empty());

        for (i, c) in r.array(sget("containers"), "spec.containers")?.iter().enumerate() {
            let (info, ports) = read_container(&r, c, &format!("spec.containers[{i}]"), false)?;
            pod.host_ports.extend(ports);
            pod.containers.push(info);
        }
        let mut sidecar_ports = Vec::new();
        for (i, c) in r.array(sget("initContainers"), "spec.initContainers")?.iter().enumerate() {
            let (info, ports) = read_container(&r, c, &format!("spec.initContainers[{i}]"), true)?;
            // Only sidecars hold their host ports for the pod's lifetime (`GetHostPorts`).
            if info.kind == ContainerKind::Sidecar {
                sidecar_ports.extend(ports);
            }
            pod.init_containers.push(info);
        }
        sidecar_ports.append(&mut pod.host_ports);
        pod.host_ports = sidecar_ports;

        pod.pod_level_requests =
            r.resource_list(get_path(v, &["spec", "resources", "requests"]), "spec.resources.requests")?;
        pod.pod_level_limits =
            r.resource_list(get_path(v, &["spec", "resources", "limits"]), "spec.resources.limits")?;
        pod.default_pod_level_requests();
        pod.overhead = r.resource_list(sget("overhead"), "spec.overhead")?;
        pod.node_selector = r.string_map(sget("nodeSelector"), "spec.nodeSelector")?;
        pod.affinity = read_affinity(&r, sget("affinity"))?;
        pod.tolerations = read_tolerations(&r, sget("tolerations"))?;
        pod.volumes = read_volumes(&r, sget("volumes"))?;

        let status = get(v, "status");
        let stget = |k: &str| status.and_then(|s| get(s, k));
        if let Some(phase) = r.opt_str(stget("phase"), "status.phase")?.filter(|s| !s.is_empty()) {
            pod.phase = Some(PodPhase::parse(&phase).ok_or_else(|| {
                r.bad(
                    "status.phase",
                    format!("{phase:?} is not a pod phase (expected Pending, Running, Succeeded, Failed or Unknown)"),
                )
            })?);
        }
        pod.nominated_node_name =
            r.opt_str(stget("nominatedNodeName"), "status.nominatedNodeName")?.filter(|s| !s.is_empty());
        let status_qos = r.opt_str(stget("qosClass"), "status.qosClass")?;
        match status_qos.as_deref().and_then(QosClass::parse) {
            Some(q) => {
                pod.qos = q;
                pod.qos_from_status = true;
            }
            None => pod.qos_from_status = false,
        }
        pod.refresh_derived();
        Ok(pod)
    }
}

/// Reads one container; returns it and its host ports.
fn read_container(r: &Reader, c: &Value, path: &str, init: bool) -> Result<(ContainerInfo, Vec<HostPort>), ModelError> {
    if !c.is_object() {
        return Err(r.bad(path, format!("expected an object, got {}", describe(c))));
    }
    let name = r.opt_str(get(c, "name"), &format!("{path}.name"))?.unwrap_or_default();
    let restart = r.opt_str(get(c, "restartPolicy"), &format!("{path}.restartPolicy"))?;
    let requests = r.resource_list(get_path(c, &["resources", "requests"]), &format!("{path}.resources.requests"))?;
    let limits = r.resource_list(get_path(c, &["resources", "limits"]), &format!("{path}.resources.limits"))?;
    let info = container_info(name, restart.as_deref(), init, requests, limits);
    let name = &info.name;
    let mut ports = Vec::new();
    for (i, p) in r.array(get(c, "ports"), &format!("{path}.ports"))?.iter().enumerate() {
        let pp = format!("{path}.ports[{i}]");
        let host_port = r.opt_i32(get(p, "hostPort"), &format!("{pp}.hostPort"))?.unwrap_or(0);
        if host_port <= 0 {
            continue;
        }
        let protocol = r
            .opt_str(get(p, "protocol"), &format!("{pp}.protocol"))?
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "TCP".to_string());
        let host_ip = r
            .opt_str(get(p, "hostIP"), &format!("{pp}.hostIP"))?
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "0.0.0.0".to_string());
        ports.push(HostPort { container: name.clone(), port: host_port, protocol, host_ip });
    }
    Ok((info, ports))
}

/// A container from its fields as read: its kind (an init container with
/// `restartPolicy: Always` is a sidecar) and the API server's defaulting
/// (`SetDefaults_Pod`: a limit without a request is also the request).
pub(crate) fn container_info(
    name: String,
    restart: Option<&str>,
    init: bool,
    mut requests: ResourceList,
    limits: ResourceList,
) -> ContainerInfo {
    let kind = if !init {
        ContainerKind::App
    } else if restart == Some("Always") {
        ContainerKind::Sidecar
    } else {
        ContainerKind::Init
    };
    for (k, v) in limits.iter() {
        if !requests.contains(k) {
            requests.set(k, v);
        }
    }
    ContainerInfo { name, kind, requests, limits }
}

fn read_tolerations(r: &Reader, v: Option<&Value>) -> Result<Vec<Toleration>, ModelError> {
    let mut out = Vec::new();
    for (i, t) in r.array(v, "spec.tolerations")?.iter().enumerate() {
        let p = format!("spec.tolerations[{i}]");
        let operator = match r.opt_str(get(t, "operator"), &format!("{p}.operator"))?.as_deref() {
            None | Some("") | Some("Equal") => TolerationOperator::Equal,
            Some("Exists") => TolerationOperator::Exists,
            Some(other) => TolerationOperator::Other(other.to_string()),
        };
        let effect = r
            .opt_str(get(t, "effect"), &format!("{p}.effect"))?
            .filter(|s| !s.is_empty())
            .map(|s| TaintEffect::parse(&s));
        out.push(Toleration {
            key: r.opt_str(get(t, "key"), &format!("{p}.key"))?.unwrap_or_default(),
            operator,
            value: r.opt_str(get(t, "value"), &format!("{p}.value"))?.unwrap_or_default(),
            effect,
            toleration_seconds: r.opt_i64(get(t, "tolerationSeconds"), &format!("{p}.tolerationSeconds"))?,
        });
    }
    Ok(out)
}

fn read_volumes(r: &Reader, v: Option<&Value>) -> Result<Vec<Volume>, ModelError> {
    let mut out = Vec::new();
    for (i, vol) in r.array(v, "spec.volumes")?.iter().enumerate() {
        let p = format!("spec.volumes[{i}]");
        let name = r.opt_str(get(vol, "name"), &format!("{p}.name"))?.unwrap_or_default();
        let source = if let Some(hp) = get(vol, "hostPath") {
            VolumeSource::HostPath {
                path: r.opt_str(get(hp, "path"), &format!("{p}.hostPath.path"))?.unwrap_or_default(),
            }
        } else if let Some(ed) = get(vol, "emptyDir") {
            VolumeSource::EmptyDir {
                medium: r.opt_str(get(ed, "medium"), &format!("{p}.emptyDir.medium"))?.filter(|s| !s.is_empty()),
            }
        } else if let Some(pvc) = get(vol, "persistentVolumeClaim") {
            VolumeSource::PersistentVolumeClaim {
                claim_name: r
                    .opt_str(get(pvc, "claimName"), &format!("{p}.persistentVolumeClaim.claimName"))?
                    .unwrap_or_default(),
            }
        } else if get(vol, "ephemeral").is_some() {
            VolumeSource::Ephemeral
        } else {
            let kind = vol
                .as_object()
                .and_then(|m| m.iter().find(|(k, v)| k.as_str() != "name" && !v.is_null()).map(|(k, _)| k.clone()))
                .unwrap_or_default();
            VolumeSource::Other(kind)
        };
        out.push(Volume { name, source });
    }
    Ok(out)
}

fn read_requirements(r: &Reader, v: Option<&Value>, path: &str) -> Result<Vec<Requirement>, ModelError> {
    let mut out = Vec::new();
    for (i, e) in r.array(v, path)?.iter().enumerate() {
        let p = format!("{path}[{i}]");
        out.push(Requirement {
            key: r.opt_str(get(e, "key"), &format!("{p}.key"))?.unwrap_or_default(),
            operator: SelectorOperator::parse(
                &r.opt_str(get(e, "operator"), &format!("{p}.operator"))?.unwrap_or_default(),
            ),
            values: r.str_list(get(e, "values"), &format!("{p}.values"))?,
        });
    }
    Ok(out)
}

pub(crate) fn read_label_selector(
    r: &Reader,
    v: Option<&Value>,
    path: &str,
) -> Result<Option<LabelSelector>, ModelError> {
    let Some(v) = v else { return Ok(None) };
    if !v.is_object() {
        return Err(r.bad(path, format!("expected an object, got {}", describe(v))));
    }
    Ok(Some(LabelSelector {
        match_labels: r.string_map(get(v, "matchLabels"), &format!("{path}.matchLabels"))?,
        match_expressions: read_requirements(r, get(v, "matchExpressions"), &format!("{path}.matchExpressions"))?,
    }))
}

fn read_node_term(r: &Reader, v: &Value, path: &str) -> Result<NodeSelectorTerm, ModelError> {
    Ok(NodeSelectorTerm {
        match_expressions: read_requirements(r, get(v, "matchExpressions"), &format!("{path}.matchExpressions"))?,
        match_fields: read_requirements(r, get(v, "matchFields"), &format!("{path}.matchFields"))?,
    })
}

fn read_pod_term(r: &Reader, v: &Value, path: &str) -> Result<PodAffinityTerm, ModelError> {
    Ok(PodAffinityTerm {
        label_selector: read_label_selector(r, get(v, "labelSelector"), &format!("{path}.labelSelector"))?,
        namespaces: r.str_list(get(v, "namespaces"), &format!("{path}.namespaces"))?,
        namespace_selector: read_label_selector(r, get(v, "namespaceSelector"), &format!("{path}.namespaceSelector"))?,
        topology_key: r.opt_str(get(v, "topologyKey"), &format!("{path}.topologyKey"))?.unwrap_or_default(),
    })
}

fn read_pod_rules(r: &Reader, v: Option<&Value>, path: &str) -> Result<PodAffinityRules, ModelError> {
    let mut rules = PodAffinityRules::default();
    let Some(v) = v else { return Ok(rules) };
    let req_path = format!("{path}.requiredDuringSchedulingIgnoredDuringExecution");
    for (i, t) in r.array(get(v, "requiredDuringSchedulingIgnoredDuringExecution"), &req_path)?.iter().enumerate() {
        rules.required.push(read_pod_term(r, t, &format!("{req_path}[{i}]"))?);
    }
    let pref_path = format!("{path}.preferredDuringSchedulingIgnoredDuringExecution");
    for (i, t) in r.array(get(v, "preferredDuringSchedulingIgnoredDuringExecution"), &pref_path)?.iter().enumerate() {
        let p = format!("{pref_path}[{i}]");
        let weight = r.opt_i32(get(t, "weight"), &format!("{p}.weight"))?.unwrap_or(0);
        let term = match get(t, "podAffinityTerm") {
            Some(pt) => read_pod_term(r, pt, &format!("{p}.podAffinityTerm"))?,
            None => PodAffinityTerm::default(),
        };
        rules.preferred.push(WeightedPodAffinityTerm { weight, term });
    }
    Ok(rules)
}

pub(crate) fn read_affinity(r: &Reader, v: Option<&Value>) -> Result<Affinity, ModelError> {
    let mut a = Affinity::default();
    let Some(v) = v else { return Ok(a) };
    if let Some(na) = get(v, "nodeAffinity") {
        let base = "spec.affinity.nodeAffinity";
        if let Some(req) = get(na, "requiredDuringSchedulingIgnoredDuringExecution") {
            let tp = format!("{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
            let mut terms = Vec::new();
            for (i, t) in r.array(get(req, "nodeSelectorTerms"), &tp)?.iter().enumerate() {
                terms.push(read_node_term(r, t, &format!("{tp}[{i}]"))?);
            }
            a.node_affinity.required = Some(terms);
        }
        let pp = format!("{base}.preferredDuringSchedulingIgnoredDuringExecution");
        for (i, t) in r.array(get(na, "preferredDuringSchedulingIgnoredDuringExecution"), &pp)?.iter().enumerate() {
            let p = format!("{pp}[{i}]");
            let weight = r.opt_i32(get(t, "weight"), &format!("{p}.weight"))?.unwrap_or(0);
            let preference = match get(t, "preference") {
                Some(pref) => read_node_term(r, pref, &format!("{p}.preference"))?,
                None => NodeSelectorTerm::default(),
            };
            a.node_affinity.preferred.push(PreferredNodeTerm { weight, preference });
        }
    }
    a.pod_affinity = read_pod_rules(r, get(v, "podAffinity"), "spec.affinity.podAffinity")?;
    a.pod_anti_affinity = read_pod_rules(r, get(v, "podAntiAffinity"), "spec.affinity.podAntiAffinity")?;
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(spec: Value) -> PodInfo {
        PodInfo::from_json(&json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": spec})).expect("valid pod")
    }

    const MI: i64 = 1024 * 1024;

    #[test]
    fn app_containers_add_up() {
        let p = pod(json!({"containers": [
            {"name": "a", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}},
            {"name": "b", "resources": {"requests": {"cpu": "250m", "nvidia.com/gpu": "1"}}}
        ]}));
        assert_eq!(p.requests, ResourceList::from_pairs(&[("cpu", 350), ("memory", 64 * MI), ("nvidia.com/gpu", 1)]));
        assert_eq!(p.qos, QosClass::Burstable);
    }

    #[test]
    fn init_container_bigger_than_app_containers_wins() {
        let p = pod(json!({
            "initContainers": [
                {"name": "migrate", "resources": {"requests": {"cpu": "2", "memory": "32Mi"}}},
                {"name": "warm", "resources": {"requests": {"memory": "1Gi"}}}
            ],
            "containers": [{"name": "app", "resources": {"requests": {"cpu": "500m", "memory": "256Mi"}}}]
        }));
        // cpu: max(500, 2000) = 2000; memory: max(256Mi, 32Mi, 1Gi) = 1Gi.
        assert_eq!(p.requests, ResourceList::from_pairs(&[("cpu", 2000), ("memory", 1024 * MI)]));
    }

    #[test]
    fn sidecars_add_to_app_containers_and_to_later_init_containers() {
        let p = pod(json!({
            "initContainers": [
                {"name": "early-init", "resources": {"requests": {"cpu": "900m"}}},
                {"name": "mesh", "restartPolicy": "Always", "resources": {"requests": {"cpu": "200m", "memory": "100Mi"}}},
                {"name": "late-init", "resources": {"requests": {"cpu": "800m"}}}
            ],
            "containers": [{"name": "app", "resources": {"requests": {"cpu": "300m", "memory": "50Mi"}}}]
        }));
        // app + sidecar = 500m; early-init alone = 900m; late-init + sidecar = 1000m.
        assert_eq!(p.requests.get("cpu"), 1000);
        // memory: app + sidecar = 150Mi (init containers ask for none).
        assert_eq!(p.requests.get("memory"), 150 * MI);
        assert_eq!(p.init_containers[1].kind, ContainerKind::Sidecar);
        assert_eq!(p.init_containers[0].kind, ContainerKind::Init);
    }

    #[test]
    fn overhead_is_added_and_pod_level_requests_override() {
        let p = pod(json!({
            "overhead": {"cpu": "250m", "memory": "120Mi"},
            "containers": [{"name": "app", "resources": {"requests": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"}}}]
        }));
        assert_eq!(
            p.requests,
            ResourceList::from_pairs(&[("cpu", 1250), ("memory", 1144 * MI), ("ephemeral-storage", 1024 * MI)])
        );

        let p = pod(json!({
            "resources": {"requests": {"cpu": "3"}, "limits": {"memory": "2Gi"}},
            "overhead": {"cpu": "100m"},
            "containers": [
                {"name": "a", "resources": {"requests": {"cpu": "1", "ephemeral-storage": "1Gi"}}},
                {"name": "b"}
            ]
        }));
        // Pod-level cpu replaces the 1 core; memory defaults from the pod-level limit
        // (no container requests memory); ephemeral-storage stays from containers.
        assert_eq!(
            p.requests,
            ResourceList::from_pairs(&[("cpu", 3100), ("memory", 2048 * MI), ("ephemeral-storage", 1024 * MI)])
        );
    }

    #[test]
    fn best_effort_and_non_zero_defaults() {
        let p = pod(json!({"containers": [{"name": "a"}, {"name": "b", "resources": {"requests": {"cpu": "0"}}}]}));
        assert!(p.requests.is_all_zero());
        assert_eq!(p.qos, QosClass::BestEffort);
        // b lists cpu (as 0), so only a gets the cpu default; both get the memory default.
        assert_eq!(p.non_zero_requests.get("cpu"), 100);
        assert_eq!(p.non_zero_requests.get("memory"), 400 * MI);
    }

    #[test]
    fn qos_classes() {
        let guaranteed = pod(json!({"containers": [
            {"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
            {"name": "b", "resources": {"requests": {"cpu": "200m", "memory": "64Mi"}, "limits": {"cpu": "200m", "memory": "64Mi"}}}
        ]}));
        assert_eq!(guaranteed.qos, QosClass::Guaranteed);
        assert!(!guaranteed.qos_from_status);
        // Limits default the requests.
        assert_eq!(guaranteed.requests.get("cpu"), 1200);
        let burstable = pod(json!({"containers": [
            {"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}
        ]}));
        assert_eq!(burstable.qos, QosClass::Burstable);
        let from_status = PodInfo::from_json(&json!({
            "metadata": {"name": "s"}, "spec": {"containers": [{"name": "a"}]}, "status": {"qosClass": "Burstable"}
        }))
        .expect("valid");
        assert_eq!(from_status.qos, QosClass::Burstable);
        assert!(from_status.qos_from_status);
        assert_eq!(from_status.computed_qos(), QosClass::BestEffort);
        assert_eq!(from_status.namespace, "default");
    }

    #[test]
    fn requests_without_limits_are_reported() {
        let p = pod(json!({"containers": [
            {"name": "a", "resources": {"requests": {"cpu": "100m", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}}
        ]}));
        assert_eq!(p.requests_without_limits(), vec![("a", "cpu")]);
    }

    #[test]
    fn reads_everything_else() {
        let p = PodInfo::from_json(&json!({
            "metadata": {
                "name": "web-0", "namespace": "prod", "uid": "u-1",
                "labels": {"app": "web"}, "annotations": {"kubernetes.io/config.source": "api"},
                "creationTimestamp": "2024-05-01T12:00:00Z", "deletionTimestamp": null,
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "s-1", "controller": true}]
            },
            "spec": {
                "nodeName": "node-2", "priority": 1000, "priorityClassName": "high",
                "nodeSelector": {"disk": "ssd"},
                "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}, {"operator": "Exists"}],
                "affinity": {
                    "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}
                    ]}, "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "preference": {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-3"]}]}}]},
                    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
                    ], "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, "namespaces": ["other"], "topologyKey": "zone"}}
                    ]}
                },
                "containers": [{"name": "web", "ports": [{"containerPort": 80, "hostPort": 8080}, {"containerPort": 9090}]}],
                "initContainers": [{"name": "proxy", "restartPolicy": "Always", "ports": [{"containerPort": 53, "hostPort": 53, "protocol": "UDP", "hostIP": "10.0.0.1"}]},
                                   {"name": "setup", "ports": [{"containerPort": 1, "hostPort": 1}]}],
                "volumes": [
                    {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}},
                    {"name": "tmp", "emptyDir": {}},
                    {"name": "cfg", "configMap": {"name": "web"}}
                ]
            },
            "status": {"phase": "Running"}
        }))
        .expect("valid pod");
        assert_eq!(p.key(), "prod/web-0");
        assert_eq!(p.uid.as_deref(), Some("u-1"));
        assert_eq!(p.node_name.as_deref(), Some("node-2"));
        assert_eq!(p.phase, Some(PodPhase::Running));
        assert!(p.counts_toward_usage());
        assert_eq!(p.priority, Some(1000));
        assert_eq!(p.priority_class_name.as_deref(), Some("high"));
        assert_eq!(p.controller().map(|o| o.kind.as_str()), Some("StatefulSet"));
        assert!(!p.is_static() && !p.is_mirror() && !p.is_daemonset_pod());
        assert_eq!(p.creation_timestamp.map(|t| t.timestamp()), Some(1_714_564_800));
        assert_eq!(p.deletion_timestamp, None);
        assert_eq!(p.tolerations.len(), 2);
        assert_eq!(p.tolerations[1], Toleration::exists("", None));
        assert_eq!(p.node_selector.get("disk").map(String::as_str), Some("ssd"));
        let required = p.affinity.node_affinity.required.as_ref().expect("required terms");
        assert_eq!(required[0].match_expressions[0].operator, SelectorOperator::In);
        assert_eq!(p.affinity.node_affinity.preferred[0].weight, 5);
        assert_eq!(p.affinity.node_affinity.preferred[0].preference.match_fields[0].key, "metadata.name");
        assert_eq!(p.affinity.pod_anti_affinity.required[0].topology_key, "kubernetes.io/hostname");
        assert_eq!(p.affinity.pod_anti_affinity.preferred[0].term.namespaces, vec!["other".to_string()]);
        assert!(p.affinity.pod_affinity.is_empty());
        assert_eq!(
            p.host_ports,
            vec![
                HostPort { container: "proxy".into(), port: 53, protocol: "UDP".into(), host_ip: "10.0.0.1".into() },
                HostPort { container: "web".into(), port: 8080, protocol: "TCP".into(), host_ip: "0.0.0.0".into() },
            ]
        );
        assert!(p.has_local_storage());
        assert_eq!(p.pvc_names(), vec!["data-web-0"]);
        assert_eq!(p.volumes[2].source, VolumeSource::Other("configMap".into()));
    }

    #[test]
    fn tolerant_of_nulls_and_missing_sections() {
        let p = PodInfo::from_json(&json!({
            "metadata": {"name": "x", "namespace": "default", "labels": null, "ownerReferences": null},
            "spec": {"containers": [{"name": "a", "resources": {"requests": null, "limits": {"cpu": null}}}], "nodeName": ""},
            "status": {}
        }))
        .expect("valid pod");
        assert!(p.requests.is_empty());
        assert_eq!(p.node_name, None);
        assert_eq!(p.phase, None);
        assert!(!p.counts_toward_usage());
        let bare = PodInfo::from_json(&json!({"metadata": {"name": "bare"}})).expect("valid pod");
        assert!(bare.containers.is_empty());
        assert_eq!(bare.qos, QosClass::BestEffort);
    }

    #[test]
    fn errors_name_the_pod_and_the_field() {
        let err = PodInfo::from_json(&json!({
            "metadata": {"name": "x", "namespace": "default"},
            "spec": {"containers": [{"name": "a"}, {"name": "b", "resources": {"requests": {"cpu": "abc"}}}]}
        }))
        .expect_err("bad cpu");
        assert!(
            err.to_string()
                .starts_with("pod default/x: spec.containers[1].resources.requests.cpu: \"abc\" is not a quantity"),
            "{err}"
        );
        let err = PodInfo::from_json(&json!({
            "metadata": {"name": "x", "namespace": "default"},
            "spec": {"containers": [{"name": "a", "resources": {"limits": {"memory": "-1"}}}]}
        }))
        .expect_err("negative");
        assert_eq!(
            err.to_string(),
            "pod default/x: spec.containers[0].resources.limits.memory: \"-1\" is out of range: a resource amount cannot be negative"
        );
        let err = PodInfo::from_json(&json!({"metadata": {"name": "x", "creationTimestamp": "yesterday"}}))
            .expect_err("bad time");
        assert_eq!(
            err.to_string(),
            "pod default/x: metadata.creationTimestamp: \"yesterday\" is not an RFC 3339 timestamp (expected e.g. 2024-05-01T12:00:00Z)"
        );
        let err = PodInfo::from_json(&json!({"metadata": {"name": "x"}, "spec": {"priority": "high"}}))
            .expect_err("bad priority");
        assert_eq!(err.to_string(), "pod default/x: spec.priority: expected an integer, got string \"high\"");
        let err = PodInfo::from_json(&json!({"metadata": {"namespace": "kube-system"}})).expect_err("no name");
        assert_eq!(err.to_string(), "pod kube-system/?: metadata.name is missing");
        let err = PodInfo::from_json(&json!({"metadata": {"name": "x"}, "status": {"phase": "Sleeping"}}))
            .expect_err("bad phase");
        assert_eq!(
            err.to_string(),
            "pod default/x: status.phase: \"Sleeping\" is not a pod phase (expected Pending, Running, Succeeded, Failed or Unknown)"
        );
    }

    #[test]
    fn toleration_matching() {
        let t = Taint::new("node.kubernetes.io/unschedulable", "", TaintEffect::NoSchedule);
        assert!(Toleration::exists("node.kubernetes.io/unschedulable", Some(TaintEffect::NoSchedule)).tolerates(&t));
        assert!(Toleration::exists("", None).tolerates(&t));
        assert!(Toleration::equal("node.kubernetes.io/unschedulable", "", None).tolerates(&t));
        assert!(!Toleration::equal("node.kubernetes.io/unschedulable", "x", None).tolerates(&t));
        assert!(!Toleration::exists("node.kubernetes.io/unschedulable", Some(TaintEffect::NoExecute)).tolerates(&t));
        assert!(!Toleration::exists("other", None).tolerates(&t));
        let weird = Toleration { operator: TolerationOperator::Other("Gt".into()), ..Toleration::exists("", None) };
        assert!(!weird.tolerates(&t));
    }

    #[test]
    fn label_selector_matching() {
        let labels: BTreeMap<String, String> = [("app".to_string(), "plex".to_string())].into_iter().collect();
        assert!(LabelSelector::default().matches(&labels));
        assert!(LabelSelector::from_labels(&[("app", "plex")]).matches(&labels));
        assert!(!LabelSelector::from_labels(&[("app", "web")]).matches(&labels));
        let expr = |op: &str, values: &[&str]| LabelSelector {
            match_labels: BTreeMap::new(),
            match_expressions: vec![Requirement {
                key: "tier".into(),
                operator: SelectorOperator::parse(op),
                values: values.iter().map(|s| s.to_string()).collect(),
            }],
        };
        assert!(expr("NotIn", &["db"]).matches(&labels)); // absent key matches NotIn
        assert!(expr("DoesNotExist", &[]).matches(&labels));
        assert!(!expr("Exists", &[]).matches(&labels));
        assert!(!expr("In", &["db"]).matches(&labels));
        assert!(!expr("In", &[]).matches(&labels)); // invalid: In without values
        assert!(!expr("Gt", &["1"]).matches(&labels)); // invalid for label selectors
    }
}
