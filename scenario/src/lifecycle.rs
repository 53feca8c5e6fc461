//! Pod lifecycles as the components play them, each step an emitted pod
//! version or event: creation by a controller, scheduling (the scheduler
//! model picks the node), the kubelet starting containers, eviction through
//! the Eviction API, deletion by a controller.

use std::rc::Rc;

use chrono::{DateTime, Duration, Utc};

use super::events::{EventType, ObjRef, Source};
use super::pods::{Phase, PodState, PodTemplate};
use super::sim::{self, Reject};
use super::world::{ms, World};
use super::ObjectChange;

/// A deterministic, seed-independent number in `0..n` derived from a text
/// (pull durations, readiness delays: times must not depend on the seed).
pub(crate) fn spread(text: &str, n: i64) -> i64 {
    let mut h: u64 = 0x9e37_79b9;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h % n.max(1) as u64) as i64
}

/// The controller reference of a pod template's owner.
pub(crate) fn owner_ref(t: &PodTemplate) -> ObjRef {
    ObjRef {
        api_version: t.owner.api_version,
        kind: t.owner.kind,
        name: t.owner.name.clone(),
        namespace: Some(t.namespace.to_string()),
        uid: t.owner.uid.clone(),
        field_path: None,
    }
}

/// The component that writes events for an owner kind.
fn controller_component(kind: &str) -> &'static str {
    match kind {
        "ReplicaSet" => "replicaset-controller",
        "Job" => "job-controller",
        "DaemonSet" => "daemonset-controller",
        _ => "controller-manager",
    }
}

impl World {
    /// A controller creates a pod from `template`: the pod (Added, Pending)
    /// and the controller's `SuccessfulCreate` event.
    pub(crate) fn spawn(&mut self, template: &Rc<PodTemplate>, t: DateTime<Utc>) -> usize {
        let name = format!("{}{}", template.generate_name, self.rng.name_suffix(5));
        let uid = self.rng.uuid();
        self.pods.push(PodState::new(name.clone(), uid, Rc::clone(template), t));
        let p = self.pods.len() - 1;
        self.emit_pod(p, t, ObjectChange::Added);
        let owner = owner_ref(template);
        let component = controller_component(template.owner.kind);
        self.core_event(
            t + ms(2),
            &owner,
            "SuccessfulCreate",
            &format!("Created pod: {name}"),
            EventType::Normal,
            Source::Controller(component),
        );
        p
    }

    /// One scheduling attempt at `t`; on success the pod is bound and the
    /// kubelet starts it. Returns the node index or every node's rejection
    /// (the caller reports it: see [`World::report_unschedulable`]).
    pub(crate) fn schedule(&mut self, p: usize, t: DateTime<Utc>) -> Result<usize, Vec<Reject>> {
        let demand = self.pods[p].template.demand();
        let views = self.node_views();
        let template = Rc::clone(&self.pods[p].template);
        let req = sim::Request { demand: &demand, pref: template.pref, affinity_app: template.affinity_app.as_deref() };
        let n = sim::place(&views, &req)?;
        self.bind(p, n, t);
        self.kubelet_run(p, t + ms(180));
        Ok(n)
    }

    /// Like [`World::schedule`], but a failure is reported the way the
    /// scheduler does (PodScheduled=False and a FailedScheduling event), so
    /// the records stay truthful even if a catalog change breaks the story
    /// (the tests then fail on the unexpected FailedScheduling).
    pub(crate) fn schedule_or_report(&mut self, p: usize, t: DateTime<Utc>) -> Option<usize> {
        match self.schedule(p, t) {
            Ok(n) => Some(n),
            Err(rejects) => {
                let note = sim::failure_message(&rejects);
                self.report_unschedulable(p, t, &note);
                None
            }
        }
    }

    /// PodScheduled=False (Unschedulable) with `note`, and a new
    /// events.k8s.io FailedScheduling event; returns the event's identity.
    pub(crate) fn report_unschedulable(&mut self, p: usize, t: DateTime<Utc>, note: &str) -> super::events::EventId {
        self.pods[p].unschedulable = Some((t, note.to_string()));
        self.emit_pod(p, t + ms(3), ObjectChange::Modified);
        self.scheduler_event(t + ms(2), p, "FailedScheduling", "Scheduling", note, EventType::Warning)
    }

    /// Binding: `spec.nodeName`, PodScheduled=True, the scheduler's `Scheduled`.
    fn bind(&mut self, p: usize, n: usize, t: DateTime<Utc>) {
        let node = self.nodes[n].def;
        self.pods[p].node = Some((n, node.name));
        self.pods[p].scheduled_at = Some(t);
        self.pods[p].unschedulable = None;
        self.emit_pod(p, t, ObjectChange::Modified);
        let note =
            format!("Successfully assigned {}/{} to {}", self.pods[p].template.namespace, self.pods[p].name, node.name);
        self.scheduler_event(t, p, "Scheduled", "Binding", &note, EventType::Normal);
    }

    /// The kubelet admits the pod at `t`, pulls what is missing, starts the
    /// containers; the pod turns Running and Ready. Returns the Ready time.
    pub(crate) fn kubelet_run(&mut self, p: usize, t: DateTime<Utc>) -> DateTime<Utc> {
        let Some((n, host)) = self.pods[p].node else { return t };
        let ip = self.next_ip(n);
        {
            let pod = &mut self.pods[p];
            pod.host_ip = Some(self.nodes[n].def.address);
            pod.start_time = Some(t);
            pod.pod_ip = Some(ip);
        }
        self.emit_pod(p, t + ms(40), ObjectChange::Modified);
        let mut now = t + ms(900);
        let containers = self.pods[p].template.containers.clone();
        let pref = self.pods[p].obj_ref();
        for c in &containers {
            let r = pref.container(c.name);
            if self.nodes[n].images.contains(&c.image) {
                self.core_event(
                    now,
                    &r,
                    "Pulled",
                    &format!("Container image \"{}\" already present on machine", c.image),
                    EventType::Normal,
                    Source::Kubelet(host),
                );
            } else {
                self.core_event(
                    now,
                    &r,
                    "Pulling",
                    &format!("Pulling image \"{}\"", c.image),
                    EventType::Normal,
                    Source::Kubelet(host),
                );
                let took = 1_500 + spread(&c.image, 9_000);
                now += ms(took);
                let size = 20_000_000 + spread(&c.image, 400_000_000);
                let secs = format!("{}.{:03}s", took / 1000, took % 1000);
                let msg = format!(
                    "Successfully pulled image \"{}\" in {secs} ({secs} including waiting). Image size: {size} bytes.",
                    c.image
                );
                self.core_event(now, &r, "Pulled", &msg, EventType::Normal, Source::Kubelet(host));
                self.nodes[n].images.insert(c.image.clone());
            }
            self.container_started(now + ms(90), now + ms(140), &r, c.name, host);
            now += ms(160);
            let id = self.rng.hex(64);
            self.pods[p].container_ids.push(id);
        }
        let ready = now + ms(300 + 200 * spread(&self.pods[p].template.app, 20));
        {
            let pod = &mut self.pods[p];
            pod.phase = Phase::Running;
            pod.running_since = Some(now);
            pod.ready_since = Some(ready);
            pod.unready_since = None;
        }
        self.emit_pod(p, ready, ObjectChange::Modified);
        ready
    }

    /// The kubelet's `Created` then `Started` events of one container.
    fn container_started(
        &mut self,
        created: DateTime<Utc>,
        started: DateTime<Utc>,
        r: &ObjRef,
        name: &str,
        host: &str,
    ) {
        self.core_event(
            created,
            r,
            "Created",
            &format!("Created container: {name}"),
            EventType::Normal,
            Source::Kubelet(host),
        );
        self.core_event(
            started,
            r,
            "Started",
            &format!("Started container {name}"),
            EventType::Normal,
            Source::Kubelet(host),
        );
    }

    /// The kubelet re-creates the containers of a pod that survived a
    /// reboot (DaemonSet pods): images are present, containers start again.
    pub(crate) fn restart_containers(&mut self, p: usize, t: DateTime<Utc>) {
        let Some((_, host)) = self.pods[p].node else { return };
        let containers = self.pods[p].template.containers.clone();
        let pref = self.pods[p].obj_ref();
        for (i, c) in containers.iter().enumerate() {
            let r = pref.container(c.name);
            let at = t + ms(200 * i as i64);
            self.core_event(
                at,
                &r,
                "Pulled",
                &format!("Container image \"{}\" already present on machine", c.image),
                EventType::Normal,
                Source::Kubelet(host),
            );
            self.container_started(at + ms(80), at + ms(120), &r, c.name, host);
        }
        let ids: Vec<String> = containers.iter().map(|_| self.rng.hex(64)).collect();
        let running = t + ms(200 * containers.len() as i64);
        let pod = &mut self.pods[p];
        pod.container_ids = ids;
        pod.running_since = Some(running);
        pod.ready_since = Some(running + ms(1_500));
        pod.unready_since = None;
        self.emit_pod(p, running + ms(1_500), ObjectChange::Modified);
    }

    /// Graceful termination after `deletionTimestamp` was set at `t`: the
    /// kubelet's `Killing`, the terminated version, then the Deleted record.
    /// Returns when the pod is gone.
    fn terminate(&mut self, p: usize, t: DateTime<Utc>) -> DateTime<Utc> {
        let Some((_, host)) = self.pods[p].node else {
            // An unscheduled pod has nothing to stop: grace period 0; only the
            // Job's tracking finalizer holds it until the controller drops it.
            self.pods[p].deletion = Some((t, 0));
            self.emit_pod(p, t, ObjectChange::Modified);
            self.pods[p].finalizer = false;
            self.pods[p].gone = true;
            self.emit_pod(p, t + ms(20), ObjectChange::Deleted);
            return t + ms(20);
        };
        self.pods[p].deletion = Some((t + Duration::seconds(30), 30));
        self.emit_pod(p, t, ObjectChange::Modified);
        let pref = self.pods[p].obj_ref();
        for c in self.pods[p].template.containers.clone() {
            self.core_event(
                t + ms(60),
                &pref.container(c.name),
                "Killing",
                &format!("Stopping container {}", c.name),
                EventType::Normal,
                Source::Kubelet(host),
            );
        }
        let stopped = t + ms(1_200 + 100 * spread(&self.pods[p].template.app, 30));
        {
            let pod = &mut self.pods[p];
            pod.terminated = Some((stopped, 0));
            pod.phase = Phase::Succeeded;
            pod.ready_since = None;
            pod.unready_since = Some(stopped);
        }
        self.emit_pod(p, stopped, ObjectChange::Modified);
        self.pods[p].finalizer = false;
        self.pods[p].gone = true;
        self.emit_pod(p, stopped + ms(150), ObjectChange::Deleted);
        stopped + ms(150)
    }

    /// `kubectl drain` evicts pod `p` at `t` through the Eviction API: the
    /// DisruptionTarget condition, then graceful deletion. The owner creates
    /// a replacement right away and the scheduler places it. Returns the
    /// replacement and its node (None if it could not be placed).
    pub(crate) fn evict_and_replace(&mut self, p: usize, t: DateTime<Utc>) -> (usize, Option<usize>) {
        self.pods[p].disruption = Some(t);
        self.emit_pod(p, t, ObjectChange::Modified);
        self.terminate(p, t + ms(4));
        let template = Rc::clone(&self.pods[p].template);
        let r = self.spawn(&template, t + ms(15));
        let node = self.schedule_or_report(r, t + ms(35));
        (r, node)
    }

    /// The owner deletes pod `p` at `t` (`SuccessfulDelete`), then the pod
    /// terminates gracefully. Returns when it is gone.
    pub(crate) fn controller_delete(&mut self, p: usize, t: DateTime<Utc>) -> DateTime<Utc> {
        let owner = owner_ref(&self.pods[p].template);
        let component = controller_component(self.pods[p].template.owner.kind);
        let msg = format!("Deleted pod: {}", self.pods[p].name);
        self.core_event(t, &owner, "SuccessfulDelete", &msg, EventType::Normal, Source::Controller(component));
        self.terminate(p, t + ms(3))
    }
}
