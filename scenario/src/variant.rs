//! The memory/taint variant of the demo story: the same two days up to
//! day 2, 03:00, then
//!
//! 1. 03:30 — the `media/backup` CronJob is edited: `restic prune` gets a
//!    3Gi memory request and no CPU request (generation 2);
//! 2. 03:40 — `kubectl taint nodes node-2 dedicated=gpu:NoSchedule`;
//! 3. 04:00 — the backup pod (required pod affinity `app=plex`) cannot be
//!    placed: node-1, plex's node, has 4877Mi of 7901Mi memory requested,
//!    3024Mi free, 48Mi (50331648 bytes) short of the 3Gi; node-2 has the
//!    taint; node-3..5 have no plex: `0/5 nodes are available: 1 Insufficient
//!    memory, 1 node(s) had untolerated taint {dedicated: gpu}, 3 node(s)
//!    didn't match pod affinity rules. …`. It stays Pending until the Job's
//!    `activeDeadlineSeconds` (5400) expires at 05:30 and the Job controller
//!    deletes it;
//! 4. 07:00 — queue-worker is scaled back from 14 to 4 replicas: the
//!    ReplicaSet controller deletes its 4 pods on node-1 first (the node
//!    with the most of them), so node-1 then has 4365Mi requested and a
//!    dump taken afterwards alone would show room for the 3Gi.
//!
//! The demo's own records are untouched: this story only adds to the shared
//! part ([`super::story::until_backup`]), and the numbers above are asserted
//! by the tests from the emitted objects.

use std::cmp::Reverse;
use std::rc::Rc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::catalog::{ContainerDef, Qos};
use super::controllers::template_json;
use super::world::{at, ms, World};
use super::{backup, story, ObjectChange, Scenario};

/// Memory request of the edited backup container, MiB (3Gi).
const BACKUP_MEM_MI: i64 = 3072;
/// The taint on node-2 (key, value, effect).
const TAINT: (&str, &str, &str) = ("dedicated", "gpu", "NoSchedule");
/// Index of the tainted node (node-2).
const TAINTED: usize = 1;
/// queue-worker's day-time replicas, restored at 07:00.
const SCALE_DOWN: (&str, u32) = ("queue-worker", 4);
/// One MiB in bytes.
const MI: i64 = 1024 * 1024;

/// The variant's scenario and what it adds to the demo's facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryTaint {
    /// Records and the common facts (`usage_at_failure` is CPU; the pending
    /// pod requests 0 millicores and 3072 MiB).
    pub scenario: Scenario,
    /// The memory, taint and scale-down facts.
    pub facts: MemoryTaintFacts,
}

/// The expected answers of the memory/taint variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryTaintFacts {
    /// The node plex runs on (`node-1`): the only node the pod affinity leaves.
    pub pinned_node: String,
    /// Its allocatable memory, bytes.
    pub allocatable_memory_bytes: i64,
    /// Memory requested on it by non-terminal pods at the failure, bytes.
    pub requested_memory_bytes_at_failure: i64,
    /// The pending pod's memory request, bytes (3Gi).
    pub pending_pod_memory_request_bytes: i64,
    /// requested + request − allocatable at the failure, bytes (> 0).
    pub memory_shortfall_bytes: i64,
    /// Memory requested on the pinned node at the end (after the scale-down), bytes.
    pub requested_memory_bytes_at_end: i64,
    /// When the CronJob's template was edited (generation 2).
    pub cronjob_edited_at: DateTime<Utc>,
    /// The tainted node (`node-2`).
    pub tainted_node: String,
    /// Taint key (`dedicated`).
    pub taint_key: String,
    /// Taint value (`gpu`).
    pub taint_value: String,
    /// Taint effect (`NoSchedule`).
    pub taint_effect: String,
    /// When the taint was set.
    pub tainted_at: DateTime<Utc>,
    /// `namespace/name` of the Deployment scaled down.
    pub scaled_down: String,
    /// Replicas before and after.
    pub scaled_down_replicas: (u32, u32),
    /// When its Deployment was scaled down.
    pub scale_down_at: DateTime<Utc>,
    /// Its pods deleted from the pinned node (names).
    pub deleted_from_pinned_node: Vec<String>,
    /// Every pod the scale-down deleted (names).
    pub deleted_pods: Vec<String>,
}

/// The backup container after the edit: 3Gi memory, no CPU request.
fn memory_container() -> ContainerDef {
    ContainerDef { mem_mi: BACKUP_MEM_MI, cpu_m: 0, qos: Qos::Burstable, ..backup::container() }
}

/// Generates the variant for `seed` (identifiers only, as for the demo).
pub fn memory_taint(seed: u64) -> MemoryTaint {
    let mut night = story::until_backup(seed);
    let mut cronjob = night.previous.cronjob.clone();

    let edited_at = at(2026, 11, 28, 3, 30, 0);
    cronjob.generation = 2;
    let edited = backup::pod_template(&night.previous.job_name, "", memory_container());
    let obj = cronjob.render(&template_json(&edited, false));
    night.w.rec.push(edited_at, ObjectChange::Modified, obj);

    let tainted_at = at(2026, 11, 28, 3, 40, 0);
    night.w.nodes[TAINTED].taint = Some(TAINT);
    let obj = night.w.nodes[TAINTED].render();
    night.w.rec.push(tainted_at, ObjectChange::Modified, obj);

    let b = backup::run_day2(&mut night.w, at(2026, 11, 28, 4, 0, 0), cronjob, memory_container());
    let pinned = night.w.pods.iter().find(|p| p.occupies() && p.template.app == "plex").and_then(|p| p.node);
    let pinned = pinned.map_or(0, |(n, _)| n);
    let view = b.usage.get(pinned);
    let (alloc, used) = view.map_or((0, 0), |v| (v.mem_alloc_mi * MI, v.used.mem_mi * MI));

    let scale_down_at = at(2026, 11, 28, 7, 0, 0);
    let from = story::deployment_index(&night.w, SCALE_DOWN.0).map_or(0, |d| night.w.deployments[d].def.replicas);
    let deleted = scale_down(&mut night.w, SCALE_DOWN.0, SCALE_DOWN.1, scale_down_at);
    let end_used = night.w.node_views().get(pinned).map_or(0, |v| v.used.mem_mi * MI);
    let namespace = story::deployment_index(&night.w, SCALE_DOWN.0)
        .map_or(String::new(), |d| night.w.deployments[d].def.namespace.to_string());
    let node_name = night.w.nodes[pinned].def.name;
    let facts = MemoryTaintFacts {
        pinned_node: node_name.to_string(),
        allocatable_memory_bytes: alloc,
        requested_memory_bytes_at_failure: used,
        pending_pod_memory_request_bytes: BACKUP_MEM_MI * MI,
        memory_shortfall_bytes: used + BACKUP_MEM_MI * MI - alloc,
        requested_memory_bytes_at_end: end_used,
        cronjob_edited_at: edited_at,
        tainted_node: night.w.nodes[TAINTED].def.name.to_string(),
        taint_key: TAINT.0.into(),
        taint_value: TAINT.1.into(),
        taint_effect: TAINT.2.into(),
        tainted_at,
        scaled_down: format!("{namespace}/{}", SCALE_DOWN.0),
        scaled_down_replicas: (from, SCALE_DOWN.1),
        scale_down_at,
        deleted_from_pinned_node: deleted.iter().filter(|(_, n)| *n == node_name).map(|(p, _)| p.clone()).collect(),
        deleted_pods: deleted.into_iter().map(|(p, _)| p).collect(),
    };
    let (records, common) = story::finish(night, b);
    MemoryTaint { scenario: Scenario { records, facts: common }, facts }
}

/// Scales Deployment `name` down to `replicas` at `t`; the ReplicaSet
/// controller deletes the surplus pods in the order of its ranking
/// (`ActivePodsWithRanks`, all pods Running and Ready here): pods on nodes
/// holding more of its pods first, then the shorter ready time on a log2
/// scale (LogarithmicScaleDown), then the newer. Returns (pod, node) of
/// each deleted pod.
fn scale_down(w: &mut World, name: &str, replicas: u32, t: DateTime<Utc>) -> Vec<(String, &'static str)> {
    let Some(d) = story::deployment_index(w, name) else { return Vec::new() };
    let Some(rs_idx) = w.deployments[d].sets.len().checked_sub(1) else { return Vec::new() };
    let from = w.deployments[d].def.replicas;
    w.deployments[d].def.replicas = replicas;
    w.deployments[d].generation += 1;
    w.deployments[d].sets[rs_idx].replicas = replicas;
    let rs_name = w.deployments[d].sets[rs_idx].name.clone();
    let template = Rc::clone(&w.deployments[d].sets[rs_idx].template);
    let obj = w.deployments[d].render();
    w.rec.push(t, ObjectChange::Modified, obj);
    story::scaling_event(w, d, t + ms(10), format!("Scaled down replica set {rs_name} to {replicas} from {from}"));
    let obj = w.deployments[d].render_rs(rs_idx);
    w.rec.push(t + ms(15), ObjectChange::Modified, obj);

    let mine: Vec<usize> =
        (0..w.pods.len()).filter(|&p| w.pods[p].occupies() && Rc::ptr_eq(&w.pods[p].template, &template)).collect();
    let colocated =
        |p: usize| mine.iter().filter(|&&q| w.pods[q].node.map(|n| n.0) == w.pods[p].node.map(|n| n.0)).count();
    let ready_log2 = |p: usize| {
        let secs = w.pods[p].ready_since.map_or(0, |r| (t - r).num_seconds().max(1));
        63 - secs.leading_zeros()
    };
    let mut ranked = mine.clone();
    ranked.sort_by_key(|&p| (Reverse(colocated(p)), ready_log2(p), Reverse(w.pods[p].created), w.pods[p].name.clone()));
    let surplus = from.saturating_sub(replicas) as usize;
    let mut deleted = Vec::new();
    for (i, p) in ranked.into_iter().take(surplus).enumerate() {
        let node = w.pods[p].node.map_or("", |n| n.1);
        deleted.push((w.pods[p].name.clone(), node));
        w.controller_delete(p, t + ms(20 + 4 * i as i64));
    }
    deleted
}
