//! A generated cluster where every descheduler v0.36 plugin has something
//! to evict, and the policy enabling all ten (`examples/all-plugins-policy.yaml`,
//! kept equal by a test): for `cargo bench` (whole-policy planning at 500 /
//! 2,000 / 5,000 nodes) and the tests that every plugin's decisions show.
//!
//! It starts from [`crate::bench_cluster`] (30 pods per node, 10 % hot and
//! 30 % cold nodes, ReplicaSets of 10 pods placed node by node) and adds,
//! deterministically by position:
//!
//! - ReplicaSets spread: app pod k belongs to set `k mod sets`, so a set's
//!   10 pods run on 10 nodes, with an image each (`registry.example/APP:1`);
//!   on every 40th node (the 12th, 52nd, …) three pods of one extra set
//!   `dup-N` side by side (RemoveDuplicates);
//! - every 50th node (the 8th, 58th, …) tainted `dedicated=infra:NoSchedule`
//!   after its pods were bound (RemovePodsViolatingNodeTaints);
//! - every 97th app pod requiring a zone other than its node's
//!   (RemovePodsViolatingNodeAffinity);
//! - every 101st app pod with required anti-affinity (hostname) to the app
//!   of the pod before it on the same node (RemovePodsViolatingInterPodAntiAffinity);
//! - every 89th app pod created 30 days before `now` (PodLifeTime at 14 days);
//! - every 83rd app pod with 150 container restarts
//!   (RemovePodsHavingTooManyRestarts at 100);
//! - one Failed Job pod per 20 nodes, 2 h old, exit code 1 (RemoveFailedPods);
//! - on every 40th node (the 22nd, 62nd, …) three pods of one spread group
//!   with a zone constraint (maxSkew 1, DoNotSchedule) side by side: skew 3
//!   (RemovePodsViolatingTopologySpreadConstraint);
//! - the cold nodes are what HighNodeUtilization (thresholds 20 %) drains and
//!   the hot nodes what LowNodeUtilization (50 % targets) relieves.

use chrono::Duration;

use kdrift_rebalance::{
    ContainerInfo, ContainerKind, ContainerStatus, LabelSelector, NodeAffinity, NodeSelectorTerm, OwnerRef,
    PodAffinityRules, PodAffinityTerm, PodInfo, PodPhase, PodStatusInfo, Policy, PolicyError, Requirement,
    ResourceList, SelectorOperator, Taint, TaintEffect, TopologySpreadConstraint, CPU, MEMORY,
};

use crate::bench_cluster::{generate, BenchCluster};

/// The all-plugins policy (`examples/all-plugins-policy.yaml`).
pub const ALL_PLUGINS_POLICY: &str = include_str!("../../examples/all-plugins-policy.yaml");

/// The policy enabling all ten v0.36 plugins ([`ALL_PLUGINS_POLICY`]).
pub fn all_plugins_policy() -> Result<Policy, PolicyError> {
    Policy::from_yaml(ALL_PLUGINS_POLICY)
}

const ZONE: &str = "topology.kubernetes.io/zone";
const HOST: &str = "kubernetes.io/hostname";

/// Generates the cluster (see the module docs): `nodes` nodes, about 30
/// pods each, deterministic in `(nodes, seed)`.
pub fn whole_policy_cluster(nodes: usize, seed: u64) -> BenchCluster {
    let mut c = generate(nodes, seed);
    let now = c.snapshot.now;
    let zone_of: Vec<String> =
        c.snapshot.nodes.iter().map(|n| n.labels.get(ZONE).cloned().unwrap_or_default()).collect();
    for (i, n) in c.snapshot.nodes.iter_mut().enumerate() {
        if i % 50 == 7 {
            n.taints.push(Taint::new("dedicated", "infra", TaintEffect::NoSchedule));
        }
    }
    let node_index = |name: &str| name.strip_prefix("node-").and_then(|s| s.parse::<usize>().ok()).unwrap_or(0);
    let app_pods = c.snapshot.pods.iter().filter(|p| p.namespace != "kube-system").count();
    let sets = (app_pods / 10).max(1);
    let mut k = 0usize;
    let mut previous: Option<(String, String, String)> = None;
    // Position of the pod among its node's app pods.
    let mut pos = 0usize;
    for p in c.snapshot.pods.iter_mut() {
        let node = p.node_name.clone().unwrap_or_default();
        if p.namespace == "kube-system" {
            p.images = vec!["registry.example/node-agent:1".to_string()];
            previous = None;
            continue;
        }
        // ReplicaSets spread: pod k belongs to set k mod sets, so a set's 10
        // pods sit on 10 different nodes, as the scheduler spreads them.
        let n = node_index(&node);
        pos = if previous.as_ref().is_some_and(|(pn, _, _)| *pn == node) { pos + 1 } else { 0 };
        let mut app = format!("app-{:05}", k % sets);
        p.namespace = format!("ns-{:02}", (k % sets) % 50);
        if n % 40 == 11 && (3..6).contains(&pos) {
            app = format!("dup-{n:05}");
            p.namespace = "ns-dup".to_string();
        }
        p.owners[0].name = app.clone();
        p.owners[0].uid = format!("uid-ReplicaSet-{app}");
        p.labels.insert("app".to_string(), app.clone());
        p.images = vec![format!("registry.example/{app}:1")];
        let zone = &zone_of[n.min(zone_of.len().saturating_sub(1))];
        if k % 97 == 13 {
            let other = ["zone-0", "zone-1", "zone-2"].into_iter().find(|z| z != zone).unwrap_or("zone-0");
            p.affinity.node_affinity = NodeAffinity {
                required: Some(vec![NodeSelectorTerm {
                    match_expressions: vec![Requirement {
                        key: ZONE.to_string(),
                        operator: SelectorOperator::In,
                        values: vec![other.to_string()],
                    }],
                    match_fields: Vec::new(),
                }]),
                preferred: Vec::new(),
            };
        }
        if let Some((_, prev_app, prev_ns)) = previous.as_ref().filter(|(pn, _, _)| *pn == node && k % 101 == 17) {
            p.affinity.pod_anti_affinity = PodAffinityRules {
                required: vec![PodAffinityTerm {
                    label_selector: Some(LabelSelector::from_labels(&[("app", prev_app.as_str())])),
                    namespaces: vec![prev_ns.clone()],
                    namespace_selector: None,
                    topology_key: HOST.to_string(),
                }],
                preferred: Vec::new(),
            };
        }
        if k % 89 == 5 {
            p.creation_timestamp = Some(now - Duration::days(30));
        }
        if k % 83 == 3 {
            let status = p.status.get_or_insert_with(|| Box::new(PodStatusInfo::default()));
            status.containers =
                vec![ContainerStatus { name: "main".to_string(), restart_count: 150, ..Default::default() }];
        }
        // Three pods of one spread group on one node of one zone: skew 3.
        if n % 40 == 21 && (6..9).contains(&pos) {
            let group = format!("spread-{n:05}");
            p.namespace = "ns-spread".to_string();
            p.labels.insert("spread".to_string(), group.clone());
            p.rare.topology_spread_constraints = vec![TopologySpreadConstraint {
                max_skew: 1,
                topology_key: ZONE.to_string(),
                when_unsatisfiable: "DoNotSchedule".to_string(),
                label_selector: Some(LabelSelector::from_labels(&[("spread", group.as_str())])),
                ..Default::default()
            }];
        }
        p.refresh_derived();
        previous = Some((node, app, p.namespace.clone()));
        k += 1;
    }
    for j in 0..nodes.div_ceil(20) {
        let node = format!("node-{:05}", (j * 20 + 3).min(nodes.saturating_sub(1)));
        let mut p = PodInfo::new("batch", &format!("report-{j:05}-x7k2p"));
        p.uid = Some(format!("uid-failed-{j}"));
        p.owners = vec![OwnerRef {
            api_version: "batch/v1".to_string(),
            kind: "Job".to_string(),
            name: format!("report-{j:05}"),
            uid: format!("uid-job-{j}"),
            controller: true,
        }];
        p.labels.insert("app".to_string(), "report".to_string());
        p.images = vec!["registry.example/report:1".to_string()];
        let req = ResourceList::from_pairs(&[(CPU, 100), (MEMORY, 128 * 1024 * 1024)]);
        p.containers = vec![ContainerInfo::new("main", ContainerKind::App, req)];
        p.node_name = Some(node);
        p.phase = Some(PodPhase::Failed);
        p.creation_timestamp = Some(now - Duration::hours(2));
        p.start_time = Some(now - Duration::hours(2));
        p.status = Some(Box::new(PodStatusInfo {
            reason: None,
            containers: vec![ContainerStatus {
                name: "main".to_string(),
                terminated_reason: Some("Error".to_string()),
                terminated_exit_code: Some(1),
                ..Default::default()
            }],
            ..Default::default()
        }));
        p.refresh_derived();
        c.snapshot.pods.push(p);
    }
    c
}
