//! The parts of a pod's spec that kube-scheduler's filters and scores read:
//! containers and their host ports, volumes, tolerations, label selectors,
//! node affinity and pod (anti-)affinity — as plain data, read from API JSON
//! by [`super::read`] and from JSON text by [`super::text`].

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::labels::LabelLookup;
use crate::model::node::{Taint, TaintEffect};
use crate::model::resources::ResourceList;

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
    pub fn matches(&self, labels: &(impl LabelLookup + ?Sized)) -> bool {
        for (k, v) in &self.match_labels {
            if labels.label(k) != Some(v.as_str()) {
                return false;
            }
        }
        self.match_expressions.iter().all(|r| {
            let value = labels.label(&r.key);
            match r.operator {
                SelectorOperator::In => !r.values.is_empty() && value.is_some_and(|v| r.values.iter().any(|x| x == v)),
                SelectorOperator::NotIn => {
                    !r.values.is_empty() && value.is_none_or(|v| !r.values.iter().any(|x| x == v))
                }
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

/// The empty affinity (what an unset [`crate::Sparse`] affinity reads as).
static EMPTY_AFFINITY: Affinity = Affinity {
    node_affinity: NodeAffinity { required: None, preferred: Vec::new() },
    pod_affinity: PodAffinityRules { required: Vec::new(), preferred: Vec::new() },
    pod_anti_affinity: PodAffinityRules { required: Vec::new(), preferred: Vec::new() },
};

impl crate::model::sparse::EmptyPart for Affinity {
    fn empty() -> &'static Affinity {
        &EMPTY_AFFINITY
    }
}
