//! Benchmark filler for `scale > 1`: independent namespaces `bench-NNN`,
//! each running a small BestEffort report Job every 30 minutes on a node
//! that is not being drained, with the usual events, then cleaned up by
//! `ttlSecondsAfterFinished`.
//!
//! Filler pods request nothing, so every CPU sum of the story is unchanged;
//! they have their own PRNG stream and resourceVersion slots, so every story
//! record is unchanged too.

use std::rc::Rc;

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use super::catalog::{ContainerDef, Pref, Qos, NODES};
use super::events::{jittered, ts, CoreEvent, EventId, EventType, ObjRef, SchedulerEvent, Source};
use super::pods::{Owner, Phase, PodState, PodTemplate};
use super::recorder::{Lane, Recorder};
use super::rng::SplitMix64;
use super::{ObjectChange, ScenarioFacts, ScenarioRecord};

const IMAGE: &str = "ghcr.io/example/report:1.0.3";

/// Generates `namespaces` filler namespaces around the story of `facts`.
pub(crate) fn generate(seed: u64, namespaces: u32, facts: &ScenarioFacts) -> Vec<ScenarioRecord> {
    let mut rec = Recorder::new(facts.start);
    for k in 1..=namespaces {
        let ns = format!("bench-{k:03}");
        let mut rng = SplitMix64::stream(seed, &ns);
        let offset = Duration::seconds(i64::from(k) * 97 % 1800 + 1);
        let mut t = facts.start + Duration::minutes(5) + offset;
        let mut i = 0usize;
        while t + Duration::minutes(10) < facts.end {
            let node = pick_node(facts, t, k as usize + i);
            one_job(&mut rec, &mut rng, &ns, t, node);
            t += Duration::minutes(30);
            i += 1;
        }
    }
    rec.finish(Lane::Filler)
}

/// A node outside every drain window around `t` (one minute of margin).
fn pick_node(facts: &ScenarioFacts, t: DateTime<Utc>, turn: usize) -> usize {
    let margin = Duration::minutes(1);
    let busy = |name: &str| {
        facts.drains.iter().flat_map(|d| &d.windows).any(|w| {
            w.node == name && t + Duration::minutes(3) >= w.cordoned_at - margin && t <= w.uncordoned_at + margin
        })
    };
    (0..NODES.len()).map(|j| (turn + j) % NODES.len()).find(|&n| !busy(NODES[n].name)).unwrap_or(0)
}

fn event(
    rec: &mut Recorder,
    rng: &mut SplitMix64,
    t: DateTime<Utc>,
    r: &ObjRef,
    (reason, message): (&str, &str),
    source: Source<'_>,
) {
    let (component, host) = source.parts();
    let id = EventId::new(rng, &r.name, t);
    let ev = CoreEvent {
        id: &id,
        regarding: r,
        reason,
        message,
        kind: EventType::Normal,
        component,
        host,
        count: 1,
        last: t,
    };
    rec.push(t, ObjectChange::Added, ev.to_json());
}

fn job_object(name: &str, ns: &str, uid: &str, created: DateTime<Utc>, done: Option<DateTime<Utc>>) -> Value {
    let mut status =
        json!({ "startTime": ts(created), "active": 1, "ready": 0, "terminating": 0, "uncountedTerminatedPods": {} });
    if let (Some(d), Some(m)) = (done, status.as_object_mut()) {
        m.insert("active".into(), json!(0));
        m.insert("succeeded".into(), json!(1));
        m.insert("completionTime".into(), json!(ts(d)));
        m.insert("conditions".into(), json!([
            { "type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached", "message": "Reached expected number of succeeded pods", "lastProbeTime": ts(d), "lastTransitionTime": ts(d) },
            { "type": "Complete", "status": "True", "reason": "CompletionsReached", "message": "Reached expected number of succeeded pods", "lastProbeTime": ts(d), "lastTransitionTime": ts(d) },
        ]));
    }
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": { "name": name, "namespace": ns, "uid": uid, "resourceVersion": "", "generation": 1, "creationTimestamp": ts(created), "labels": { "app": "report" } },
        "spec": { "backoffLimit": 0, "completions": 1, "parallelism": 1, "ttlSecondsAfterFinished": 300,
                  "selector": { "matchLabels": { "batch.kubernetes.io/controller-uid": uid } },
                  "template": { "spec": { "containers": [{ "name": "report", "image": IMAGE }], "restartPolicy": "Never" } } },
        "status": status,
    })
}

fn one_job(rec: &mut Recorder, rng: &mut SplitMix64, ns: &str, t: DateTime<Utc>, n: usize) {
    let name = format!("report-{}", t.timestamp() / 60);
    let uid = rng.uuid();
    let ms = Duration::milliseconds;
    let host = NODES[n].name;
    rec.push(t, ObjectChange::Added, job_object(&name, ns, &uid, t, None));
    let job_ref = ObjRef {
        api_version: "batch/v1",
        kind: "Job",
        name: name.clone(),
        namespace: Some(ns.into()),
        uid: uid.clone(),
        field_path: None,
    };
    let template = Rc::new(PodTemplate {
        namespace: ns.to_string(),
        app: "report".into(),
        generate_name: format!("{name}-"),
        labels: vec![
            ("app".into(), "report".into()),
            ("batch.kubernetes.io/job-name".into(), name.clone()),
            ("job-name".into(), name.clone()),
        ],
        owner: Owner { api_version: "batch/v1", kind: "Job", name: name.clone(), uid: uid.clone() },
        containers: vec![ContainerDef {
            name: "report",
            image: IMAGE.into(),
            cpu_m: 0,
            mem_mi: 0,
            i915: 0,
            qos: Qos::BestEffort,
        }],
        pref: Pref::None,
        affinity_app: None,
        gpu_only: false,
        restart_policy: "Never",
        job_tracking: true,
    });
    let pod_name = format!("{name}-{}", rng.name_suffix(5));
    let mut pod = PodState::new(pod_name.clone(), rng.uuid(), template, t + ms(20));
    rec.push(t + ms(20), ObjectChange::Added, pod.render());
    event(
        rec,
        rng,
        t + ms(22),
        &job_ref,
        ("SuccessfulCreate", &format!("Created pod: {pod_name}")),
        Source::Controller("job-controller"),
    );

    let bound = t + ms(45);
    pod.node = Some((n, host));
    pod.scheduled_at = Some(bound);
    rec.push(bound, ObjectChange::Modified, pod.render());
    let pref = pod.obj_ref();
    let et = jittered(rng, bound);
    let id = EventId::new(rng, &pod_name, et);
    let note = format!("Successfully assigned {ns}/{pod_name} to {host}");
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
    rec.push(bound, ObjectChange::Added, ev.to_json());

    let started = t + ms(1_400);
    pod.host_ip = Some(NODES[n].address);
    pod.start_time = Some(bound + ms(200));
    pod.pod_ip = Some(format!("10.42.{n}.{}", 100 + rng.below(150)));
    let cref = pref.container("report");
    event(
        rec,
        rng,
        started - ms(300),
        &cref,
        ("Pulled", &format!("Container image \"{IMAGE}\" already present on machine")),
        Source::Kubelet(host),
    );
    event(rec, rng, started - ms(200), &cref, ("Created", "Created container: report"), Source::Kubelet(host));
    event(rec, rng, started - ms(150), &cref, ("Started", "Started container report"), Source::Kubelet(host));
    pod.container_ids = vec![rng.hex(64)];
    pod.phase = Phase::Running;
    pod.running_since = Some(started);
    pod.ready_since = Some(started);
    rec.push(started, ObjectChange::Modified, pod.render());

    let done = started + Duration::seconds(90);
    pod.terminated = Some((done, 0));
    pod.phase = Phase::Succeeded;
    pod.ready_since = None;
    pod.unready_since = Some(done);
    rec.push(done, ObjectChange::Modified, pod.render());
    pod.finalizer = false;
    rec.push(done + ms(30), ObjectChange::Modified, pod.render());
    rec.push(done + ms(40), ObjectChange::Modified, job_object(&name, ns, &uid, t, Some(done + ms(40))));
    event(rec, rng, done + ms(45), &job_ref, ("Completed", "Job completed"), Source::Controller("job-controller"));

    let ttl = done + Duration::seconds(300);
    rec.push(ttl, ObjectChange::Deleted, job_object(&name, ns, &uid, t, Some(done + ms(40))));
    pod.deletion = Some((ttl, 0));
    rec.push(ttl + ms(30), ObjectChange::Deleted, pod.render());
}
