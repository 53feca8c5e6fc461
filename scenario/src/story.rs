//! The timeline: bootstrap, drain #1, the day-1 backup, drain #2, the 03:00
//! rollouts, the day-2 backup that stays Pending. Each step calls the node
//! and pod lifecycles; this file only decides *when* and *what*.

use std::rc::Rc;

use chrono::{DateTime, Duration, Utc};

use super::backup;
use super::catalog::NODE_CPU_M;
use super::controllers::RsState;
use super::events::{EventType, Source};
use super::recorder::Lane;
use super::world::{at, ms, World};
use super::{DrainFacts, DrainWindow, NodeUsage, ObjectChange, PodFact, ScenarioFacts, ScenarioRecord};

/// Scenario start.
pub(crate) fn start() -> DateTime<Utc> {
    at(2026, 11, 27, 0, 0, 0)
}

/// Kernel installed by drain #1 and drain #2 (why the nodes reboot).
const KERNELS: [&str; 2] = ["6.1.0-28-amd64", "6.1.0-29-amd64"];

/// Gap between two evictions of one `kubectl drain` (it evicts concurrently;
/// the API server takes them one after the other).
const EVICTION_GAP_MS: i64 = 150;

/// Deployments whose image is bumped at 03:00 on day 2, with the new tag.
const ROLLOUTS: [(&str, &str); 8] = [
    ("coredns", "v1.12.1"),
    ("metrics-server", "v0.7.3"),
    ("jellyseerr", "2.2.3"),
    ("grafana", "11.4.1"),
    ("node-red", "4.0.9"),
    ("prowlarr", "1.29.2"),
    ("alertmanager", "v0.28.0"),
    ("kube-state-metrics", "v2.15.0"),
];
/// queue-worker is scaled up for the night at 03:00 on day 2.
const SCALE_UP: (&str, u32) = ("queue-worker", 14);

/// The story up to day 2, 04:00 (before the day-2 backup): the world and
/// what the facts need from it. Shared by the demo and its variants.
pub(crate) struct Night {
    /// The world at day 2, 04:00.
    pub w: World,
    /// Drain #1.
    pub d1: DrainFacts,
    /// Drain #2.
    pub d2: DrainFacts,
    /// node-1's Ready time in drain #2.
    pub burst_ready_at: DateTime<Utc>,
    /// Pods bound to node-1 in the 3 minutes after it.
    pub burst_pods: Vec<String>,
    /// What the day-1 backup left (its Job, its pod, the CronJob).
    pub previous: backup::Day1,
}

/// Runs the story; returns its records and the facts.
pub(crate) fn run(seed: u64) -> (Vec<ScenarioRecord>, ScenarioFacts) {
    let mut night = until_backup(seed);
    let cronjob = night.previous.cronjob.clone();
    let b = backup::run_day2(&mut night.w, at(2026, 11, 28, 4, 0, 0), cronjob, backup::container());
    finish(night, b)
}

/// Bootstrap, drain #1, the day-1 backup, drain #2 and the 03:00 rollouts.
pub(crate) fn until_backup(seed: u64) -> Night {
    let mut w = World::new(seed, start());
    w.bootstrap();

    let d1 = drain_one_by_one(&mut w, at(2026, 11, 27, 2, 0, 0));
    let previous = backup::run_day1(&mut w, at(2026, 11, 27, 4, 0, 0));

    let (d2, burst_ready_at) = drain_batched(&mut w, at(2026, 11, 28, 2, 0, 0));
    let burst_end = burst_ready_at + Duration::minutes(3);
    let burst_pods = w
        .pods
        .iter()
        .filter(|p| p.node.map(|n| n.0) == Some(0))
        .filter(|p| p.scheduled_at.is_some_and(|t| t >= burst_ready_at && t <= burst_end))
        .map(|p| format!("{}/{}", p.template.namespace, p.name))
        .collect();

    // 03:00: Flux applies the nightly change set: queue-worker scaled up,
    // then the image bumps roll out one Deployment after the other.
    scale_up(&mut w, SCALE_UP.0, SCALE_UP.1, at(2026, 11, 28, 3, 0, 0));
    let mut t = at(2026, 11, 28, 3, 0, 30);
    for (name, tag) in ROLLOUTS {
        t = rollout(&mut w, name, tag, t) + Duration::seconds(40);
    }
    Night { w, d1, d2, burst_ready_at, burst_pods, previous }
}

/// The records and the facts once the day-2 backup `b` has run (and
/// whatever a variant adds after it).
pub(crate) fn finish(night: Night, b: backup::Day2) -> (Vec<ScenarioRecord>, ScenarioFacts) {
    let Night { mut w, d1, d2, burst_ready_at, burst_pods, previous } = night;
    let plex = w.pods.iter().find(|p| p.occupies() && p.template.app == "plex");
    let (plex, plex_bound_at) = match plex {
        Some(p) => (pod_fact(p), p.scheduled_at.unwrap_or_default()),
        None => (PodFact { namespace: String::new(), name: String::new(), uid: String::new(), node: None }, start()),
    };
    let usage_at_failure = b.usage.iter().map(usage).collect();
    let records = std::mem::replace(&mut w.rec, super::recorder::Recorder::new(start())).finish(Lane::Story);
    let end = records.last().map_or(start(), |r| r.observed_at);
    let facts = ScenarioFacts {
        start: start(),
        end,
        nodes: w.nodes.iter().map(|n| n.def.name.to_string()).collect(),
        node_allocatable_cpu_millis: NODE_CPU_M,
        drains: vec![d1, d2],
        burst_pods,
        burst_ready_at,
        plex,
        plex_bound_at,
        cronjob_namespace: super::controllers::BACKUP_NS.into(),
        cronjob_name: super::controllers::BACKUP_CRONJOB.into(),
        previous_job_name: previous.job_name,
        previous_pod: previous.pod,
        job_name: b.job_name,
        job_created_at: b.job_created_at,
        active_deadline_seconds: super::controllers::BACKUP_DEADLINE_S,
        deadline_exceeded_at: b.deadline_exceeded_at,
        pending_pod: b.pod,
        pending_pod_cpu_request_millis: b.cpu_m,
        pending_pod_memory_request_mib: b.mem_mi,
        pending_pod_deleted_at: b.deleted_at,
        failure_at: b.failure_at,
        failed_scheduling_note: b.note,
        failed_scheduling_event: b.event_name,
        failed_scheduling_count: b.final_count,
        failed_scheduling_versions: b.versions,
        usage_at_failure,
    };
    (records, facts)
}

/// The facts' view of a pod.
pub(crate) fn pod_fact(p: &super::pods::PodState) -> PodFact {
    PodFact {
        namespace: p.template.namespace.clone(),
        name: p.name.clone(),
        uid: p.uid.clone(),
        node: p.node.map(|(_, n)| n.to_string()),
    }
}

fn usage(v: &super::sim::NodeView) -> NodeUsage {
    NodeUsage {
        node: v.name.to_string(),
        requested_cpu_millis: v.used.cpu_m,
        allocatable_cpu_millis: NODE_CPU_M,
        free_cpu_millis: NODE_CPU_M - v.used.cpu_m,
        requested_percent: v.used.cpu_m * 100 / NODE_CPU_M,
        pods: v.pods as usize,
    }
}

/// Evicts every non-DaemonSet pod of node `n` starting at `t` (in
/// namespace/name order, as kubectl lists them). Returns when the last one
/// is gone and how many were evicted.
fn evict_node(w: &mut World, n: usize, t: DateTime<Utc>) -> (DateTime<Utc>, usize) {
    let mut victims: Vec<usize> = (0..w.pods.len())
        .filter(|&p| w.pods[p].occupies() && w.pods[p].node.map(|x| x.0) == Some(n))
        .filter(|&p| w.pods[p].template.owner.kind == "ReplicaSet")
        .collect();
    victims.sort_by(|&a, &b| {
        let (pa, pb) = (&w.pods[a], &w.pods[b]);
        (&pa.template.namespace, &pa.template.app, &pa.name).cmp(&(&pb.template.namespace, &pb.template.app, &pb.name))
    });
    let mut done = t;
    for (i, &p) in victims.iter().enumerate() {
        let ti = t + ms(EVICTION_GAP_MS * i as i64);
        w.evict_and_replace(p, ti);
        done = done.max(ti + Duration::seconds(5));
    }
    (done, victims.len())
}

/// One node's full cycle (cordon, drain, reboot, uncordon) starting at `t`.
fn cycle(w: &mut World, n: usize, t: DateTime<Utc>, kernel: &str) -> DrainWindow {
    w.cordon(n, t);
    let (evicted_at, count) = evict_node(w, n, t + Duration::seconds(3));
    let ready_at = w.reboot(n, evicted_at + Duration::seconds(15), kernel);
    let uncordoned_at = ready_at + Duration::seconds(25);
    w.uncordon(n, uncordoned_at);
    DrainWindow {
        node: w.nodes[n].def.name.into(),
        cordoned_at: t,
        evicted_at,
        ready_at,
        uncordoned_at,
        evicted_pods: count,
    }
}

fn drain_facts(number: u32, windows: Vec<DrainWindow>) -> DrainFacts {
    let started_at = windows.iter().map(|w| w.cordoned_at).min().unwrap_or_default();
    let ended_at = windows.iter().map(|w| w.uncordoned_at).max().unwrap_or_default();
    DrainFacts { number, started_at, ended_at, windows }
}

/// Drain #1: node-1 … node-5, the next node cordoned a minute after the
/// previous one is back.
fn drain_one_by_one(w: &mut World, t0: DateTime<Utc>) -> DrainFacts {
    let mut windows = Vec::new();
    let mut t = t0;
    for n in 0..w.nodes.len() {
        let win = cycle(w, n, t, KERNELS[0]);
        t = win.uncordoned_at + Duration::seconds(60);
        windows.push(win);
    }
    drain_facts(1, windows)
}

/// Drain #2: node-1 alone; once it is back, node-2, node-3 and node-4 are
/// cordoned together and drained one after the other while they reboot in
/// parallel; node-5 last. Returns the facts and node-1's Ready time.
fn drain_batched(w: &mut World, t0: DateTime<Utc>) -> (DrainFacts, DateTime<Utc>) {
    let kernel = KERNELS[1];
    let first = cycle(w, 0, t0, kernel);
    let node1_ready = first.ready_at;
    let mut windows = vec![first];

    let batch = [1usize, 2, 3];
    let c0 = windows[0].uncordoned_at + Duration::seconds(20);
    for (i, &n) in batch.iter().enumerate() {
        w.cordon(n, c0 + Duration::seconds(2 * i as i64));
    }
    let mut t = c0 + Duration::seconds(10);
    let mut evicted = Vec::new();
    for &n in &batch {
        let (done, count) = evict_node(w, n, t);
        evicted.push((done, count));
        t = done + Duration::seconds(5);
    }
    for (i, &n) in batch.iter().enumerate() {
        let ready_at = w.reboot(n, t + Duration::seconds(2 * i as i64), kernel);
        let uncordoned_at = ready_at + Duration::seconds(25 + 5 * i as i64);
        w.uncordon(n, uncordoned_at);
        windows.push(DrainWindow {
            node: w.nodes[n].def.name.into(),
            cordoned_at: c0 + Duration::seconds(2 * i as i64),
            evicted_at: evicted[i].0,
            ready_at,
            uncordoned_at,
            evicted_pods: evicted[i].1,
        });
    }
    let next = windows.iter().map(|w| w.uncordoned_at).max().unwrap_or(t) + Duration::seconds(60);
    windows.push(cycle(w, 4, next, kernel));
    (drain_facts(2, windows), node1_ready)
}

pub(crate) fn deployment_index(w: &World, name: &str) -> Option<usize> {
    w.deployments.iter().position(|d| d.def.name == name)
}

pub(crate) fn scaling_event(w: &mut World, d: usize, t: DateTime<Utc>, msg: String) {
    let dep = &w.deployments[d];
    let r = super::events::ObjRef {
        api_version: "apps/v1",
        kind: "Deployment",
        name: dep.def.name.into(),
        namespace: Some(dep.def.namespace.into()),
        uid: dep.uid.clone(),
        field_path: None,
    };
    w.core_event(t, &r, "ScalingReplicaSet", &msg, EventType::Normal, Source::Controller("deployment-controller"));
}

/// An image update of Deployment `name` at `t` (RollingUpdate, surge first):
/// per old pod, scale the new ReplicaSet up, wait for Ready, scale the old
/// one down. Returns when the rollout is complete.
fn rollout(w: &mut World, name: &str, tag: &str, t: DateTime<Utc>) -> DateTime<Utc> {
    let Some(d) = deployment_index(w, name) else { return t };
    for c in &mut w.deployments[d].def.containers {
        let repo = c.image.rsplit_once(':').map_or(c.image.clone(), |(r, _)| r.to_string());
        c.image = format!("{repo}:{tag}");
    }
    w.deployments[d].generation += 1;
    let revision = w.deployments[d].sets.len() as u32 + 1;
    let mut rs: RsState = w.new_rs(d, t + ms(20), revision);
    rs.replicas = 0;
    let template = Rc::clone(&rs.template);
    let (new_name, new_idx) = (rs.name.clone(), w.deployments[d].sets.len());
    w.deployments[d].sets.push(rs);
    let obj = w.deployments[d].render();
    w.rec.push(t, ObjectChange::Modified, obj);
    let obj = w.deployments[d].render_rs(new_idx);
    w.rec.push(t + ms(20), ObjectChange::Added, obj);

    let old_template = w.deployments[d].sets.get(new_idx - 1).map(|r| Rc::clone(&r.template));
    let old_name = w.deployments[d].sets.get(new_idx - 1).map(|r| r.name.clone()).unwrap_or_default();
    let old: Vec<usize> = (0..w.pods.len())
        .filter(|&p| {
            w.pods[p].occupies() && old_template.as_ref().is_some_and(|ot| Rc::ptr_eq(ot, &w.pods[p].template))
        })
        .collect();
    let total = old.len() as u32;
    let mut now = t + ms(30);
    for (i, &p) in old.iter().enumerate() {
        let up = i as u32 + 1;
        scaling_event(w, d, now, format!("Scaled up replica set {new_name} to {up} from {}", up - 1));
        let np = w.spawn(&template, now + ms(10));
        let ready = match w.schedule_or_report(np, now + ms(30)) {
            Some(_) => w.pods[np].ready_since.unwrap_or(now),
            None => now,
        };
        let down = ready + Duration::seconds(1);
        scaling_event(
            w,
            d,
            down,
            format!("Scaled down replica set {old_name} to {} from {}", total - up, total - up + 1),
        );
        let gone = w.controller_delete(p, down + ms(10));
        now = gone + Duration::seconds(1);
    }
    if let Some(s) = w.deployments[d].sets.get_mut(new_idx - 1) {
        s.replicas = 0;
    }
    if let Some(s) = w.deployments[d].sets.get_mut(new_idx) {
        s.replicas = total;
    }
    for i in [new_idx - 1, new_idx] {
        let obj = w.deployments[d].render_rs(i);
        w.rec.push(now, ObjectChange::Modified, obj);
    }
    let obj = w.deployments[d].render();
    w.rec.push(now + ms(5), ObjectChange::Modified, obj);
    now
}

/// Scales Deployment `name` to `replicas` at `t`.
fn scale_up(w: &mut World, name: &str, replicas: u32, t: DateTime<Utc>) {
    let Some(d) = deployment_index(w, name) else { return };
    let from = w.deployments[d].def.replicas;
    w.deployments[d].def.replicas = replicas;
    w.deployments[d].generation += 1;
    let Some(rs_idx) = w.deployments[d].sets.len().checked_sub(1) else { return };
    w.deployments[d].sets[rs_idx].replicas = replicas;
    let rs_name = w.deployments[d].sets[rs_idx].name.clone();
    let template = Rc::clone(&w.deployments[d].sets[rs_idx].template);
    let obj = w.deployments[d].render();
    w.rec.push(t, ObjectChange::Modified, obj);
    scaling_event(w, d, t + ms(10), format!("Scaled up replica set {rs_name} to {replicas} from {from}"));
    let obj = w.deployments[d].render_rs(rs_idx);
    w.rec.push(t + ms(15), ObjectChange::Modified, obj);
    for i in 0..replicas.saturating_sub(from) {
        let ti = t + ms(30 + 40 * i64::from(i));
        let p = w.spawn(&template, ti);
        w.schedule_or_report(p, ti + ms(20));
    }
}
