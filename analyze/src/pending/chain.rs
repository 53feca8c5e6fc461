//! The nodes at the pod's last scheduling failure, re-evaluated with the
//! shared kube-scheduler filter model (`kdrift_rebalance`'s `scheduler`): each
//! node's allocatable vs requested, which constraint excluded which nodes,
//! which node(s) were left, and by how much each Insufficient resource fell
//! short (millicores for cpu, bytes for memory and storage, units otherwise).

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Utc};
use kdrift_rebalance::format_amount;
use kdrift_rebalance::{evaluate, evaluate_with_sums, fit_error_message, ClusterState, FilterFailure, Plugin, PodInfo};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;
use serde_json::Value;

use super::template::{pod_from_owner, SpecFrom};
use crate::failed_scheduling::{parse, FailedScheduling};
use crate::state::lower_bound::{event_only_note, events_instant, unstored_namespaces, unstored_note};
use crate::state::unlisted::Unlisted;
use crate::state::ClusterAt;
use crate::words::{count, pick};
use crate::AnalyzeError;

/// One resource of one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceLine {
    /// Resource name (`cpu`, `memory`, `pods`, `gpu.intel.com/i915`).
    pub resource: String,
    /// Allocatable (cpu millicores, memory bytes, pods count, extended units).
    pub allocatable: i64,
    /// Sum of the requests of the pods bound to the node (same unit).
    pub requested: i64,
    /// allocatable − requested (may be negative).
    pub free: i64,
    /// requested as percent of allocatable (0 when allocatable is 0); JSON:
    /// two decimals ([`kdrift_rebalance::hundredths`]).
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub percent: f64,
}

/// One node at the failure instant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeLine {
    /// Node name.
    pub name: String,
    /// Ready condition (`None`: unknown).
    pub ready: Option<bool>,
    /// Cordoned (`spec.unschedulable`).
    pub unschedulable: bool,
    /// Pods counted on it.
    pub pods: usize,
    /// cpu, memory, pods, then the resources the pending pod requests.
    pub resources: Vec<ResourceLine>,
    /// Every filter this node fails for the pending pod (scheduler wording);
    /// empty when the pod is unknown or the node fits.
    pub fails: Vec<String>,
    /// The one reason the scheduler records for it (the first failing plugin).
    pub recorded_as: Option<String>,
    /// Numbers estimated: the node's version was observed after the instant (a dump), or a pod
    /// counted on it is known only from events or from a later version.
    pub estimated: bool,
}

/// Nodes excluded by one constraint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConstraintLine {
    /// The filter plugin (`InterPodAffinity`).
    pub plugin: String,
    /// The reason in scheduler wording; for a topology spread skew, with the
    /// domain and the numbers behind it ([`FilterFailure::explain`]: `topology
    /// spread: zone zone-a has 3 matching pods, min 1, maxSkew 1 → skew 3 > 1`).
    pub reason: String,
    /// The nodes it excludes.
    pub nodes: Vec<String>,
}

/// How much of a resource a node lacked for the pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shortfall {
    /// Node name.
    pub node: String,
    /// Resource name.
    pub resource: String,
    /// The pod's request (cpu millicores, bytes, units).
    pub requested: i64,
    /// Free on the node at the instant (allocatable − requested by its pods).
    pub free: i64,
    /// requested − free.
    pub short: i64,
    /// The three numbers for people (`100m`, `58m`, `42m`).
    pub display: [String; 3],
    /// Where exact numbers came from when the store's are a lower bound
    /// (the kubelet's admission count, [`super::KubeletRejection::counted`]);
    /// `None`: the store's own state at the failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_from: Option<String>,
}

/// The cluster at the pod's last failure, as far as the store knows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateAtFailure {
    /// The instant (UTC).
    pub at: DateTime<Utc>,
    /// Whether the pending pod's spec is known: its own object is in the
    /// store, or it was derived from its owner's template (`spec_from`).
    pub pod_known: bool,
    /// Set when the pod's own object is not stored and its spec comes from
    /// its owner's template: every value derived from the spec (requests,
    /// fails, constraints, left nodes, shortfalls) is from that template.
    pub spec_from: Option<SpecFrom>,
    /// The pod's requests (descheduler §1 rules), `(resource, amount)`.
    pub pod_requests: Vec<(String, i64)>,
    /// Resources requested by a container without a limit for them
    /// (`container: resource`): such a request only drives placement.
    pub requests_without_limit: Vec<String>,
    /// Nodes, in name order.
    pub nodes: Vec<NodeLine>,
    /// Constraints other than resources, with the nodes each excluded.
    pub constraints: Vec<ConstraintLine>,
    /// Nodes that pass every constraint except resources: where the pod
    /// could go if room were made.
    pub left: Vec<String>,
    /// Per left node (or, when none is left, per node) and Insufficient resource.
    pub shortfalls: Vec<Shortfall>,
    /// The message kube-scheduler would write for this state (pod known only).
    pub reconstructed_message: Option<String>,
    /// Whether it has the same counts as the latest event (`None`: not comparable).
    pub matches_event: Option<bool>,
    /// Pods counted on the nodes.
    pub pods_counted: usize,
    /// The requested amounts are a lower bound: the store lacks pod objects
    /// (the pending pod's own object is missing, so its namespace was likely
    /// not dumped; events name pods of a namespace with no stored Pod
    /// object, `crate::state::lower_bound::unstored_namespaces`; or pods
    /// known only from events count with no requests).
    pub requested_is_lower_bound: bool,
}

const BASE_RESOURCES: [&str; 3] = ["cpu", "memory", "pods"];

/// The state at the failure and the cluster it was computed on (nodes and
/// every other pod), which the rest of the chain reuses instead of loading
/// the store again.
pub(super) struct Evaluated {
    /// What the report shows.
    pub state: StateAtFailure,
    /// Nodes and pods at the failure, without the pending pod.
    pub cluster: ClusterState,
    /// The pending pod's stored version at the failure, when the store has one.
    pub pod: Option<PodInfo>,
    /// The pods `cluster` holds in part only (read from their filter
    /// fields, or counted by their nodes' sums), to read whole those a report shows.
    pub unlisted: Unlisted,
    /// `namespace/name` of the pods known only from events.
    pub event_only: Vec<String>,
}

/// Loads the state at `at` and evaluates the pod against it. `Ok(None)`
/// when the store has no Node object at all.
pub(super) fn build_state(
    store: &Reader,
    namespace: &str,
    name: &str,
    uid: &str,
    at: DateTime<Utc>,
    latest: &FailedScheduling,
    notes: &mut Vec<String>,
) -> Result<Option<Evaluated>, AnalyzeError> {
    let mut steps = crate::steps::Steps::start();
    let mut pod = load_pod(store, namespace, name, uid, at)?;
    // Its object gone (deleted by its Job at the deadline), from its owner's template.
    let mut spec_from = None;
    if pod.is_none() {
        if let Some((derived, from)) = pod_from_owner(store, namespace, name, at)? {
            notes.push(from.note(namespace, name));
            pod = Some(derived);
            spec_from = Some(from);
        }
    }
    // Only the filters read the other pods here (why_full reads the pods on
    // the nodes it explains whole), and their labels only through the pod's
    // own required inter-pod terms and DoNotSchedule topology spread
    // constraints (PodTopologySpread counts the matching pods per domain).
    let labels = pod.as_ref().is_some_and(|p| {
        !p.affinity.pod_affinity.required.is_empty()
            || !p.affinity.pod_anti_affinity.required.is_empty()
            || p.rare.topology_spread_constraints.iter().any(|c| c.when_unsatisfiable == "DoNotSchedule")
    });
    // Pods of namespaces that were not dumped are missing from every node
    // (as skew says): found on a second connection while this one loads.
    let (loaded, unstored) = crate::alongside::alongside(
        store,
        |reader| -> Result<_, AnalyzeError> {
            let events_at = events_instant(reader, at)?;
            Ok((events_at, unstored_namespaces(reader, events_at)?))
        },
        || -> Result<_, AnalyzeError> {
            // Without such terms the filters read other pods one by one only
            // for their host ports and inter-pod terms: the rest count by
            // their nodes' sums (kdrift issue 6).
            let summed = if labels { None } else { ClusterAt::load_summed(store, at, namespace, name)? };
            Ok(match summed {
                Some((cluster_at, summed)) => {
                    (cluster_at, Unlisted::Summed { summed, pending: (namespace.to_string(), name.to_string()) })
                }
                None => {
                    let (cluster_at, versions) = ClusterAt::load_for_filters(store, at, labels)?;
                    (cluster_at, Unlisted::FilterFields(versions))
                }
            })
        },
    )?;
    let (mut cluster_at, unlisted) = loaded?;
    steps.done("load cluster for filters; beside: unstored namespaces");
    notes.extend(cluster_at.unreadable.iter().map(|u| format!("unreadable object: {u}")));
    if cluster_at.nodes.is_empty() {
        notes.push(
            "no Node objects in the store: node capacity and shortfalls unknown (ingest `kubectl get nodes -o json`)"
                .into(),
        );
        return Ok(None);
    }
    if !cluster_at.estimated_nodes.is_empty() {
        notes.push(format!(
            "node versions observed after the failure (dump): {} — allocatable taken from them",
            cluster_at.estimated_nodes.join(", ")
        ));
    }
    notes.extend(event_only_note(cluster_at.event_only_pods.len(), cluster_at.requests_unknown.len(), &[]));
    let (events_at, unstored) = unstored?;
    notes.extend(unstored_note(events_at, &unstored));
    let unknown_capacity: Vec<&str> =
        cluster_at.nodes.iter().filter(|n| n.allocatable.is_empty()).map(|n| n.name.as_str()).collect();
    if !unknown_capacity.is_empty() {
        notes.push(format!(
            "no allocatable or capacity in the stored object of {}: their free amounts read as 0 and their \
             resource verdicts are not meaningful",
            unknown_capacity.join(", ")
        ));
    }
    // Moved, not copied: at 150,000 pods a copy and its drop cost ~0.5 s.
    let others: Vec<PodInfo> = std::mem::take(&mut cluster_at.pods)
        .into_iter()
        .filter(|p| !(p.namespace == namespace && p.name == name))
        .collect();
    let state = ClusterState::new(std::mem::take(&mut cluster_at.nodes), others);
    if !state.nodes.is_empty() {
        notes.extend(unseen_taints_note(latest, &state.nodes));
    }
    let by_node = state.by_node();
    let pods_on = |node: &str| by_node.pods_on(node).len() + unlisted.summed_pods_on(node);
    let pods_counted = state.nodes.iter().map(|n| pods_on(&n.name)).sum();
    if pod.is_none() {
        // Pods known only from events count toward the nodes too, but have
        // no object (their own note says so).
        let event_only: HashSet<&str> = cluster_at.event_only_pods.iter().map(String::as_str).collect();
        let counted_event_only: usize = state
            .nodes
            .iter()
            .map(|n| by_node.pods_on(&n.name).iter().filter(|p| event_only.contains(p.key().as_str())).count())
            .sum();
        notes.push(format!(
            "the Pod object of {namespace}/{name} is not in the store: {}",
            super::report::UNKNOWN_REQUESTS
        ));
        let stored = pods_counted - counted_event_only;
        notes.push(format!(
            "requested amounts count only the {} whose {} in the store; \
             pods of namespaces that were not dumped are missing from them",
            count(stored, "pod", "pods"),
            pick(stored, "object is", "objects are")
        ));
    }
    if pods_counted == 0 {
        notes.push("no bound Pod objects in the store at that time: requested amounts count no pods".into());
    }

    // At a FailedScheduling the pod had no nodeName (a pod with one never
    // reaches the scheduler): a version stored after its binding has the
    // node it got later, which the NodeName filter would hold against every
    // other node.
    let unbound = pod.as_ref().map(|p| PodInfo { node_name: None, ..p.clone() });
    let evaluations = unbound.as_ref().map(|p| match &unlisted {
        // `load_summed` was used only for a pod without required inter-pod
        // terms or DoNotSchedule spread constraints (`Some`).
        Unlisted::Summed { summed, .. } => evaluate_with_sums(&state, summed, p).unwrap_or_else(|| evaluate(&state, p)),
        Unlisted::FilterFields(_) => evaluate(&state, p),
    });
    steps.done("state, evaluate");
    let mut extra: Vec<String> = Vec::new();
    if let Some(p) = &pod {
        for (r, _) in p.requests.iter() {
            if !BASE_RESOURCES.contains(&r) && !extra.iter().any(|e| e == r) {
                extra.push(r.to_string());
            }
        }
    }
    let eval_of: HashMap<&str, &kdrift_rebalance::NodeEvaluation> =
        evaluations.iter().flatten().map(|e| (e.node.as_str(), e)).collect();
    let estimated_pods: HashSet<&str> =
        cluster_at.event_only_pods.iter().chain(cluster_at.estimated_pods.iter()).map(String::as_str).collect();
    let estimated_nodes: std::collections::HashSet<&str> =
        cluster_at.estimated_nodes.iter().map(String::as_str).collect();
    let mut nodes = Vec::new();
    for node in &state.nodes {
        let on_node = by_node.pods_on(&node.name);
        let mut used = by_node.usage(&node.name);
        if let Some(summed) = unlisted.summed_on(&node.name) {
            used.add(summed);
        }
        let mut resources = Vec::new();
        for r in BASE_RESOURCES.iter().copied().chain(extra.iter().map(String::as_str)) {
            let allocatable = node.allocatable.get(r);
            let requested = used.get(r);
            let percent = if allocatable > 0 { requested as f64 * 100.0 / allocatable as f64 } else { 0.0 };
            resources.push(ResourceLine {
                resource: r.to_string(),
                allocatable,
                requested,
                free: allocatable - requested,
                percent,
            });
        }
        let eval = eval_of.get(node.name.as_str()).copied();
        let fails = eval.map(|e| e.all_reasons().map(FilterFailure::message).collect()).unwrap_or_default();
        let recorded_as = eval.and_then(|e| e.first_failure()).map(|f| f.messages().join(", "));
        nodes.push(NodeLine {
            name: node.name.clone(),
            ready: node.ready,
            unschedulable: node.unschedulable,
            pods: pods_on(&node.name),
            resources,
            fails,
            recorded_as,
            estimated: estimated_nodes.contains(node.name.as_str())
                || (!estimated_pods.is_empty() && on_node.iter().any(|p| estimated_pods.contains(p.key().as_str()))),
        });
    }

    steps.done("node lines");
    let mut constraints: Vec<ConstraintLine> = Vec::new();
    let mut left = Vec::new();
    let mut shortfalls = Vec::new();
    let mut reconstructed_message = None;
    let mut matches_event = None;
    if let (Some(evals), Some(p)) = (&evaluations, &pod) {
        let mut by_reason: BTreeMap<(Plugin, String), Vec<String>> = BTreeMap::new();
        for e in evals {
            let mut passes_non_resource = true;
            for f in &e.failures {
                if f.plugin == Plugin::NodeResourcesFit {
                    continue;
                }
                passes_non_resource = false;
                for reason in f.reasons.iter().chain(f.further.iter()) {
                    let nodes = by_reason.entry((f.plugin, reason.explain())).or_default();
                    // Nodes come one at a time: a node already listed is the last
                    // one (a scan of the list was quadratic, 5,000 nodes × 5,000).
                    if nodes.last() != Some(&e.node) {
                        nodes.push(e.node.clone());
                    }
                }
            }
            if passes_non_resource {
                left.push(e.node.clone());
            }
        }
        constraints = by_reason
            .into_iter()
            .map(|((plugin, reason), nodes)| ConstraintLine { plugin: plugin.name().to_string(), reason, nodes })
            .collect();
        let shortfall_nodes: HashSet<&String> =
            if left.is_empty() { evals.iter().map(|e| &e.node).collect() } else { left.iter().collect() };
        for e in evals.iter().filter(|e| shortfall_nodes.contains(&&e.node)) {
            for reason in e.all_reasons() {
                if let FilterFailure::Insufficient(ins) = reason {
                    let free = ins.free();
                    shortfalls.push(Shortfall {
                        node: e.node.clone(),
                        resource: ins.resource.clone(),
                        requested: ins.requested,
                        free,
                        short: ins.short_by(),
                        display: [
                            format_amount(&ins.resource, ins.requested),
                            format_amount(&ins.resource, free),
                            format_amount(&ins.resource, ins.short_by()),
                        ],
                        exact_from: None,
                    });
                }
            }
        }
        let fits: Vec<&str> = evals.iter().filter(|e| e.is_feasible()).map(|e| e.node.as_str()).collect();
        let unmodelled = unmodelled_reasons(latest);
        if !unmodelled.is_empty() {
            notes.push(format!(
                "the event's {} {} not re-evaluated here (kdrift models NodeUnschedulable, NodeName, \
                 TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread and InterPodAffinity): a \
                 node the pod passes here may have failed {} at the failure",
                unmodelled.iter().map(|r| format!("\"{r}\"")).collect::<Vec<_>>().join(", "),
                pick(unmodelled.len(), "is", "are"),
                pick(unmodelled.len(), "it", "them"),
            ));
        }
        if fits.is_empty() {
            let message = fit_error_message(state.nodes.len(), evals);
            // Not comparable when the event has reasons the model cannot give.
            matches_event =
                comparable(latest).filter(|()| unmodelled.is_empty()).map(|()| same_counts(&parse(&message), latest));
            if matches_event == Some(false) {
                notes.push(format!(
                    "re-evaluating the scheduler's filters on the stored state gives \"{message}\", not the event's counts: \
                     the event may be stale (series updates lag up to 30 min) or the store misses objects"
                ));
            }
            reconstructed_message = Some(message);
        } else if comparable(latest).is_none() && unmodelled.is_empty() {
            // A binding or pre-filter error ("running PreBind plugin …",
            // "skip schedule deleting pod"): the event says no node failed.
            notes.push(format!(
                "the latest event names no node filter that failed (a binding or scheduling-queue error): on the \
                 stored state {}/{} fits on {}",
                p.namespace,
                p.name,
                fits.join(", ")
            ));
        } else if unmodelled.is_empty() {
            // The event says every node failed a filter the model evaluates.
            matches_event = Some(false);
            notes.push(format!(
                "on the stored state {}/{} fits on {}: what blocked it at the failure had changed by the time these \
                 objects were observed (e.g. a dump taken later), or the store misses objects",
                p.namespace,
                p.name,
                fits.join(", ")
            ));
        }
    }
    steps.done("constraints, shortfalls");
    let (pod_requests, requests_without_limit) = match &pod {
        Some(p) => (
            p.requests.iter().map(|(r, v)| (r.to_string(), v)).collect(),
            p.requests_without_limits().into_iter().map(|(c, r)| format!("{c}: {r}")).collect(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let state_at_failure = StateAtFailure {
        at,
        pod_known: pod.is_some(),
        spec_from,
        pod_requests,
        requests_without_limit,
        nodes,
        constraints,
        left,
        shortfalls,
        reconstructed_message,
        matches_event,
        pods_counted,
        requested_is_lower_bound: pod.is_none() || !unstored.is_empty() || !cluster_at.requests_unknown.is_empty(),
    };
    let event_only = std::mem::take(&mut cluster_at.event_only_pods);
    Ok(Some(Evaluated { state: state_at_failure, cluster: state, pod, unlisted, event_only }))
}

/// The pending pod's version at `at`: of its own uid when the events gave
/// one (a reused name's other pod has other requests), else of its name.
pub(crate) fn load_pod(
    store: &Reader,
    namespace: &str,
    name: &str,
    uid: &str,
    at: DateTime<Utc>,
) -> Result<Option<PodInfo>, AnalyzeError> {
    let rows =
        store.query_map(&sql::POD_AT, kdrift_store::params![namespace, name, at.timestamp_micros(), uid], |r| {
            r.get::<_, String>(6)
        })?;
    Ok(rows
        .into_iter()
        .next()
        .and_then(|json| serde_json::from_str::<Value>(&json).ok())
        .and_then(|v| PodInfo::from_json(&v).ok()))
}

/// The note on taints the event names (`{dedicated: db}`, 1.18–1.34
/// wordings) that no stored Node carries (`None` when every one is there):
/// the filters re-evaluated on those nodes cannot reproduce that reason, so
/// their "fits" is not the failure's. The cordon's taint counts as carried
/// by a cordoned node.
fn unseen_taints_note(latest: &FailedScheduling, nodes: &[kdrift_rebalance::NodeInfo]) -> Option<String> {
    use crate::failed_scheduling::Reason;
    use kdrift_rebalance::TaintEffect;
    // A taint that keeps pods off: its key, its value when the event gives
    // one, and an effect of NoSchedule or NoExecute (PreferNoSchedule does not).
    let carried = |key: &str, value: Option<&str>| {
        nodes.iter().any(|n| {
            n.taints.iter().any(|t| {
                t.key == key
                    && value.is_none_or(|v| t.value == v)
                    && matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute)
            }) || (key == "node.kubernetes.io/unschedulable" && n.unschedulable)
        })
    };
    let mut unseen: Vec<String> = Vec::new();
    let named =
        latest.items.iter().map(|i| (&i.reason, Some(i.count))).chain(latest.per_node.iter().map(|(_, r)| (r, None)));
    for (reason, nodes_counted) in named {
        let Reason::UntoleratedTaint { key: Some(key), value } = reason else { continue };
        let text = format!("{{{key}: {}}}", value.as_deref().unwrap_or(""));
        if carried(key, value.as_deref()) || unseen.iter().any(|u| u.starts_with(&text)) {
            continue;
        }
        unseen.push(match nodes_counted {
            Some(c) => format!("{text} (on {})", count(c as usize, "node", "nodes")),
            None => text,
        });
    }
    (!unseen.is_empty()).then(|| {
        format!(
            "the event names {} {} that no stored Node object carries: the nodes' objects were observed before \
             {} added or after {} removed, so the filters re-evaluated on them cannot show {}",
            pick(unseen.len(), "the taint", "the taints"),
            unseen.join(", "),
            pick(unseen.len(), "it was", "they were"),
            pick(unseen.len(), "it was", "they were"),
            pick(unseen.len(), "it", "them"),
        )
    })
}

fn comparable(m: &FailedScheduling) -> Option<()> {
    (!m.items.is_empty()).then_some(())
}

/// Same (count, reason) multiset, ignoring order and wording era. Taints
/// compare without their key and value (eras differ in naming them; the
/// model's wording names none) and the cordon's taint as the cordon:
/// kube-scheduler reports a cordoned node under either, by version.
fn same_counts(a: &FailedScheduling, b: &FailedScheduling) -> bool {
    use crate::failed_scheduling::Reason;
    let key = |m: &FailedScheduling| {
        let mut sums: BTreeMap<String, u64> = BTreeMap::new();
        for i in &m.items {
            let text = match &i.reason {
                Reason::UntoleratedTaint { key: Some(k), .. } if k == "node.kubernetes.io/unschedulable" => {
                    Reason::Unschedulable.message()
                }
                Reason::UntoleratedTaint { .. } => Reason::UntoleratedTaint { key: None, value: None }.message(),
                other => other.message(),
            };
            *sums.entry(text).or_default() += u64::from(i.count);
        }
        sums
    };
    key(a) == key(b)
}

/// The reasons of the event (pre-filter and per-node) that the shared
/// scheduler model does not evaluate (volumes, PVCs, node
/// conditions, dynamic resources, unknown texts), in scheduler wording, once each.
fn unmodelled_reasons(m: &FailedScheduling) -> Vec<String> {
    use crate::failed_scheduling::Reason as R;
    let modelled = |r: &R| {
        matches!(
            r,
            R::Insufficient { .. }
                | R::TooManyPods
                | R::Unschedulable
                | R::NodeName
                | R::UntoleratedTaint { .. }
                | R::NodeAffinity
                | R::HostPorts
                | R::PodAffinity
                | R::PodAntiAffinity
                | R::ExistingPodsAntiAffinity
                | R::PodAffinityOrAntiAffinity
                | R::TopologySpread { .. }
        )
    };
    let mut out: Vec<String> = Vec::new();
    let reasons = m.prefilter.iter().chain(m.items.iter().map(|i| &i.reason)).chain(m.per_node.iter().map(|(_, r)| r));
    for r in reasons.filter(|r| !modelled(r)) {
        let text = r.message();
        if !out.contains(&text) {
            out.push(text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use kdrift_rebalance::{NodeInfo, ResourceList, Taint, TaintEffect};

    use super::{same_counts, unmodelled_reasons, unseen_taints_note};
    use crate::failed_scheduling::parse;

    fn node(taints: Vec<Taint>, cordoned: bool) -> NodeInfo {
        let mut n = NodeInfo::new("n1", ResourceList::default());
        n.taints = taints;
        n.unschedulable = cordoned;
        n
    }

    #[test]
    fn a_taint_the_event_names_is_carried_only_with_its_value_and_a_blocking_effect() {
        let event = parse("0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: db}.");
        let with = |t: Taint| unseen_taints_note(&event, &[node(vec![t], false)]);
        assert_eq!(with(Taint::new("dedicated", "db", TaintEffect::NoSchedule)), None);
        assert_eq!(with(Taint::new("dedicated", "db", TaintEffect::NoExecute)), None);
        // Another value, or an effect that keeps no pod off: not the event's taint.
        for other in [
            Taint::new("dedicated", "web", TaintEffect::NoSchedule),
            Taint::new("dedicated", "db", TaintEffect::PreferNoSchedule),
        ] {
            let note = with(other.clone()).unwrap_or_else(|| panic!("{other:?}: no note"));
            assert!(note.starts_with("the event names the taint {dedicated: db} (on 1 node) that no stored"), "{note}");
        }
        // The cordon's taint is carried by a cordoned node.
        let cordon =
            parse("0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unschedulable: }.");
        assert_eq!(unseen_taints_note(&cordon, &[node(Vec::new(), true)]), None);
    }

    #[test]
    fn counts_compare_taints_without_their_names_and_the_cordon_taint_as_the_cordon() {
        // The model names no taint; kube-scheduler 1.18–1.34 names one.
        let event = parse("0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: db}.");
        let model = parse("0/2 nodes are available: 2 node(s) had untolerated taint(s).");
        assert!(same_counts(&event, &model));
        // Two taints of the event, one line of the model.
        let two = parse(
            "0/2 nodes are available: 1 node(s) had untolerated taint {a: }, 1 node(s) had untolerated taint {b: }.",
        );
        assert!(same_counts(&two, &model));
        let cordon =
            parse("0/2 nodes are available: 2 node(s) had untolerated taint {node.kubernetes.io/unschedulable: }.");
        assert!(same_counts(&cordon, &parse("0/2 nodes are available: 2 node(s) were unschedulable.")));
        assert!(!same_counts(&event, &parse("0/2 nodes are available: 2 Insufficient cpu.")));
    }

    #[test]
    fn reasons_outside_the_model_are_named_once() {
        let m = parse(
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had volume node affinity conflict. preemption: \
             0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        );
        assert_eq!(
            unmodelled_reasons(&m),
            ["node(s) didn't match PersistentVolume's node affinity"],
            "current wording"
        );
        let pvc = parse("0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.");
        assert_eq!(unmodelled_reasons(&pvc).len(), 1, "{:?}", unmodelled_reasons(&pvc));
        assert!(unmodelled_reasons(&parse("0/3 nodes are available: 3 Insufficient cpu.")).is_empty());
        let spread = "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing \
                      required label), 2 node(s) didn't match pod topology spread constraints.";
        assert!(unmodelled_reasons(&parse(spread)).is_empty(), "PodTopologySpread is modelled");
    }
}
