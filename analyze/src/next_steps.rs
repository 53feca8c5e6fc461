//! Next steps for a pending pod, per reason kind, most direct first: a fix
//! with a number when the state is known (the largest request that would fit
//! the node that is left), then rebalancing, then the constraint to relax.

use std::collections::{HashMap, HashSet};

use kdrift_rebalance::percent::percent_text;
use serde::Serialize;

use crate::failed_scheduling::ReasonKind;
use crate::pending::{NodeLine, PendingReport, StateAtFailure, EXPLAINED_NODES};

/// One suggested action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NextStep {
    /// What it addresses (`Insufficient cpu`, `node(s) didn't match pod affinity rules`).
    pub addresses: String,
    /// What to do, with the numbers that justify it; it does not repeat
    /// `addresses` (shown next to it as `[Insufficient cpu] lower …`).
    pub action: String,
}

/// The next steps for a report, ranked.
pub fn next_steps(report: &PendingReport) -> Vec<NextStep> {
    let mut steps = Vec::new();
    let state = report.state.as_ref();
    // 1. Numbers first: the largest request that fits a node that is left.
    if let Some(state) = state {
        // Only a node that passes every other constraint can be a fix; when
        // none does, the shortfalls are information, not advice.
        let left: HashSet<&str> = state.left.iter().map(String::as_str).collect();
        let advised = advised_nodes(state, &left);
        // The emptiest node per resource, and the second one for when the
        // emptiest is the short node itself: one pass over the nodes, not
        // one per shortfall (5,000 × 5,000 on a large cluster).
        let mut emptiest_of: HashMap<&str, [Option<(&NodeLine, f64)>; 2]> = HashMap::new();
        for n in &state.nodes {
            for r in &n.resources {
                let best = emptiest_of.entry(r.resource.as_str()).or_insert([None, None]);
                if best[0].is_none_or(|(_, p)| r.percent < p) {
                    best[1] = best[0];
                    best[0] = Some((n, r.percent));
                } else if best[1].is_none_or(|(_, p)| r.percent < p) {
                    best[1] = Some((n, r.percent));
                }
            }
        }
        let node_of: HashMap<&str, &NodeLine> = state.nodes.iter().map(|n| (n.name.as_str(), n)).collect();
        for s in state.shortfalls.iter().filter(|s| left.contains(s.node.as_str()) && advised.contains(s.node.as_str()))
        {
            let free = s.display[1].clone();
            let no_limit = state
                .requests_without_limit
                .iter()
                .filter(|e| e.ends_with(&format!(": {}", s.resource)))
                .cloned()
                .collect::<Vec<_>>();
            let why = if no_limit.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} set{} no {} limit, so the request only drives placement",
                    no_limit.iter().map(|e| e.split(':').next().unwrap_or("")).collect::<Vec<_>>().join(", "),
                    if no_limit.len() == 1 { "s" } else { "" },
                    s.resource
                )
            };
            if s.free > 0 {
                steps.push(NextStep {
                    addresses: format!("Insufficient {}", s.resource),
                    action: format!(
                        "lower the pod's {} request from {} to at most {free} (it fits {} then){why}",
                        s.resource, s.display[0], s.node
                    ),
                });
            }
            let emptiest = emptiest_of
                .get(s.resource.as_str())
                .and_then(|best| best.iter().flatten().find(|(n, _)| n.name != s.node).copied());
            let node_pct = node_of
                .get(s.node.as_str())
                .and_then(|n| n.resources.iter().find(|r| r.resource == s.resource))
                .map(|r| r.percent);
            let detail = match (node_pct, emptiest) {
                (Some(p), Some((n, percent))) => {
                    format!(
                        " ({} is at {} % {} requested, {} at {} %)",
                        s.node,
                        percent_text(p),
                        s.resource,
                        n.name,
                        percent_text(percent)
                    )
                }
                _ => String::new(),
            };
            let burst = report
                .why_full
                .as_ref()
                .and_then(|w| w.fills.iter().find(|f| f.node == s.node))
                .and_then(|f| f.bursts.first())
                .map(|b| format!("; it filled up in drain #{}: {}", b.operation, b.summary))
                .unwrap_or_default();
            steps.push(NextStep {
                addresses: format!("Insufficient {}", s.resource),
                action: format!(
                    "free {} of {} on {}: move pods elsewhere (`kdrift rebalance plan`){detail}{burst}",
                    s.display[2], s.resource, s.node
                ),
            });
        }
    }
    // 2. Per reason.
    for r in &report.reasons {
        if let Some(action) = reason_action(r.kind, &r.reason, report) {
            steps.push(NextStep { addresses: r.reason.clone(), action });
        }
    }
    steps
}

/// The short nodes that get advice: all of them, or, when more than
/// [`EXPLAINED_NODES`] nodes that are left are short, the same ones
/// `why_full` explains (smallest shortfall of their first short resource,
/// then name): a pod that fits nowhere on 5,000 nodes gets a few steps, not
/// 10,000.
fn advised_nodes<'a>(state: &'a StateAtFailure, left: &HashSet<&str>) -> HashSet<&'a str> {
    let mut first_short: Vec<(&str, i64)> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for s in state.shortfalls.iter().filter(|s| left.contains(s.node.as_str())) {
        if seen.insert(s.node.as_str()) {
            first_short.push((s.node.as_str(), s.short));
        }
    }
    if first_short.len() > EXPLAINED_NODES {
        first_short.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
        first_short.truncate(EXPLAINED_NODES);
    }
    first_short.into_iter().map(|(n, _)| n).collect()
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

/// The action for one reason (the step's `addresses` is the reason itself,
/// so the action does not start with it again).
fn reason_action(kind: ReasonKind, reason: &str, report: &PendingReport) -> Option<String> {
    use ReasonKind as K;
    let has_shortfall = report.state.as_ref().is_some_and(|s| !s.shortfalls.is_empty());
    Some(match kind {
        K::Insufficient if has_shortfall => return None,
        K::Insufficient => "lower the pod's request or free room on a node (`kdrift rebalance plan`); ingest the Pod and Node objects for exact numbers".into(),
        K::ResourceFit if has_shortfall => return None,
        K::ResourceFit => "the nodes lacked room for the pod's requests (the message names no resource): compare its cpu and memory requests with the nodes' free allocatable, then lower them or free room (`kdrift rebalance plan`)".into(),
        K::NoNodesAvailable => "the scheduler had no node to try: check that nodes are registered and Ready (`kubectl get nodes`); before 1.6 it also left out cordoned and NotReady nodes, so uncordon or repair them".into(),
        K::TooManyPods => "nodes are at their pod limit (allocatable pods): spread pods or raise the kubelet's maxPods".into(),
        K::NodeAffinity => "the pod's nodeSelector / required node affinity rules these nodes out: relax it or label a node to match".into(),
        K::PodAffinity | K::PodAffinityOrAntiAffinity => match report.why_full.as_ref().and_then(|w| w.anchors.first()) {
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
        },
        K::PodAntiAffinity => "the pod's required anti-affinity excludes nodes running matching pods: relax it or add nodes".into(),
        K::ExistingPodsAntiAffinity => "pods already on these nodes have anti-affinity against this pod: relax theirs or schedule elsewhere".into(),
        // The cordon's own taint (kube-scheduler names it in some versions): uncordon, not untaint.
        K::UntoleratedTaint if reason.contains("node.kubernetes.io/unschedulable") => "nodes are cordoned (their \
             node.kubernetes.io/unschedulable taint): uncordon them when the drain is over (`kubectl uncordon NODE`)".into(),
        K::UntoleratedTaint => match managed_taint_action(reason) {
            Some(action) => action.into(),
            None => "add a matching toleration, or remove the taint when it is stale (`kubectl taint nodes NODE KEY-`)".into(),
        },
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
