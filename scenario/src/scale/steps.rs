//! The scale generator's steps: a node's drain (cordon, evictions and
//! replacements, reboot, uncordon), a Job pod that cannot be scheduled, and
//! the churn (one pod replaced, or a readiness-probe warning counted up).
//! Every version a step emits lies at or after the step's time.

use std::rc::Rc;

use chrono::{DateTime, Duration, Utc};

use super::super::catalog::{ContainerDef, Pref, Qos};
use super::super::events::{jittered, CoreEvent, EventId, EventType, ObjRef, SchedulerEvent, Source};
use super::super::pods::{Owner, PodState, PodTemplate};
use super::super::sim::{failure_message, Reject};
use super::super::ObjectChange;
use super::cluster::Cluster;
use super::Out;

const JOBS_NAMESPACE: &str = "batch-jobs";
/// CPU a failing Job pod requests: more than any node has free.
const JOB_CPU_M: i64 = 7_800;

fn ms(n: i64) -> Duration {
    Duration::milliseconds(n)
}

/// A core/v1 event, one version (`count`, last seen at `at`).
struct Core<'a> {
    id: &'a EventId,
    regarding: &'a ObjRef,
    reason: &'a str,
    message: &'a str,
    kind: EventType,
    source: Source<'a>,
}

impl Core<'_> {
    fn push(&self, out: &mut Out<'_>, at: DateTime<Utc>, count: u32) {
        let (component, host) = self.source.parts();
        let ev = CoreEvent {
            id: self.id,
            regarding: self.regarding,
            reason: self.reason,
            message: self.message,
            kind: self.kind,
            component,
            host,
            count,
            last: at,
        };
        out.push(at, ObjectChange::Added, ev.to_json());
    }
}

impl Cluster {
    fn event(
        &mut self,
        out: &mut Out<'_>,
        at: DateTime<Utc>,
        regarding: &ObjRef,
        (reason, message): (&str, &str),
        kind: EventType,
        source: Source<'_>,
    ) {
        let id = EventId::new(&mut self.rng, &regarding.name, at);
        Core { id: &id, regarding, reason, message, kind, source }.push(out, at, 1);
    }

    fn push_node(&self, out: &mut Out<'_>, n: usize, at: DateTime<Utc>) {
        out.push(at, ObjectChange::Modified, self.render_node(n));
    }

    /// Replaces the pod in `slot` at `at`: the old one is evicted (a drain)
    /// or deleted (a rollout), its ReplicaSet creates a new one that the
    /// scheduler binds to another node. Returns the new pod's node.
    fn replace(&mut self, out: &mut Out<'_>, slot: u32, at: DateTime<Utc>, evicted: bool) -> u32 {
        let old_host = self.slots[slot as usize].0.node.map_or(self.nodes[0].name, |(_, h)| h);
        {
            let old = &mut self.slots[slot as usize].0;
            if evicted {
                old.disruption = Some(at);
            }
            old.deletion = Some((at + ms(10), 30));
            out.push(at + ms(10), ObjectChange::Modified, old.render());
        }
        let cref = self.slots[slot as usize].0.obj_ref().container("app");
        self.event(
            out,
            at + ms(15),
            &cref,
            ("Killing", "Stopping container app"),
            EventType::Normal,
            Source::Kubelet(old_host),
        );
        {
            let old = &mut self.slots[slot as usize].0;
            old.terminated = Some((at + ms(2_000), 0));
            old.ready_since = None;
            old.unready_since = Some(at + ms(2_000));
            old.gone = true;
            out.push(at + ms(5_000), ObjectChange::Deleted, old.render());
        }
        self.unbind(slot);

        let d = self.slots[slot as usize].1;
        let mut pod = self.new_pod(d, at + ms(30));
        out.push(at + ms(30), ObjectChange::Added, pod.render());
        let rs_ref = self.deployments[d as usize].rs_ref.clone();
        let created = format!("Created pod: {}", pod.name);
        let src = Source::Controller("replicaset-controller");
        self.event(out, at + ms(32), &rs_ref, ("SuccessfulCreate", &created), EventType::Normal, src);
        let n = self.place(self.deployments[d as usize].cpu_m);
        let bound = at + ms(60);
        self.bind(&mut pod, n, bound);
        out.push(bound, ObjectChange::Modified, pod.render());
        let host = self.nodes[n as usize].name;
        let pref = pod.obj_ref();
        let note = format!("Successfully assigned {}/{} to {host}", pod.template.namespace, pod.name);
        let et = jittered(&mut self.rng, bound);
        let id = EventId::new(&mut self.rng, &pod.name, et);
        let ev = SchedulerEvent {
            id: &id,
            regarding: &pref,
            reason: "Scheduled",
            action: "Binding",
            note: &note,
            kind: EventType::Normal,
            event_time: et,
            series: None,
        };
        out.push(bound, ObjectChange::Added, ev.to_json());
        self.run(&mut pod, at + ms(300));
        let cref = pref.container("app");
        let pulled = format!("Container image \"{}\" already present on machine", pod.template.containers[0].image);
        for (i, (reason, message)) in
            [("Pulled", pulled.as_str()), ("Created", "Created container: app"), ("Started", "Started container app")]
                .into_iter()
                .enumerate()
        {
            let t = at + ms(1_000 + 100 * i as i64);
            self.event(out, t, &cref, (reason, message), EventType::Normal, Source::Kubelet(host));
        }
        out.push(at + ms(2_400), ObjectChange::Modified, pod.render());
        self.nodes[n as usize].pods.push(slot);
        self.slots[slot as usize].0 = pod;
        n
    }

    /// Drains node `n` at `at`: cordon, every pod evicted and replaced
    /// elsewhere, NotReady at +3 min. Returns the pods moved.
    pub(crate) fn drain(&mut self, out: &mut Out<'_>, n: u32, at: DateTime<Utc>) -> u64 {
        let n = n as usize;
        self.nodes[n].cordoned_at = Some(at);
        self.push_node(out, n, at);
        let r = self.node_ref(n);
        let msg = format!("Node {} status is now: NodeNotSchedulable", r.name);
        self.event(out, at, &r, ("NodeNotSchedulable", &msg), EventType::Normal, Source::Kubelet(self.nodes[n].name));
        let slots = self.nodes[n].pods.clone();
        for (i, slot) in slots.iter().enumerate() {
            self.replace(out, *slot, at + ms(2_000 + 250 * i as i64), true);
        }
        let down = at + Duration::minutes(3);
        self.nodes[n].ready = ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.", down);
        self.push_node(out, n, down);
        let cref = ObjRef { uid: self.nodes[n].uid.clone(), ..r };
        let msg = format!("Node {} status is now: NodeNotReady", cref.name);
        self.event(out, down, &cref, ("NodeNotReady", &msg), EventType::Normal, Source::Controller("node-controller"));
        slots.len() as u64
    }

    /// Node `n` is back from its reboot at `at` (new boot id, Ready).
    pub(crate) fn ready(&mut self, out: &mut Out<'_>, n: u32, at: DateTime<Utc>) {
        let n = n as usize;
        self.nodes[n].boot_id = self.rng.uuid();
        self.nodes[n].ready = ("True", "KubeletReady", "kubelet is posting ready status", at);
        let r = self.node_ref(n);
        let host = self.nodes[n].name;
        self.event(out, at, &r, ("Starting", "Starting kubelet."), EventType::Normal, Source::Kubelet(host));
        let msg = format!("Node {host} has been rebooted, boot id: {}", self.nodes[n].boot_id);
        self.event(out, at + ms(1), &r, ("Rebooted", &msg), EventType::Warning, Source::Kubelet(host));
        self.push_node(out, n, at + ms(2));
        let msg = format!("Node {host} status is now: NodeReady");
        self.event(out, at + ms(3), &r, ("NodeReady", &msg), EventType::Normal, Source::Kubelet(host));
    }

    /// Node `n` is uncordoned at `at`.
    pub(crate) fn uncordon(&mut self, out: &mut Out<'_>, n: u32, at: DateTime<Utc>) {
        let n = n as usize;
        self.nodes[n].cordoned_at = None;
        self.push_node(out, n, at);
        let r = self.node_ref(n);
        let host = self.nodes[n].name;
        let msg = format!("Node {host} status is now: NodeSchedulable");
        self.event(out, at, &r, ("NodeSchedulable", &msg), EventType::Normal, Source::Kubelet(host));
    }

    /// The k-th failing Job at `at`: its pod requests [`JOB_CPU_M`], stays
    /// Pending with six FailedScheduling versions, and is deleted at the
    /// Job's deadline (30 min). Returns the pod's namespace and name.
    pub(crate) fn failure(&mut self, out: &mut Out<'_>, k: u32, at: DateTime<Utc>) -> (String, String) {
        let job = format!("nightly-{:05}", k + 1);
        let job_uid = self.rng.uuid();
        let template = Rc::new(PodTemplate {
            namespace: JOBS_NAMESPACE.into(),
            app: job.clone(),
            generate_name: format!("{job}-"),
            labels: vec![("batch.kubernetes.io/job-name".into(), job.clone()), ("job-name".into(), job.clone())],
            owner: Owner { api_version: "batch/v1", kind: "Job", name: job.clone(), uid: job_uid.clone() },
            containers: vec![ContainerDef {
                name: "train",
                image: "registry.example/train:2.4.1".into(),
                cpu_m: JOB_CPU_M,
                mem_mi: 4096,
                i915: 0,
                qos: Qos::Burstable,
            }],
            pref: Pref::None,
            affinity_app: None,
            gpu_only: false,
            restart_policy: "Never",
            job_tracking: true,
        });
        let name = format!("{job}-{}", self.rng.name_suffix(5));
        let mut pod = PodState::new(name.clone(), self.rng.uuid(), template, at);
        out.push(at, ObjectChange::Added, pod.render());
        let job_ref = ObjRef {
            api_version: "batch/v1",
            kind: "Job",
            name: job.clone(),
            namespace: Some(JOBS_NAMESPACE.into()),
            uid: job_uid,
            field_path: None,
        };
        let created = format!("Created pod: {name}");
        let src = Source::Controller("job-controller");
        self.event(out, at + ms(10), &job_ref, ("SuccessfulCreate", &created), EventType::Normal, src);
        let rejects: Vec<Reject> = self
            .nodes
            .iter()
            .map(|n| match n.cordoned_at {
                Some(_) => Reject::Unschedulable,
                None => Reject::Insufficient(vec!["Insufficient cpu"]),
            })
            .collect();
        let note = failure_message(&rejects);
        let first = at + ms(50);
        pod.unschedulable = Some((first, note.clone()));
        out.push(first, ObjectChange::Modified, pod.render());
        let pref = pod.obj_ref();
        let id = EventId::new(&mut self.rng, &name, first);
        for j in 0..6u32 {
            let t = first + Duration::minutes(5 * i64::from(j));
            let ev = SchedulerEvent {
                id: &id,
                regarding: &pref,
                reason: "FailedScheduling",
                action: "Scheduling",
                note: &note,
                kind: EventType::Warning,
                event_time: first,
                series: (j > 0).then_some((j + 1, t)),
            };
            out.push(t, ObjectChange::Added, ev.to_json());
        }
        let deadline = at + Duration::minutes(30);
        let msg = "Job was active longer than specified deadline";
        self.event(out, deadline, &job_ref, ("DeadlineExceeded", msg), EventType::Warning, src);
        pod.deletion = Some((deadline + ms(5), 0));
        pod.gone = true;
        out.push(deadline + ms(1_000), ObjectChange::Deleted, pod.render());
        (JOBS_NAMESPACE.to_string(), name)
    }

    /// The k-th churn step at `at`: every third replaces a random pod (a
    /// rollout), the others count a readiness-probe warning up six times.
    /// Returns the pods created.
    pub(crate) fn churn(&mut self, out: &mut Out<'_>, k: u64, at: DateTime<Utc>) -> u32 {
        if self.slots.is_empty() {
            return 0;
        }
        let slot = self.rng.below(self.slots.len() as u64) as u32;
        if k.is_multiple_of(3) {
            self.replace(out, slot, at, false);
            return 1;
        }
        let pod = &self.slots[slot as usize].0;
        let Some((_, host)) = pod.node else { return 0 };
        let cref = pod.obj_ref().container("app");
        let id = EventId::new(&mut self.rng, &cref.name, at);
        let ev = Core {
            id: &id,
            regarding: &cref,
            reason: "Unhealthy",
            message: "Readiness probe failed: HTTP probe failed with statuscode: 503",
            kind: EventType::Warning,
            source: Source::Kubelet(host),
        };
        for c in 1..=6u32 {
            ev.push(out, at + Duration::seconds(10 * i64::from(c - 1)), c);
        }
        0
    }
}
