//! The generator's mutable world: nodes, pods, controllers, the PRNG and the
//! recorder, plus the cluster as it already was when the scenario starts
//! (every object emitted as `Added`, as a watch's initial list shows it).

use std::rc::Rc;

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::catalog::{self, Pref, NODES};
use super::controllers::{DaemonSetState, DeploymentState, RsState};
use super::events::{jittered, CoreEvent, EventId, EventType, ObjRef, SchedulerEvent, Source};
use super::nodes::{NodeState, Readiness};
use super::pods::{Owner, Phase, PodState, PodTemplate};
use super::recorder::Recorder;
use super::rng::SplitMix64;
use super::sim::{self, NodeView};
use super::ObjectChange;

/// Everything the story mutates while it runs.
pub(crate) struct World {
    /// Story PRNG (identifiers and sub-millisecond noise only).
    pub rng: SplitMix64,
    /// Emitted versions.
    pub rec: Recorder,
    /// Scenario start.
    pub start: DateTime<Utc>,
    /// Nodes, in name order.
    pub nodes: Vec<NodeState>,
    /// Every pod ever created (deleted ones stay, marked `gone`).
    pub pods: Vec<PodState>,
    /// Deployments.
    pub deployments: Vec<DeploymentState>,
    /// DaemonSets.
    pub daemonsets: Vec<DaemonSetState>,
    /// Next pod IP host part per node.
    ip_next: Vec<u32>,
}

/// A fixed instant (the calendar is part of the story, not of the seed).
pub(crate) fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s).single().unwrap_or_default()
}

/// Milliseconds as a duration.
pub(crate) fn ms(x: i64) -> Duration {
    Duration::milliseconds(x)
}

impl World {
    /// An empty world.
    pub(crate) fn new(seed: u64, start: DateTime<Utc>) -> Self {
        World {
            rng: SplitMix64::stream(seed, "story"),
            rec: Recorder::new(start),
            start,
            nodes: Vec::new(),
            pods: Vec::new(),
            deployments: Vec::new(),
            daemonsets: Vec::new(),
            ip_next: vec![10; NODES.len()],
        }
    }

    /// Emits the current version of pod `p`.
    pub(crate) fn emit_pod(&mut self, p: usize, t: DateTime<Utc>, change: ObjectChange) {
        let obj = self.pods[p].render();
        self.rec.push(t, change, obj);
    }

    /// Emits a new core/v1 event (count 1).
    pub(crate) fn core_event(
        &mut self,
        t: DateTime<Utc>,
        regarding: &ObjRef,
        reason: &str,
        message: &str,
        kind: EventType,
        source: Source<'_>,
    ) {
        let (component, host) = source.parts();
        let id = EventId::new(&mut self.rng, &regarding.name, t);
        let ev = CoreEvent { id: &id, regarding, reason, message, kind, component, host, count: 1, last: t };
        self.rec.push(t, ObjectChange::Added, ev.to_json());
    }

    /// Emits a new events.k8s.io/v1 scheduler event; returns its identity.
    pub(crate) fn scheduler_event(
        &mut self,
        t: DateTime<Utc>,
        p: usize,
        reason: &str,
        action: &str,
        note: &str,
        kind: EventType,
    ) -> EventId {
        let event_time = jittered(&mut self.rng, t);
        let id = EventId::new(&mut self.rng, &self.pods[p].name, event_time);
        let regarding = self.pods[p].obj_ref();
        let ev =
            SchedulerEvent { id: &id, regarding: &regarding, reason, action, note, kind, event_time, series: None };
        self.rec.push(t, ObjectChange::Added, ev.to_json());
        id
    }

    /// The cluster as the scheduler sees it now.
    pub(crate) fn node_views(&self) -> Vec<NodeView> {
        let mut views: Vec<NodeView> = self
            .nodes
            .iter()
            .map(|n| NodeView {
                name: n.def.name,
                mem_alloc_mi: n.def.mem_alloc_mi,
                fast: n.def.fast,
                blocked: n.blocked(),
                taint: n.taint.map(|(key, value, _)| (key, value)),
                used: sim::Demand::default(),
                pods: 0,
                apps: Vec::new(),
            })
            .collect();
        for p in self.pods.iter().filter(|p| p.occupies()) {
            if let Some((n, _)) = p.node {
                views[n].bind(&p.template.demand(), &p.template.app);
            }
        }
        views
    }

    /// Next pod IP on node `n`.
    pub(crate) fn next_ip(&mut self, n: usize) -> String {
        let host = self.ip_next[n];
        self.ip_next[n] = if host >= 250 { 10 } else { host + 1 };
        format!("10.42.{n}.{host}")
    }

    /// A new ReplicaSet template for deployment `d` (revision `revision`).
    pub(crate) fn new_rs(&mut self, d: usize, created: DateTime<Utc>, revision: u32) -> RsState {
        let dep = &self.deployments[d];
        let hash = self.rng.name_suffix(10);
        let name = format!("{}-{hash}", dep.def.name);
        let uid = self.rng.uuid();
        let template = Rc::new(PodTemplate {
            namespace: dep.def.namespace.to_string(),
            app: dep.def.name.to_string(),
            generate_name: format!("{name}-"),
            labels: vec![("app".into(), dep.def.name.into()), ("pod-template-hash".into(), hash)],
            owner: Owner { api_version: "apps/v1", kind: "ReplicaSet", name: name.clone(), uid: uid.clone() },
            containers: dep.def.containers.clone(),
            pref: dep.def.pref,
            affinity_app: None,
            gpu_only: false,
            restart_policy: "Always",
            job_tracking: false,
        });
        RsState { name, uid, created, revision, replicas: dep.def.replicas, template }
    }

    /// Adds a pod that already runs on node `n` when the scenario starts.
    fn existing_pod(
        &mut self,
        template: &Rc<PodTemplate>,
        n: usize,
        created: DateTime<Utc>,
        running: DateTime<Utc>,
    ) -> usize {
        let name = format!("{}{}", template.generate_name, self.rng.name_suffix(5));
        let uid = self.rng.uuid();
        let mut p = PodState::new(name, uid, Rc::clone(template), created);
        p.node = Some((n, NODES[n].name));
        p.host_ip = Some(NODES[n].address);
        p.scheduled_at = Some(created);
        p.start_time = Some(created);
        p.running_since = Some(running);
        p.ready_since = Some(running + Duration::seconds(4));
        p.phase = Phase::Running;
        p.pod_ip = Some(self.next_ip(n));
        p.container_ids = template.containers.iter().map(|_| self.rng.hex(64)).collect();
        for c in &template.containers {
            self.nodes[n].images.insert(c.image.clone());
        }
        self.pods.push(p);
        self.pods.len() - 1
    }

    /// The cluster as it is at the start: nodes, DaemonSets, Deployments,
    /// their ReplicaSets and pods (placed by replaying their creation on the
    /// empty cluster with the scheduler model), all emitted as `Added`.
    pub(crate) fn bootstrap(&mut self) {
        let built = at(2026, 10, 2, 9, 12, 0);
        let last_boot = at(2026, 11, 13, 3, 0, 0);
        for (i, def) in NODES.iter().enumerate() {
            let uid = self.rng.uuid();
            let boot_id = self.rng.uuid();
            self.nodes.push(NodeState {
                def,
                idx: i,
                uid,
                created: built + Duration::minutes(3 * i as i64),
                boot_id,
                kernel: "6.1.0-27-amd64".into(),
                unschedulable: false,
                ready: Readiness {
                    status: "True",
                    reason: "KubeletReady",
                    message: "kubelet is posting ready status",
                    since: last_boot + Duration::minutes(5 * i as i64 + 2),
                },
                reachable: true,
                pressure_since: last_boot + Duration::minutes(5 * i as i64 + 2),
                health_taints: Vec::new(),
                taint: None,
                images: Default::default(),
                cordoned_at: None,
            });
        }
        for (i, def) in catalog::daemonsets().into_iter().enumerate() {
            let uid = self.rng.uuid();
            let hash = self.rng.name_suffix(10);
            let template = Rc::new(PodTemplate {
                namespace: def.namespace.to_string(),
                app: def.name.to_string(),
                generate_name: format!("{}-", def.name),
                labels: vec![
                    ("app".into(), def.name.into()),
                    ("controller-revision-hash".into(), hash),
                    ("pod-template-generation".into(), "1".into()),
                ],
                owner: Owner { api_version: "apps/v1", kind: "DaemonSet", name: def.name.into(), uid: uid.clone() },
                containers: vec![def.container.clone()],
                pref: Pref::None,
                affinity_app: None,
                gpu_only: def.gpu_only,
                restart_policy: "Always",
                job_tracking: false,
            });
            let created = built + Duration::hours(1) + Duration::minutes(i as i64);
            let mut scheduled = 0;
            for (n, node) in NODES.iter().enumerate() {
                if def.gpu_only && !node.fast {
                    continue;
                }
                let running = self.nodes[n].ready.since + Duration::seconds(20);
                let p = self.existing_pod(&template, n, created + Duration::minutes(15 * n as i64), running);
                self.pods[p].restart_count = 3;
                scheduled += 1;
            }
            self.daemonsets.push(DaemonSetState { def, uid, created, template, scheduled });
        }
        let first_deploy = at(2026, 10, 5, 18, 30, 0);
        for (i, def) in catalog::deployments().into_iter().enumerate() {
            let created = first_deploy + Duration::hours(7 * i as i64);
            let uid = self.rng.uuid();
            self.deployments.push(DeploymentState { def, uid, created, generation: 1, sets: Vec::new() });
            let rs_created = at(2026, 11, 14, 10, 0, 0) + Duration::minutes(11 * i as i64);
            let rs = self.new_rs(i, rs_created, 1);
            let template = Rc::clone(&rs.template);
            self.deployments[i].sets.push(rs);
            for r in 0..self.deployments[i].def.replicas {
                let demand = template.demand();
                let views = self.node_views();
                let req = sim::Request { demand: &demand, pref: template.pref, affinity_app: None };
                let n = sim::place(&views, &req).unwrap_or(0);
                let created = rs_created + Duration::seconds(2 * i64::from(r));
                self.existing_pod(&template, n, created, created + Duration::seconds(9));
            }
        }
        let mut t = self.start;
        for n in 0..self.nodes.len() {
            let obj = self.nodes[n].render();
            self.rec.push(t, ObjectChange::Added, obj);
            t += ms(1);
        }
        for d in 0..self.daemonsets.len() {
            let obj = self.daemonsets[d].render();
            self.rec.push(t, ObjectChange::Added, obj);
            t += ms(1);
        }
        for d in 0..self.deployments.len() {
            let obj = self.deployments[d].render();
            self.rec.push(t, ObjectChange::Added, obj);
            let obj = self.deployments[d].render_rs(0);
            self.rec.push(t, ObjectChange::Added, obj);
            t += ms(1);
        }
        for p in 0..self.pods.len() {
            self.emit_pod(p, t, ObjectChange::Added);
            t += ms(1);
        }
    }
}
