//! The step for each reason of the event: what to relax or fix for a taint
//! (consistent with the nodes that exist, naming who sets it), a pod
//! affinity (its anchor pod), an anti-affinity, volumes, cordons, ….

use crate::failed_scheduling::ReasonKind;
use crate::pending::{PendingReport, ReasonLine};

/// The advice for a required anti-affinity (the pod's or an existing pod's).
const ANTI_AFFINITY: &str = "relax that anti-affinity (make it preferredDuringSchedulingIgnoredDuringExecution) or \
     add nodes outside the matching pods' topology domains";

/// The advice for a required pod affinity: the anchor pod it pins the pod to, when known.
fn pod_affinity_action(report: &PendingReport) -> String {
    match report.why_full.as_ref().and_then(|w| w.anchors.first()) {
        Some(a) => format!(
            "the required pod affinity pins the pod next to {}/{} on {}: make it \
             preferredDuringSchedulingIgnoredDuringExecution, or let {} run elsewhere{}",
            a.namespace,
            a.name,
            a.node,
            a.name,
            match a.offered_by.first() {
                Some((r, nodes)) => format!(" (it needs {r}, offered by {})", nodes.join(", ")),
                None => String::new(),
            }
        ),
        None => format!(
            "the required pod affinity pins the pod next to the pods its selector matches (on {}): make it \
             preferredDuringSchedulingIgnoredDuringExecution, or make room on that node",
            left_nodes(report)
        ),
    }
}

/// `{key: value}` of a taint reason (1.18+ wordings), when it names one.
fn taint_of(reason: &str) -> Option<(&str, &str)> {
    let inner = reason.split_once('{')?.1.rsplit_once('}')?.0;
    let (key, value) = inner.split_once(':').unwrap_or((inner, ""));
    Some((key.trim(), value.trim()))
}

/// Who puts a taint on nodes, by its key's well-known prefix.
fn taint_setter(key: &str) -> &'static str {
    const SETTERS: [(&str, &str); 9] = [
        ("node-role.kubernetes.io/", "by kubeadm (or the installer) on control-plane nodes"),
        ("node.kubernetes.io/", "by the node controller or the kubelet, from node conditions"),
        ("node.cloudprovider.kubernetes.io/", "by the cloud controller manager"),
        ("karpenter.sh/", "by Karpenter"),
        ("ToBeDeletedByClusterAutoscaler", "by cluster-autoscaler, before scaling the node down"),
        ("DeletionCandidateOfClusterAutoscaler", "by cluster-autoscaler, marking a scale-down candidate"),
        ("cloud.google.com/", "by GKE, from the node pool's configuration"),
        ("kubernetes.azure.com/", "by AKS, from the node pool's configuration"),
        ("eks.amazonaws.com/", "by EKS, from the node group's configuration"),
    ];
    SETTERS
        .iter()
        .find(|(prefix, _)| key.starts_with(prefix))
        .map_or("by hand or by the tool that provisions the nodes: no Kubernetes component sets it", |(_, who)| *who)
}

/// The advice for an untolerated taint, consistent with the nodes that
/// exist: "run it on worker nodes" only when some node lacks the
/// control-plane taint; the taint and who sets it named.
fn taint_action(line: &ReasonLine, report: &PendingReport) -> String {
    let taint = taint_of(&line.reason);
    let total = report.total_nodes.or_else(|| report.state.as_ref().map(|s| s.nodes.len() as u32));
    let on_every_node = matches!((line.nodes, total), (Some(n), Some(t)) if n >= t && t > 0);
    if let Some((key, _)) = taint.filter(|(k, _)| k.starts_with("node-role.kubernetes.io/")) {
        if on_every_node {
            return format!(
                "every node carries the control-plane taint {key}:NoSchedule (set by kubeadm on control-plane \
                 nodes): there is no worker node to run the pod on — join a worker node, or, on a single-node \
                 cluster, remove the taint (`kubectl taint nodes NODE {key}:NoSchedule-`) or tolerate it"
            );
        }
    }
    if let Some(action) = managed_taint_action(&line.reason) {
        return action.into();
    }
    match taint {
        Some((key, value)) => {
            let tainted = tainted_nodes(report, key);
            let (who, target) = match tainted.as_slice() {
                [] => ("the nodes carry".to_string(), "NODE".to_string()),
                [one] => (format!("{one} carries"), one.clone()),
                many => (format!("{} carry", many.join(", ")), many.join(" ")),
            };
            format!(
                "{who} the taint {key}{} (set {}): add a toleration for it to the pod, or remove the taint when \
                 it is stale (`kubectl taint nodes {target} {key}-`)",
                if value.is_empty() { String::new() } else { format!("={value}") },
                taint_setter(key)
            )
        }
        None => {
            "add a matching toleration, or remove the taint when it is stale (`kubectl taint nodes NODE KEY-`)".into()
        }
    }
}

/// The nodes of the state whose modelled failures include an untolerated
/// taint with this key (or a taint the model did not name), in state order;
/// empty when the state is unknown.
fn tainted_nodes(report: &PendingReport, key: &str) -> Vec<String> {
    let Some(state) = report.state.as_ref() else { return Vec::new() };
    state
        .nodes
        .iter()
        .filter(|n| n.fails.iter().any(|f| f.contains("untolerated taint") && (f.contains(key) || !f.contains('{'))))
        .map(|n| n.name.clone())
        .collect()
}

fn left_nodes(report: &PendingReport) -> String {
    report
        .state
        .as_ref()
        .map(|s| s.left.join(", "))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "the matching nodes".into())
}

/// The action for a taint Kubernetes puts on and takes off nodes itself
/// (the well-known `node.kubernetes.io/*` taints the node controller and the
/// kubelet set from node conditions, the cloud provider's, the control
/// plane's): removing it by hand does not last, and tolerating a condition
/// taint sends pods to a failing node. `None` for other taints.
fn managed_taint_action(reason: &str) -> Option<&'static str> {
    const ACTIONS: [(&str, &str); 10] = [
        ("node.kubernetes.io/not-ready", "nodes are NotReady (the node controller's node.kubernetes.io/not-ready taint, removed when the node is Ready again): check the kubelet and the node's conditions (`kubectl describe node NODE`) rather than tolerating it"),
        ("node.kubernetes.io/unreachable", "the node controller lost contact with these nodes (node.kubernetes.io/unreachable, removed when the kubelet reports again): check the node and its network (`kubectl describe node NODE`) rather than tolerating it"),
        ("node.kubernetes.io/memory-pressure", "the kubelet reports MemoryPressure on these nodes (node.kubernetes.io/memory-pressure, removed when it ends): free memory there (`kubectl top pods --sort-by=memory -A`); tolerating it sends the pod where the kubelet is evicting"),
        ("node.kubernetes.io/disk-pressure", "the kubelet reports DiskPressure on these nodes (node.kubernetes.io/disk-pressure, removed when it ends): free disk (images, logs, emptyDir) on them rather than tolerating it"),
        ("node.kubernetes.io/pid-pressure", "the kubelet reports PIDPressure on these nodes (node.kubernetes.io/pid-pressure, removed when it ends): find the pods forking processes there rather than tolerating it"),
        ("node.kubernetes.io/network-unavailable", "these nodes' network is not configured (node.kubernetes.io/network-unavailable): check the CNI plugin's pods on them"),
        ("node.kubernetes.io/out-of-service", "these nodes were marked out of service by hand (node.kubernetes.io/out-of-service, for a non-graceful shutdown): remove that taint once the node is back (`kubectl taint nodes NODE node.kubernetes.io/out-of-service-`)"),
        ("node.cloudprovider.kubernetes.io/uninitialized", "the cloud controller manager has not initialized these nodes yet (node.cloudprovider.kubernetes.io/uninitialized): check the cloud controller manager"),
        ("node-role.kubernetes.io/control-plane", "these are control-plane nodes (node-role.kubernetes.io/control-plane): run the pod on worker nodes, or add a toleration only if it belongs on the control plane"),
        ("node-role.kubernetes.io/master", "these are control-plane nodes (node-role.kubernetes.io/master): run the pod on worker nodes, or add a toleration only if it belongs on the control plane"),
    ];
    ACTIONS.iter().find(|(key, _)| reason.contains(key)).map(|(_, action)| *action)
}

/// The cluster's one node: the state at the failure (the store's Node
/// objects) holds exactly one node, and the latest message does not count
/// more (`0/3 nodes`: the store then misses nodes). Read from the store, not
/// from the message: a latest message without counts (kube-scheduler's
/// "skip schedule deleting pod", a PVC being deleted) says nothing of the
/// nodes (new-user trial 43).
fn only_node(report: &PendingReport) -> Option<&str> {
    let state = report.state.as_ref()?;
    match (report.total_nodes, state.nodes.as_slice()) {
        (None | Some(1), [node]) => Some(node.name.as_str()),
        _ => None,
    }
}

/// What to ingest for exact numbers: the Pod and Node objects only when the
/// store has no Node object at the failure (no state), the Pod object when
/// only it is missing, nothing when both are known.
fn ingest_hint(report: &PendingReport) -> &'static str {
    match report.state.as_ref() {
        None => "; ingest the Pod and Node objects for exact numbers",
        Some(s) if !s.pod_known => "; ingest the Pod object for exact numbers",
        Some(_) => "",
    }
}

/// The action for one reason (the step's `addresses` is the reason itself,
/// so the action does not start with it again).
pub(super) fn reason_action(line: &ReasonLine, report: &PendingReport) -> Option<String> {
    use ReasonKind as K;
    let (kind, reason) = (line.kind, line.reason.as_str());
    let has_shortfall = report.state.as_ref().is_some_and(|s| !s.shortfalls.is_empty());
    Some(match kind {
        K::Insufficient if has_shortfall => return None,
        // One node: nothing can move pods elsewhere, and descheduler skips
        // its cycle under 2 Ready nodes (new-user trial 42).
        K::Insufficient => match only_node(report) {
            Some(node) => format!(
                "{node} is the cluster's only node: no other node can take its pods; lower the pod's request or add a \
                 node{}",
                ingest_hint(report)
            ),
            None => format!(
                "lower the pod's request or free room on a node (`kdrift rebalance plan`){}",
                ingest_hint(report)
            ),
        },
        K::ResourceFit if has_shortfall => return None,
        K::ResourceFit => "the nodes lacked room for the pod's requests (the message names no resource): compare its cpu and memory requests with the nodes' free allocatable, then lower them or free room (`kdrift rebalance plan`)".into(),
        K::NoNodesAvailable => "the scheduler had no node to try: check that nodes are registered and Ready (`kubectl get nodes`); before 1.6 it also left out cordoned and NotReady nodes, so uncordon or repair them".into(),
        K::TooManyPods => "nodes are at their pod limit (allocatable pods): spread pods or raise the kubelet's maxPods".into(),
        K::NodeAffinity => "the pod's nodeSelector / required node affinity rules these nodes out: relax it or label a node to match".into(),
        K::PodAffinity => pod_affinity_action(report),
        // 1.18–1.21 wording: one reason for both filters of InterPodAffinity.
        K::PodAffinityOrAntiAffinity => format!(
            "this wording does not say which of the pod's inter-pod rules failed: if its required pod affinity, {}; \
             if a required anti-affinity (the pod's, or an existing pod's against it), {}",
            pod_affinity_action(report),
            ANTI_AFFINITY
        ),
        K::PodAntiAffinity => "the pod's required anti-affinity excludes nodes running matching pods: relax it or add nodes".into(),

        K::ExistingPodsAntiAffinity => "pods already on these nodes have anti-affinity against this pod: relax theirs or schedule elsewhere".into(),
        // The cordon's own taint (kube-scheduler names it in some versions): uncordon, not untaint.
        K::UntoleratedTaint if reason.contains("node.kubernetes.io/unschedulable") => "nodes are cordoned (their \
             node.kubernetes.io/unschedulable taint): uncordon them when the drain is over (`kubectl uncordon NODE`)".into(),
        K::UntoleratedTaint => taint_action(line, report),
        K::Unschedulable => "nodes are cordoned (spec.unschedulable): uncordon them when the drain is over (`kubectl uncordon NODE`)".into(),
        K::NotReady | K::UnknownCondition | K::NodeCondition => "nodes are not Ready or under pressure: check the kubelet and node conditions".into(),
        K::NodeName => "spec.nodeName names a node the pod cannot run on: remove nodeName or free that node".into(),
        K::HostPorts => "the requested hostPort is taken on these nodes: drop hostPort or run fewer replicas per node".into(),
        K::Pvc if reason.contains("being deleted") => format!(
            "the claim is on its way out; recreate it once its deletion finishes (a finalizer may hold it: \
             `kubectl get pvc -n {} -o yaml`), or point the pod at another claim",
            report.namespace
        ),
        K::Pvc => format!("create or bind the PersistentVolumeClaim (`kubectl get pvc -n {}`)", report.namespace),
        K::VolumeNodeAffinity | K::VolumeZone => "the pod's PersistentVolume is pinned to a node/zone none of the candidate nodes is in".into(),
        K::VolumeBinding | K::VolumeCapacity | K::VolumeLimits | K::VolumeRestrictions => {
            "a storage constraint: check the StorageClass, provisioner and per-node volume limits".into()
        }
        K::TopologySpread => "topology spread constraints cannot be met: relax maxSkew/whenUnsatisfiable or add nodes in the short domain".into(),
        K::PreemptionNotHelpful | K::NoPreemptionVictims => return None,
        _ => "not a kube-scheduler reason kdrift knows; see the scheduler that wrote it".into(),
    })
}
