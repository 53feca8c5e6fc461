//! Reads one reason text of any kube-scheduler era into a [`Reason`].
//!
//! Every wording known to the project reference
//! (`shared/reference/kubernetes-events.md` §1, "Reason strings by plugin")
//! maps to a variant: plugin strings of 1.10–1.36, the 1.4–1.9 predicate names
//! (`MatchNodeSelector`, `PodToleratesNodeTaints`, …) and the 1.6 predicate
//! errors (`PersistentVolumeClaim is not bound: "x"`), the 2015 predicate
//! `PodFitsResources` and Volcano's own wordings (`node(s) resource fit failed`,
//! `node(s) pod number exceeded`). Anything else is kept verbatim in
//! [`Reason::Other`].

use super::reason::{NodeConditionType, PvcProblem, Reason};

/// Classifies one reason text (no count, no trailing period) of any era.
///
/// A reason wrapped as a 1.6 predicate error (`SchedulerPredicates failed due
/// to X, which is unexpected`, or only its `, which is unexpected` tail) or as a
/// Volcano predicate error (`plugin NAME predicates failed X`) is classified by
/// its `X`; when `X` is not known the whole text is kept in [`Reason::Other`].
pub(super) fn classify(text: &str) -> Reason {
    let text = text.trim();
    let inner = unwrap_error(text);
    if inner.len() == text.len() {
        return classify_plain(text);
    }
    match classify_plain(inner) {
        Reason::Other(_) => Reason::Other(text.to_string()),
        known => known,
    }
}

/// The reason inside the wrappers [`classify`] removes (the text itself when
/// there is none).
pub(super) fn unwrap_error(text: &str) -> &str {
    let inner = text.strip_prefix("SchedulerPredicates failed due to ").unwrap_or(text);
    let inner = inner
        .strip_suffix(", which is unexpected.")
        .or_else(|| inner.strip_suffix(", which is unexpected"))
        .unwrap_or(inner);
    let inner = volcano_plugin(inner).map_or(inner, |(_, reason)| reason);
    if inner.len() == text.len() {
        text
    } else {
        inner.trim()
    }
}

/// Volcano's predicate error (`pkg/scheduler/plugins/predicates`):
/// `plugin NAME predicates failed REASON` (also `pre-predicates`), → (NAME, REASON).
pub(super) fn volcano_plugin(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("plugin ")?;
    let (name, rest) = rest.split_once(' ')?;
    let reason = rest.strip_prefix("predicates failed").or_else(|| rest.strip_prefix("pre-predicates failed"))?;
    (!name.is_empty()).then_some((name, reason.trim_start()))
}

/// [`classify`] without the wrappers.
fn classify_plain(text: &str) -> Reason {
    if let Some(reason) = fixed_wording(text) {
        return reason;
    }
    if let Some(resource) = text.strip_prefix("Insufficient ") {
        if resource == "pods" {
            return Reason::TooManyPods;
        }
        if !resource.is_empty() && !resource.contains(char::is_whitespace) {
            return Reason::Insufficient { resource: resource.to_string() };
        }
    }
    if let Some(reason) = taint(text).or_else(|| pvc(text)).or_else(|| satisfy_plugins(text)) {
        return reason;
    }
    if text.starts_with("resourceclaim ") || text.starts_with("cannot allocate all claims") {
        return Reason::DynamicResources { detail: text.to_string() };
    }
    Reason::Other(text.to_string())
}

/// Wordings (and 1.4–1.9 predicate names) that carry no data.
fn fixed_wording(text: &str) -> Option<Reason> {
    let no_taint = Reason::UntoleratedTaint { key: None, value: None };
    let condition = |condition| Some(Reason::NodeCondition { condition });
    let reason = match text {
        "Too many pods" | "PodExceedsMaxPodNumber" | "node(s) pod number exceeded" => Reason::TooManyPods,
        "node(s) resource fit failed" | "PodFitsResources" => Reason::ResourceFit,
        "no nodes available to schedule pods" => Reason::NoNodesAvailable,
        "PodExceedsFreeCPU" => Reason::Insufficient { resource: "cpu".to_string() },
        "PodExceedsFreeMemory" => Reason::Insufficient { resource: "memory".to_string() },
        "node(s) didn't match Pod's node affinity/selector"
        | "node(s) didn't match Pod's node affinity"
        | "node(s) didn't match node selector"
        | "node(s) didn't match scheduler-enforced node affinity"
        | "pod affinity terms conflict"
        | "MatchNodeSelector" => Reason::NodeAffinity,
        "node(s) didn't match pod affinity rules" | "PodAffinityRulesNotMatch" => Reason::PodAffinity,
        "node(s) didn't match pod anti-affinity rules" | "PodAntiAffinityRulesNotMatch" => Reason::PodAntiAffinity,
        "node(s) didn't satisfy existing pods anti-affinity rules" | "ExistingPodsAntiAffinityRulesNotMatch" => {
            Reason::ExistingPodsAntiAffinity
        }
        "node(s) didn't match pod affinity/anti-affinity"
        | "node(s) didn't match pod affinity/anti-affinity rules"
        | "MatchInterPodAffinity" => Reason::PodAffinityOrAntiAffinity,
        "node(s) had untolerated taint(s)"
        | "node(s) had taints that the pod didn't tolerate"
        | "PodToleratesNodeTaints"
        | "PodToleratesNodeNoExecuteTaints" => no_taint,
        "node(s) were unschedulable" | "NodeUnschedulable" => Reason::Unschedulable,
        "node(s) had unknown conditions" | "NodeUnknownCondition" => Reason::UnknownCondition,
        "node(s) were not ready" | "NodeNotReady" => Reason::NotReady,
        "node(s) had memory pressure" | "NodeUnderMemoryPressure" | "CheckNodeMemoryPressure" => {
            return condition(NodeConditionType::MemoryPressure)
        }
        "node(s) had disk pressure" | "NodeUnderDiskPressure" | "CheckNodeDiskPressure" => {
            return condition(NodeConditionType::DiskPressure)
        }
        "node(s) had pid pressure" | "NodeUnderPIDPressure" | "CheckNodePIDPressure" => {
            return condition(NodeConditionType::PidPressure)
        }
        "node(s) were out of disk space" | "NodeOutOfDisk" => return condition(NodeConditionType::OutOfDisk),
        "node(s) had unavailable network" | "NodeNetworkUnavailable" => {
            return condition(NodeConditionType::NetworkUnavailable)
        }
        "node(s) didn't match the requested node name"
        | "node(s) didn't match the requested hostname"
        | "HostName"
        | "PodFitsHost" => Reason::NodeName,
        "node(s) didn't have free ports for the requested pod ports" | "PodFitsHostPorts" | "PodFitsPorts" => {
            Reason::HostPorts
        }
        "node(s) didn't match PersistentVolume's node affinity"
        | "node(s) had volume node affinity conflict"
        | "VolumeNodeAffinityConflict" => Reason::VolumeNodeAffinity,
        "node(s) didn't find available persistent volumes to bind" | "VolumeBindingNoMatch" => Reason::VolumeBinding,
        "node(s) did not have enough free storage" => Reason::VolumeCapacity,
        "node(s) had no available volume zone" | "NoVolumeZoneConflict" => Reason::VolumeZone,
        "node(s) exceed max volume count"
        | "MaxVolumeCount"
        | "MaxEBSVolumeCount"
        | "MaxGCEPDVolumeCount"
        | "MaxAzureDiskVolumeCount"
        | "MaxCinderVolumeCount"
        | "MaxCSIVolumeCountPred" => Reason::VolumeLimits,
        "node(s) had no available disk" | "NoDiskConflict" => Reason::VolumeRestrictions,
        "pod has unbound immediate PersistentVolumeClaims" => Reason::Pvc { claim: None, problem: PvcProblem::Unbound },
        "node(s) didn't match pod topology spread constraints" => Reason::TopologySpread { missing_label: false },
        "node(s) didn't match pod topology spread constraints (missing required label)" => {
            Reason::TopologySpread { missing_label: true }
        }
        "Preemption is not helpful for scheduling" => Reason::PreemptionNotHelpful,
        "No preemption victims found for incoming pod" => Reason::NoPreemptionVictims,
        _ => return None,
    };
    Some(reason)
}

/// `node(s) had untolerated taint {k: v}` (1.24–1.34) and
/// `node(s) had taint {k: v}, that the pod didn't tolerate` (1.18–1.23).
fn taint(text: &str) -> Option<Reason> {
    let inner = text
        .strip_prefix("node(s) had untolerated taint {")
        .and_then(|rest| rest.strip_suffix('}'))
        .or_else(|| text.strip_prefix("node(s) had taint {")?.strip_suffix("}, that the pod didn't tolerate"))?;
    let (key, value) = match inner.split_once(':') {
        Some((key, value)) => (key.trim(), Some(value.trim().to_string())),
        None => (inner.trim(), None),
    };
    Some(Reason::UntoleratedTaint { key: Some(key.to_string()), value })
}

/// Claim problems that name the claim: current PreFilter wordings and the 1.6
/// predicate errors.
fn pvc(text: &str) -> Option<Reason> {
    let named = |claim: &str, problem| Some(Reason::Pvc { claim: Some(claim.to_string()), problem });
    // The lister's error is singular, the API server's plural.
    let named_prefix =
        text.strip_prefix("persistentvolumeclaim \"").or_else(|| text.strip_prefix("persistentvolumeclaims \""));
    if let Some(rest) = named_prefix {
        let (claim, tail) = rest.split_once('"')?;
        let tail = tail.trim_start();
        return match tail {
            "not found" => named(claim, PvcProblem::NotFound),
            "is being deleted" => named(claim, PvcProblem::BeingDeleted),
            _ => {
                let volume = tail.strip_prefix("bound to non-existent persistentvolume \"")?.strip_suffix('"')?;
                named(claim, PvcProblem::BoundToMissingVolume { volume: volume.to_string() })
            }
        };
    }
    let quoted = |prefix: &str| text.strip_prefix(prefix)?.strip_prefix('"')?.strip_suffix('"');
    if let Some(claim) = quoted("PersistentVolumeClaim is not bound: ") {
        return named(claim, PvcProblem::Unbound);
    }
    if let Some(claim) =
        quoted("PersistentVolumeClaim was not found: ").or_else(|| quoted("PersistentVolumeClaim not found: "))
    {
        return named(claim, PvcProblem::NotFound);
    }
    let volume = quoted("PersistentVolume not found: ")?;
    Some(Reason::Pvc { claim: None, problem: PvcProblem::BoundToMissingVolume { volume: volume.to_string() } })
}

/// Nodes left out by PreFilter: `node(s) didn't satisfy plugin(s) [NodeAffinity]`
/// (also `… plugin NodeAffinity`). Other plugin lists stay [`Reason::Other`].
fn satisfy_plugins(text: &str) -> Option<Reason> {
    let plugins = text
        .strip_prefix("node(s) didn't satisfy plugin(s) ")
        .or_else(|| text.strip_prefix("node(s) didn't satisfy plugin "))?;
    let plugins = plugins.trim_end_matches(" simultaneously").trim_matches(['[', ']']);
    (plugins == "NodeAffinity").then_some(Reason::NodeAffinity)
}
