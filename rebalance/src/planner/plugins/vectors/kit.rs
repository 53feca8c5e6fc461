//! Builders for the ported upstream unit-test vectors of the Balance plugins
//! (descheduler's `test/test_utils.go` fixtures) and their tally line.

use crate::model::node::{NodeInfo, Taint, TaintEffect};
use crate::model::pod::{ContainerInfo, ContainerKind, OwnerRef, PodInfo};
use crate::model::resources::ResourceList;
use crate::planner::tests::now;
use crate::planner::{plan, Plan, PlanOptions, Snapshot};
use crate::policy::{DefaultEvictorArgs, PluginArgs, PluginConfig, Policy, Profile};

/// `test.BuildTestNode(name, millicpu, mem, pods)`: Ready, no labels.
pub(crate) fn bnode(name: &str, cpu: i64, memory: i64, pods: i64) -> NodeInfo {
    crate::planner::tests::node(name, cpu, memory, pods)
}

/// `test.BuildTestPod(name, cpu, mem, node)`: namespace `default`, one
/// container (image `""`) requesting cpu and memory (entries kept even at
/// 0), no owner.
pub(crate) fn bpod(name: &str, cpu: i64, memory: i64, node: &str) -> PodInfo {
    let mut p = PodInfo::new("default", name);
    if !node.is_empty() {
        p.node_name = Some(node.into());
    }
    p.uid = Some(format!("uid-{name}"));
    p.creation_timestamp = Some(now() - chrono::Duration::hours(1));
    let req = ResourceList::from_pairs(&[("cpu", cpu), ("memory", memory)]);
    p.containers = vec![ContainerInfo::new("c", ContainerKind::App, req)];
    p.images = vec![String::new()];
    p.refresh_derived();
    p
}

/// An ownerRef of `kind`/`name`.
pub(crate) fn owned(kind: &str, name: &str) -> OwnerRef {
    OwnerRef {
        api_version: "v1".into(),
        kind: kind.into(),
        name: name.into(),
        uid: format!("{kind}-{name}"),
        controller: true,
    }
}

/// `test.SetRSOwnerRef`: ReplicaSet `replicaset-1`.
pub(crate) fn rs(mut p: PodInfo) -> PodInfo {
    p.owners = vec![owned("ReplicaSet", "replicaset-1")];
    p
}

/// `test.SetDSOwnerRef`: a DaemonSet.
pub(crate) fn ds(mut p: PodInfo) -> PodInfo {
    p.owners = vec![owned("DaemonSet", "")];
    p
}

/// `test.SetNormalOwnerRef`: an ownerRef of kind `Pod`.
pub(crate) fn normal(mut p: PodInfo) -> PodInfo {
    p.owners = vec![owned("Pod", "")];
    p
}

/// `test.SetNodeUnschedulable`.
pub(crate) fn cordoned(mut n: NodeInfo) -> NodeInfo {
    n.unschedulable = true;
    n
}

/// A node with one `key=value:NoSchedule` taint.
pub(crate) fn tainted(mut n: NodeInfo, key: &str, value: &str) -> NodeInfo {
    n.taints.push(Taint::new(key, value, TaintEffect::NoSchedule));
    n
}

/// The policy of one profile `test` running `plugin` with `args` at Balance,
/// with `evictor` as its DefaultEvictor args.
pub(crate) fn policy(plugin: &str, args: PluginArgs, evictor: DefaultEvictorArgs) -> Policy {
    let mut profile = Profile { name: "test".into(), ..Default::default() };
    profile.plugin_config = vec![
        PluginConfig { name: "DefaultEvictor".into(), args: PluginArgs::DefaultEvictor(Box::new(evictor)) },
        PluginConfig { name: plugin.into(), args },
    ];
    profile.plugins.balance.enabled = vec![plugin.into()];
    Policy { profiles: vec![profile], ..Default::default() }
}

/// Plans `nodes` + `pods` under `policy`.
pub(crate) fn plan_of(nodes: Vec<NodeInfo>, pods: Vec<PodInfo>, policy: &Policy) -> Plan {
    plan(&Snapshot::new(nodes, pods, now()), policy, &PlanOptions::default())
}

/// The evicted pods' names, in eviction order.
pub(crate) fn evicted(plan: &Plan) -> Vec<String> {
    plan.evictions().map(|e| e.pod.name.clone()).collect()
}

/// Counts ported, passed and skipped vectors and prints upstream's tally line.
#[derive(Default)]
pub(crate) struct Tally {
    ported: usize,
    passed: usize,
    skipped: usize,
    failures: Vec<String>,
}

impl Tally {
    /// A skipped vector (kept so the count is visible).
    pub(crate) fn skip(&mut self, _name: &str, _why: &str) {
        self.skipped += 1;
    }

    /// A ported vector: `Err(detail)` when it failed.
    pub(crate) fn check(&mut self, name: &str, outcome: Result<(), String>) {
        self.ported += 1;
        match outcome {
            Ok(()) => self.passed += 1,
            Err(e) => self.failures.push(format!("{name}: {e}")),
        }
    }

    /// Prints `upstream vectors <what>: N ported, M passed, K skipped` and
    /// fails on any failure.
    pub(crate) fn finish(self, what: &str) {
        println!("upstream vectors {what}: {} ported, {} passed, {} skipped", self.ported, self.passed, self.skipped);
        assert!(self.failures.is_empty(), "failed vectors:\n{}", self.failures.join("\n"));
    }
}

/// `Ok` when `plan` evicted `count` pods and, if `names` is non-empty,
/// exactly those (in any order).
pub(crate) fn expect(plan: &Plan, count: usize, names: &[&str]) -> Result<(), String> {
    let got = evicted(plan);
    let mut sorted = got.clone();
    sorted.sort();
    let mut want: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    want.sort();
    if got.len() != count || (!names.is_empty() && sorted != want) {
        let notes: Vec<&String> = plan.runs.iter().flat_map(|r| r.notes.iter()).collect();
        return Err(format!(
            "want {count} {want:?}, got {} {got:?} (notes {notes:?}, aborted {:?})",
            got.len(),
            plan.aborted
        ));
    }
    Ok(())
}
