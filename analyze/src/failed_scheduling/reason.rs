//! One scheduling reason: what a node (or the whole pod) failed on.
//!
//! [`Reason`] groups the wordings of one check across Kubernetes versions
//! (`wording.rs` reads them); [`Reason::message`] gives today's wording back,
//! [`Reason::preemption_can_help`] the "hard" column of the project reference
//! (`shared/reference/kubernetes-events.md` §1, "Reason strings by plugin").

use std::fmt;

use serde::Serialize;

/// Why one node (or, for a PreFilter reason, the whole pod) was rejected.
///
/// Old and new wordings of one check map to the same variant, so reasons can be
/// grouped across Kubernetes versions; the text as written stays in
/// [`FailedScheduling::raw`](super::FailedScheduling::raw).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// NodeResourcesFit: `Insufficient <resource>` — the node's allocatable minus
    /// the requests of the pods on it is below the pod's request.
    Insufficient {
        /// Resource name as written: `cpu`, `memory`, `ephemeral-storage`, or an
        /// extended resource such as `nvidia.com/gpu` or `gpu.intel.com/i915`.
        resource: String,
    },
    /// NodeResourcesFit failed without naming the resource: the 2015 predicate
    /// name `PodFitsResources` (cpu or memory) and Volcano's
    /// `node(s) resource fit failed`.
    ResourceFit,
    /// NodeResourcesFit: `Too many pods` (the node's pod capacity is used up);
    /// ~1.8 wording `Insufficient pods`.
    TooManyPods,
    /// NodeAffinity: the pod's nodeSelector / required node affinity does not
    /// match. Covers `node(s) didn't match Pod's node affinity/selector`,
    /// `… node affinity` (1.20), `… node selector` (<=1.19), `MatchNodeSelector`,
    /// `node(s) didn't match scheduler-enforced node affinity`,
    /// `pod affinity terms conflict` and `node(s) didn't satisfy plugin(s) [NodeAffinity]`.
    NodeAffinity,
    /// InterPodAffinity: `node(s) didn't match pod affinity rules`.
    PodAffinity,
    /// InterPodAffinity: `node(s) didn't match pod anti-affinity rules`.
    PodAntiAffinity,
    /// InterPodAffinity: `node(s) didn't satisfy existing pods anti-affinity rules`
    /// (a pod already on the node repels this one).
    ExistingPodsAntiAffinity,
    /// InterPodAffinity up to ~1.20: `node(s) didn't match pod affinity/anti-affinity`
    /// or predicate `MatchInterPodAffinity`; the node is usually counted a second
    /// time under the specific rule.
    PodAffinityOrAntiAffinity,
    /// TaintToleration: the node has a NoSchedule/NoExecute taint the pod does
    /// not tolerate.
    UntoleratedTaint {
        /// Taint key, when the wording names it (1.18–1.34).
        key: Option<String>,
        /// Taint value as written (may be empty or a number); `None` when the
        /// wording names no taint.
        value: Option<String>,
    },
    /// NodeUnschedulable: `node(s) were unschedulable` (cordoned).
    Unschedulable,
    /// NodeUnschedulable: `node(s) had unknown conditions`.
    UnknownCondition,
    /// Before ~1.12: `node(s) were not ready` / predicate `NodeNotReady`.
    NotReady,
    /// Before ~1.12: a node condition checked by its own predicate (later a taint).
    NodeCondition {
        /// Which condition.
        condition: NodeConditionType,
    },
    /// NodeName: `node(s) didn't match the requested node name` (`spec.nodeName`
    /// set to another node); older `… hostname`, predicate `HostName`.
    NodeName,
    /// NodePorts: `node(s) didn't have free ports for the requested pod ports`.
    HostPorts,
    /// VolumeBinding: `node(s) didn't match PersistentVolume's node affinity`
    /// (before 1.33 `node(s) had volume node affinity conflict`).
    VolumeNodeAffinity,
    /// VolumeBinding: `node(s) didn't find available persistent volumes to bind`.
    VolumeBinding,
    /// VolumeBinding: `node(s) did not have enough free storage`.
    VolumeCapacity,
    /// VolumeZone: `node(s) had no available volume zone`.
    VolumeZone,
    /// NodeVolumeLimits: `node(s) exceed max volume count` (also `MaxEBSVolumeCount` …).
    VolumeLimits,
    /// VolumeRestrictions: `node(s) had no available disk` (`NoDiskConflict`).
    VolumeRestrictions,
    /// VolumeBinding PreFilter (or a 1.6 predicate error): a claim of the pod is
    /// unusable, so no node can be considered.
    Pvc {
        /// Claim name, when the wording names it.
        claim: Option<String>,
        /// What is wrong with it.
        problem: PvcProblem,
    },
    /// PodTopologySpread: `node(s) didn't match pod topology spread constraints`.
    TopologySpread {
        /// `true` for the ` (missing required label)` form: the node lacks the
        /// topology key label (preemption cannot help).
        missing_label: bool,
    },
    /// DynamicResources (DRA), e.g. `resourceclaim not available on the node`.
    DynamicResources {
        /// The text as written.
        detail: String,
    },
    /// Preemption dry run: `Preemption is not helpful for scheduling`.
    PreemptionNotHelpful,
    /// Preemption dry run: `No preemption victims found for incoming pod`.
    NoPreemptionVictims,
    /// `no nodes available to schedule pods` (<=1.5 and later versions): the
    /// scheduler's node list was empty. Before ~1.6 that list held only Ready,
    /// schedulable nodes, so it also means every node was NotReady or cordoned.
    NoNodesAvailable,
    /// Any other text (other schedulers, removed predicates such as
    /// `CheckServiceAffinity`), verbatim apart from whitespace runs collapsed.
    Other(String),
}

/// A node condition that had its own predicate before taints replaced them (~1.12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum NodeConditionType {
    /// `node(s) had memory pressure` / `CheckNodeMemoryPressure`.
    MemoryPressure,
    /// `node(s) had disk pressure` / `CheckNodeDiskPressure`.
    DiskPressure,
    /// `node(s) had pid pressure` / `CheckNodePIDPressure`.
    PidPressure,
    /// `node(s) were out of disk space` / `NodeOutOfDisk`.
    OutOfDisk,
    /// `node(s) had unavailable network` / `NodeNetworkUnavailable`.
    NetworkUnavailable,
}

/// What is wrong with a PersistentVolumeClaim the pod uses.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PvcProblem {
    /// `pod has unbound immediate PersistentVolumeClaims` (1.6: `PersistentVolumeClaim is not bound: "x"`).
    Unbound,
    /// `persistentvolumeclaim "x" not found`.
    NotFound,
    /// `persistentvolumeclaim "x" is being deleted`.
    BeingDeleted,
    /// `persistentvolumeclaim "x" bound to non-existent persistentvolume "y"`
    /// (1.6: `PersistentVolume not found: "y"`).
    BoundToMissingVolume {
        /// The missing PersistentVolume's name.
        volume: String,
    },
}

/// Fieldless copy of [`Reason`]'s variant, for grouping and counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReasonKind {
    /// [`Reason::Insufficient`].
    Insufficient,
    /// [`Reason::TooManyPods`].
    TooManyPods,
    /// [`Reason::NodeAffinity`].
    NodeAffinity,
    /// [`Reason::PodAffinity`].
    PodAffinity,
    /// [`Reason::PodAntiAffinity`].
    PodAntiAffinity,
    /// [`Reason::ExistingPodsAntiAffinity`].
    ExistingPodsAntiAffinity,
    /// [`Reason::PodAffinityOrAntiAffinity`].
    PodAffinityOrAntiAffinity,
    /// [`Reason::UntoleratedTaint`].
    UntoleratedTaint,
    /// [`Reason::Unschedulable`].
    Unschedulable,
    /// [`Reason::UnknownCondition`].
    UnknownCondition,
    /// [`Reason::NotReady`].
    NotReady,
    /// [`Reason::NodeCondition`].
    NodeCondition,
    /// [`Reason::NodeName`].
    NodeName,
    /// [`Reason::HostPorts`].
    HostPorts,
    /// [`Reason::VolumeNodeAffinity`].
    VolumeNodeAffinity,
    /// [`Reason::VolumeBinding`].
    VolumeBinding,
    /// [`Reason::VolumeCapacity`].
    VolumeCapacity,
    /// [`Reason::VolumeZone`].
    VolumeZone,
    /// [`Reason::VolumeLimits`].
    VolumeLimits,
    /// [`Reason::VolumeRestrictions`].
    VolumeRestrictions,
    /// [`Reason::Pvc`].
    Pvc,
    /// [`Reason::TopologySpread`].
    TopologySpread,
    /// [`Reason::DynamicResources`].
    DynamicResources,
    /// [`Reason::PreemptionNotHelpful`].
    PreemptionNotHelpful,
    /// [`Reason::NoPreemptionVictims`].
    NoPreemptionVictims,
    /// [`Reason::ResourceFit`] (listed late so that the order of the older kinds is kept).
    ResourceFit,
    /// [`Reason::NoNodesAvailable`].
    NoNodesAvailable,
    /// [`Reason::Other`].
    Other,
}

impl Reason {
    /// The variant without its data.
    #[must_use]
    pub fn kind(&self) -> ReasonKind {
        match self {
            Reason::Insufficient { .. } => ReasonKind::Insufficient,
            Reason::ResourceFit => ReasonKind::ResourceFit,
            Reason::TooManyPods => ReasonKind::TooManyPods,
            Reason::NodeAffinity => ReasonKind::NodeAffinity,
            Reason::PodAffinity => ReasonKind::PodAffinity,
            Reason::PodAntiAffinity => ReasonKind::PodAntiAffinity,
            Reason::ExistingPodsAntiAffinity => ReasonKind::ExistingPodsAntiAffinity,
            Reason::PodAffinityOrAntiAffinity => ReasonKind::PodAffinityOrAntiAffinity,
            Reason::UntoleratedTaint { .. } => ReasonKind::UntoleratedTaint,
            Reason::Unschedulable => ReasonKind::Unschedulable,
            Reason::UnknownCondition => ReasonKind::UnknownCondition,
            Reason::NotReady => ReasonKind::NotReady,
            Reason::NodeCondition { .. } => ReasonKind::NodeCondition,
            Reason::NodeName => ReasonKind::NodeName,
            Reason::HostPorts => ReasonKind::HostPorts,
            Reason::VolumeNodeAffinity => ReasonKind::VolumeNodeAffinity,
            Reason::VolumeBinding => ReasonKind::VolumeBinding,
            Reason::VolumeCapacity => ReasonKind::VolumeCapacity,
            Reason::VolumeZone => ReasonKind::VolumeZone,
            Reason::VolumeLimits => ReasonKind::VolumeLimits,
            Reason::VolumeRestrictions => ReasonKind::VolumeRestrictions,
            Reason::Pvc { .. } => ReasonKind::Pvc,
            Reason::TopologySpread { .. } => ReasonKind::TopologySpread,
            Reason::DynamicResources { .. } => ReasonKind::DynamicResources,
            Reason::PreemptionNotHelpful => ReasonKind::PreemptionNotHelpful,
            Reason::NoPreemptionVictims => ReasonKind::NoPreemptionVictims,
            Reason::NoNodesAvailable => ReasonKind::NoNodesAvailable,
            Reason::Other(_) => ReasonKind::Other,
        }
    }

    /// Whether evicting lower-priority pods could make a node pass this check.
    ///
    /// `false` for the "hard" reasons (kube-scheduler status
    /// `UnschedulableAndUnresolvable`, reference §1 table): node affinity, taints,
    /// node name, cordon, volume topology, PVC problems, required pod affinity,
    /// topology spread with a missing label, the preemption results
    /// themselves and an empty node list. `true` for resources (named or not),
    /// pod count, ports, anti-affinity, volume limits, disk conflicts, spread skew, the <=1.20 combined affinity wording
    /// (which older preemption treated as resolvable) and [`Reason::Other`]
    /// (not known to be hard). Since 2025 a request larger than a node's whole
    /// allocatable is hard too; that cannot be seen from the text.
    #[must_use]
    pub fn preemption_can_help(&self) -> bool {
        match self {
            Reason::Insufficient { .. }
            | Reason::ResourceFit
            | Reason::TooManyPods
            | Reason::PodAntiAffinity
            | Reason::ExistingPodsAntiAffinity
            | Reason::PodAffinityOrAntiAffinity
            | Reason::HostPorts
            | Reason::VolumeLimits
            | Reason::VolumeRestrictions
            | Reason::Other(_) => true,
            Reason::TopologySpread { missing_label } => !missing_label,
            Reason::NodeAffinity
            | Reason::PodAffinity
            | Reason::UntoleratedTaint { .. }
            | Reason::Unschedulable
            | Reason::UnknownCondition
            | Reason::NotReady
            | Reason::NodeCondition { .. }
            | Reason::NodeName
            | Reason::VolumeNodeAffinity
            | Reason::VolumeBinding
            | Reason::VolumeCapacity
            | Reason::VolumeZone
            | Reason::Pvc { .. }
            | Reason::DynamicResources { .. }
            | Reason::PreemptionNotHelpful
            | Reason::NoPreemptionVictims
            | Reason::NoNodesAvailable => false,
        }
    }

    /// The reason in the current kube-scheduler wording, e.g. `Insufficient cpu`,
    /// `node(s) didn't match pod affinity rules`.
    ///
    /// Names the message carried are kept even where today's wording drops them:
    /// a known taint gives `node(s) had untolerated taint {key: value}` (the
    /// 1.24–1.34 wording; 1.35 says `node(s) had untolerated taint(s)`). Reasons
    /// whose check no longer exists give their last wording
    /// (`node(s) were not ready`, `node(s) didn't match pod affinity/anti-affinity`);
    /// [`Reason::ResourceFit`], which kube-scheduler never words without a
    /// resource, gives Volcano's `node(s) resource fit failed`.
    #[must_use]
    pub fn message(&self) -> String {
        let fixed = match self {
            Reason::Insufficient { resource } => return format!("Insufficient {resource}"),
            Reason::UntoleratedTaint { key: Some(key), value } => {
                let value = value.as_deref().unwrap_or("");
                return format!("node(s) had untolerated taint {{{key}: {value}}}");
            }
            Reason::Pvc { claim, problem } => return pvc_message(claim.as_deref(), problem),
            Reason::DynamicResources { detail } => return detail.clone(),
            Reason::Other(text) => return text.clone(),
            Reason::ResourceFit => "node(s) resource fit failed",
            Reason::TooManyPods => "Too many pods",
            Reason::NodeAffinity => "node(s) didn't match Pod's node affinity/selector",
            Reason::PodAffinity => "node(s) didn't match pod affinity rules",
            Reason::PodAntiAffinity => "node(s) didn't match pod anti-affinity rules",
            Reason::ExistingPodsAntiAffinity => "node(s) didn't satisfy existing pods anti-affinity rules",
            Reason::PodAffinityOrAntiAffinity => "node(s) didn't match pod affinity/anti-affinity",
            Reason::UntoleratedTaint { key: None, .. } => "node(s) had untolerated taint(s)",
            Reason::Unschedulable => "node(s) were unschedulable",
            Reason::UnknownCondition => "node(s) had unknown conditions",
            Reason::NotReady => "node(s) were not ready",
            Reason::NodeCondition { condition } => match condition {
                NodeConditionType::MemoryPressure => "node(s) had memory pressure",
                NodeConditionType::DiskPressure => "node(s) had disk pressure",
                NodeConditionType::PidPressure => "node(s) had pid pressure",
                NodeConditionType::OutOfDisk => "node(s) were out of disk space",
                NodeConditionType::NetworkUnavailable => "node(s) had unavailable network",
            },
            Reason::NodeName => "node(s) didn't match the requested node name",
            Reason::HostPorts => "node(s) didn't have free ports for the requested pod ports",
            Reason::VolumeNodeAffinity => "node(s) didn't match PersistentVolume's node affinity",
            Reason::VolumeBinding => "node(s) didn't find available persistent volumes to bind",
            Reason::VolumeCapacity => "node(s) did not have enough free storage",
            Reason::VolumeZone => "node(s) had no available volume zone",
            Reason::VolumeLimits => "node(s) exceed max volume count",
            Reason::VolumeRestrictions => "node(s) had no available disk",
            Reason::TopologySpread { missing_label: false } => "node(s) didn't match pod topology spread constraints",
            Reason::TopologySpread { missing_label: true } => {
                "node(s) didn't match pod topology spread constraints (missing required label)"
            }
            Reason::PreemptionNotHelpful => "Preemption is not helpful for scheduling",
            Reason::NoPreemptionVictims => "No preemption victims found for incoming pod",
            Reason::NoNodesAvailable => "no nodes available to schedule pods",
        };
        fixed.to_string()
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

fn pvc_message(claim: Option<&str>, problem: &PvcProblem) -> String {
    let claim = claim.map(|c| format!(" \"{c}\"")).unwrap_or_default();
    match problem {
        PvcProblem::Unbound => "pod has unbound immediate PersistentVolumeClaims".to_string(),
        PvcProblem::NotFound => format!("persistentvolumeclaim{claim} not found"),
        PvcProblem::BeingDeleted => format!("persistentvolumeclaim{claim} is being deleted"),
        PvcProblem::BoundToMissingVolume { volume } => {
            format!("persistentvolumeclaim{claim} bound to non-existent persistentvolume \"{volume}\"")
        }
    }
}
