//! Shared fixtures for the upstream-vector tests of the pod-state plugins
//! (PodLifeTime, RemoveFailedPods, RemovePodsHavingTooManyRestarts): the
//! equivalents of descheduler's `test.BuildTestPod` / `BuildTestNode`, the
//! test clock, and one case's run through the whole planner.

use chrono::{DateTime, Duration, TimeZone, Utc};

use crate::model::pod::{ContainerInfo, ContainerKind, ContainerStatus, OwnerRef, PodInfo, PodStatusInfo};
use crate::model::resources::ResourceList;
use crate::planner::tests::{node, now};
use crate::planner::{plan, Plan, PlanOptions, Snapshot};
use crate::policy::{DefaultEvictorArgs, PluginArgs, PluginConfig, Policy, Profile};

/// `olderPodCreationTime`: 2009-11-10 23:00 UTC.
pub(crate) fn older() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2009, 11, 10, 23, 0, 0).single().expect("valid time")
}

/// `now − secs` seconds.
pub(crate) fn ago(secs: i64) -> DateTime<Utc> {
    now() - Duration::seconds(secs)
}

/// `test.BuildTestPod(name, cpu, memory, node)`: namespace `default`, a UID,
/// one container requesting `cpu` millicores and `memory` bytes, no phase,
/// no owner, no `creationTimestamp` (Go's zero time).
pub(crate) fn build_pod(name: &str, cpu: i64, memory: i64, node: &str) -> PodInfo {
    let mut p = PodInfo::new("default", name);
    p.node_name = Some(node.to_string());
    p.uid = Some(format!("uid-{name}"));
    let req = ResourceList::from_pairs(&[("cpu", cpu), ("memory", memory)]);
    p.containers = vec![ContainerInfo::new("c", ContainerKind::App, req)];
    p.refresh_derived();
    p
}

/// `test.GetReplicaSetOwnerRefList()` / `SetRSOwnerRef`.
pub(crate) fn rs_owner() -> OwnerRef {
    OwnerRef {
        api_version: "v1".into(),
        kind: "ReplicaSet".into(),
        name: "replicaset-1".into(),
        uid: "rs-uid".into(),
        controller: false,
    }
}

/// An owner of `kind` (`name` `<kind>1`).
pub(crate) fn owner_of(kind: &str) -> OwnerRef {
    OwnerRef {
        api_version: "v1".into(),
        kind: kind.into(),
        name: format!("{}1", kind.to_lowercase()),
        uid: format!("{kind}-uid"),
        controller: true,
    }
}

/// The pod's status, created when unset.
pub(crate) fn status_mut(p: &mut PodInfo) -> &mut PodStatusInfo {
    p.status.get_or_insert_with(Default::default)
}

/// A container status (named `c<i>` by the caller).
pub(crate) fn cs(name: &str) -> ContainerStatus {
    ContainerStatus { name: name.to_string(), ..Default::default() }
}

/// One vector: nodes, pods, the plugin's args, DefaultEvictor args, the
/// cycle limits, and what upstream expects.
pub(crate) struct Case {
    pub(crate) name: &'static str,
    pub(crate) nodes: Vec<crate::model::node::NodeInfo>,
    pub(crate) pods: Vec<PodInfo>,
    pub(crate) args: PluginArgs,
    pub(crate) evictor: DefaultEvictorArgs,
    pub(crate) max_per_node: Option<u32>,
    pub(crate) max_per_namespace: Option<u32>,
    pub(crate) max_total: Option<u32>,
    /// How many evictions upstream expects.
    pub(crate) count: usize,
    /// The pods upstream names (all must be evicted), when it names them.
    pub(crate) evicted: Vec<&'static str>,
    /// Why the case is not ported yet (it stays counted).
    pub(crate) skip: Option<&'static str>,
}

impl Case {
    /// A case with no limits, default DefaultEvictor args, nothing expected.
    pub(crate) fn new(name: &'static str, args: PluginArgs) -> Case {
        Case {
            name,
            nodes: Vec::new(),
            pods: Vec::new(),
            args,
            evictor: DefaultEvictorArgs::default(),
            max_per_node: None,
            max_per_namespace: None,
            max_total: None,
            count: 0,
            evicted: Vec::new(),
            skip: None,
        }
    }

    /// The policy: one profile `test` with DefaultEvictor and the plugin
    /// enabled at Deschedule, and the case's limits.
    pub(crate) fn policy(&self, plugin: &str) -> Policy {
        let mut profile = Profile { name: "test".into(), ..Default::default() };
        profile.plugin_config = vec![
            PluginConfig {
                name: "DefaultEvictor".into(),
                args: PluginArgs::DefaultEvictor(Box::new(self.evictor.clone())),
            },
            PluginConfig { name: plugin.into(), args: self.args.clone() },
        ];
        profile.plugins.deschedule.enabled = vec![plugin.into()];
        Policy {
            profiles: vec![profile],
            max_no_of_pods_to_evict_per_node: self.max_per_node,
            max_no_of_pods_to_evict_per_namespace: self.max_per_namespace,
            max_no_of_pods_to_evict_total: self.max_total,
            ..Default::default()
        }
    }

    /// Plans the case. descheduler skips a cycle with fewer than two nodes
    /// while its plugin tests call `Deschedule` directly with one: an empty,
    /// cordoned extra node `zz-spare` is added when the case has only one
    /// (cordoned nodes count toward the two; it fits no pod, so nodeFit
    /// still finds no other node, as upstream's single-node cases do).
    pub(crate) fn plan(&self, plugin: &str) -> Plan {
        let mut nodes = self.nodes.clone();
        if nodes.len() < 2 {
            let mut spare = node("zz-spare", 2000, 3000, 10);
            spare.unschedulable = true;
            nodes.push(spare);
        }
        let snapshot = Snapshot::new(nodes, self.pods.clone(), now());
        plan(&snapshot, &self.policy(plugin), &PlanOptions::default())
    }

    /// `None` when the plan matches upstream, else what differs.
    pub(crate) fn check(&self, plugin: &str) -> Option<String> {
        let p = self.plan(plugin);
        let got: Vec<String> = p.evictions().map(|e| e.pod.name.clone()).collect();
        if let Some(a) = &p.aborted {
            return Some(format!("{}: aborted: {a}", self.name));
        }
        let missing: Vec<&&str> = self.evicted.iter().filter(|n| !got.iter().any(|g| g == *n)).collect();
        if got.len() != self.count || !missing.is_empty() {
            return Some(format!(
                "{}: expected {} evictions {:?}, got {} {:?}\nskips: {:#?}",
                self.name,
                self.count,
                self.evicted,
                got.len(),
                got,
                p.runs.iter().flat_map(|r| r.skipped.iter().map(|s| (&s.pod.name, &s.message))).collect::<Vec<_>>()
            ));
        }
        None
    }
}

/// Runs every case of `plugin`, prints `upstream vectors <plugin>: N ported,
/// M passed, K skipped`, and fails listing every ported case that failed.
pub(crate) fn run_vectors(plugin: &str, cases: &[Case]) {
    let ported: Vec<&Case> = cases.iter().filter(|c| c.skip.is_none()).collect();
    let failures: Vec<String> = ported.iter().filter_map(|c| c.check(plugin)).collect();
    println!(
        "upstream vectors {plugin}: {} ported, {} passed, {} skipped",
        ported.len(),
        ported.len() - failures.len(),
        cases.len() - ported.len()
    );
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
}

/// A validation vector: the args and upstream's message (`None`: valid).
pub(crate) fn check_validation(plugin: &str, cases: &[(&str, Result<(), String>, Option<&str>)]) {
    let mut failures = Vec::new();
    for (name, got, want) in cases {
        let got = got.as_ref().err().map(String::as_str);
        if got != *want {
            failures.push(format!("{name}: expected {want:?}, got {got:?}"));
        }
    }
    println!(
        "upstream vectors {plugin} validation: {} ported, {} passed, 0 skipped",
        cases.len(),
        cases.len() - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
