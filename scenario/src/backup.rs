//! The `media/backup` CronJob (`0 4 * * *`): its Job needs 100m CPU next to
//! plex (required pod affinity `app=plex`, topologyKey hostname).
//!
//! Day 1 it runs and succeeds. Day 2 it cannot be placed: one events.k8s.io
//! FailedScheduling Event whose `series` grows as the scheduler retries
//! (about every 5 minutes, the unschedulable-queue flush) and the recorder
//! writes it back (second occurrence at once, then every 30 minutes), until
//! the Job's `activeDeadlineSeconds` expires and the Job controller deletes
//! the pod.

use std::rc::Rc;

use chrono::{DateTime, Datelike, Duration, Utc};

use super::catalog::{ContainerDef, Pref, Qos};
use super::controllers::{CronJobState, JobState, BACKUP_CRONJOB, BACKUP_DEADLINE_S, BACKUP_NS};
use super::events::{jittered, EventType, ObjRef, SchedulerEvent, Source};
use super::pods::{Owner, Phase, PodTemplate};
use super::sim::{self, NodeView};
use super::story::pod_fact;
use super::world::{at, ms, World};
use super::{ObjectChange, PodFact};

/// CPU request of the backup container, millicores.
const BACKUP_CPU_M: i64 = 100;
/// Memory request of the backup container, MiB.
const BACKUP_MEM_MI: i64 = 256;
/// Scheduler retry period for an unschedulable pod (podMaxInUnschedulablePodsDuration).
const RETRY: i64 = 300;
/// The event recorder writes series updates every 30 minutes, on its own clock.
const SERIES_TICKS: [(u32, u32, u32); 3] = [(4, 17, 42), (4, 47, 42), (5, 17, 42)];

/// What day 1 leaves behind.
pub(crate) struct Day1 {
    /// Job name.
    pub job_name: String,
    /// Its (Succeeded) pod.
    pub pod: PodFact,
    /// The CronJob, for day 2.
    pub cronjob: CronJobState,
}

/// What day 2 tells.
pub(crate) struct Day2 {
    /// Job name.
    pub job_name: String,
    /// Job creation.
    pub job_created_at: DateTime<Utc>,
    /// The Pending pod.
    pub pod: PodFact,
    /// Its requests.
    pub cpu_m: i64,
    /// Its memory request.
    pub mem_mi: i64,
    /// First failed attempt.
    pub failure_at: DateTime<Utc>,
    /// The cluster at that attempt.
    pub usage: Vec<NodeView>,
    /// FailedScheduling note.
    pub note: String,
    /// The Event's name.
    pub event_name: String,
    /// Last series count written.
    pub final_count: u32,
    /// Versions of the Event.
    pub versions: usize,
    /// DeadlineExceeded time.
    pub deadline_exceeded_at: DateTime<Utc>,
    /// Pod deletion.
    pub deleted_at: DateTime<Utc>,
}

fn cronjob_ref(cj: &CronJobState) -> ObjRef {
    ObjRef {
        api_version: "batch/v1",
        kind: "CronJob",
        name: BACKUP_CRONJOB.into(),
        namespace: Some(BACKUP_NS.into()),
        uid: cj.uid.clone(),
        field_path: None,
    }
}

fn job_ref(j: &JobState) -> ObjRef {
    ObjRef {
        api_version: "batch/v1",
        kind: "Job",
        name: j.name.clone(),
        namespace: Some(BACKUP_NS.into()),
        uid: j.uid.clone(),
        field_path: None,
    }
}

/// The demo's backup container: 100m CPU, 256Mi memory (Burstable).
pub(crate) fn container() -> ContainerDef {
    ContainerDef {
        name: "restic",
        image: "restic/restic:0.17.3".into(),
        cpu_m: BACKUP_CPU_M,
        mem_mi: BACKUP_MEM_MI,
        i915: 0,
        qos: Qos::Burstable,
    }
}

/// The pod template of the backup Job `name` (uid `uid`) with `container`:
/// required pod affinity `app=plex` on the hostname topology.
pub(crate) fn pod_template(name: &str, uid: &str, container: ContainerDef) -> PodTemplate {
    PodTemplate {
        namespace: BACKUP_NS.to_string(),
        app: "backup".into(),
        generate_name: format!("{name}-"),
        labels: vec![
            ("app.kubernetes.io/name".into(), "backup".into()),
            ("batch.kubernetes.io/controller-uid".into(), uid.into()),
            ("batch.kubernetes.io/job-name".into(), name.into()),
            ("controller-uid".into(), uid.into()),
            ("job-name".into(), name.into()),
        ],
        owner: Owner { api_version: "batch/v1", kind: "Job", name: name.into(), uid: uid.into() },
        containers: vec![container],
        pref: Pref::None,
        affinity_app: Some("plex".into()),
        gpu_only: false,
        restart_policy: "Never",
        job_tracking: true,
    }
}

/// The CronJob creates the Job of `scheduled` and the Job its pod, with `container`.
fn start_job(
    w: &mut World,
    cj: &mut CronJobState,
    scheduled: DateTime<Utc>,
    container: ContainerDef,
) -> (JobState, usize) {
    let name = format!("{BACKUP_CRONJOB}-{}", scheduled.timestamp() / 60);
    let uid = w.rng.uuid();
    let template = Rc::new(pod_template(&name, &uid, container));
    let created = scheduled + ms(37);
    let mut job = JobState {
        name: name.clone(),
        uid: uid.clone(),
        cronjob_uid: cj.uid.clone(),
        created,
        template: Rc::clone(&template),
        counts: (0, 0, 0),
        ready: 0,
        conditions: Vec::new(),
        completed: None,
    };
    w.rec.push(created, ObjectChange::Added, job.render());
    cj.last_schedule = Some(scheduled);
    cj.active = vec![(name.clone(), uid)];
    w.rec.push(
        created + ms(4),
        ObjectChange::Modified,
        cj.render(&super::controllers::template_json(&template, false)),
    );
    let cref = cronjob_ref(cj);
    w.core_event(
        created + ms(6),
        &cref,
        "SuccessfulCreate",
        &format!("Created job {name}"),
        EventType::Normal,
        Source::Controller("cronjob-controller"),
    );
    let p = w.spawn(&template, created + ms(30));
    job.counts.0 = 1;
    w.rec.push(created + ms(45), ObjectChange::Modified, job.render());
    (job, p)
}

/// Day 1: the Job runs next to plex and completes after 22 minutes.
pub(crate) fn run_day1(w: &mut World, scheduled: DateTime<Utc>) -> Day1 {
    let mut cj = CronJobState {
        uid: w.rng.uuid(),
        created: at(2026, 10, 20, 21, 4, 0),
        last_schedule: None,
        last_success: None,
        active: Vec::new(),
        generation: 1,
    };
    let (mut job, p) = start_job(w, &mut cj, scheduled, container());
    let template = super::controllers::template_json(&job.template, false);
    cj.last_schedule = Some(scheduled - Duration::days(1));
    cj.last_success = Some(scheduled - Duration::days(1) + Duration::minutes(23));
    let mut listed = cj.render(&template);
    if let Some(st) = listed.get_mut("status").and_then(|s| s.as_object_mut()) {
        st.remove("active");
    }
    w.rec.push(w.start + ms(900), ObjectChange::Added, listed);
    cj.last_schedule = Some(scheduled);
    let t = job.created + ms(60);
    w.schedule_or_report(p, t);
    let done = t + Duration::minutes(22) + ms(spread_ms(&job.name));
    {
        let pod = &mut w.pods[p];
        pod.terminated = Some((done, 0));
        pod.phase = Phase::Succeeded;
        pod.ready_since = None;
        pod.unready_since = Some(done);
    }
    w.emit_pod(p, done, ObjectChange::Modified);
    w.pods[p].finalizer = false;
    w.emit_pod(p, done + ms(30), ObjectChange::Modified);
    job.counts = (0, 1, 0);
    job.completed = Some(done + ms(40));
    job.conditions = vec![
        ("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods", done + ms(40)),
        ("Complete", "CompletionsReached", "Reached expected number of succeeded pods", done + ms(40)),
    ];
    w.rec.push(done + ms(40), ObjectChange::Modified, job.render());
    let jref = job_ref(&job);
    w.core_event(
        done + ms(45),
        &jref,
        "Completed",
        "Job completed",
        EventType::Normal,
        Source::Controller("job-controller"),
    );
    let cref = cronjob_ref(&cj);
    w.core_event(
        done + ms(900),
        &cref,
        "SawCompletedJob",
        &format!("Saw completed job: {}, condition: Complete", job.name),
        EventType::Normal,
        Source::Controller("cronjob-controller"),
    );
    cj.active.clear();
    cj.last_success = Some(done + ms(40));
    w.rec.push(
        done + ms(905),
        ObjectChange::Modified,
        cj.render(&super::controllers::template_json(&job.template, false)),
    );
    Day1 { job_name: job.name.clone(), pod: pod_fact(&w.pods[p]), cronjob: cj }
}

fn spread_ms(s: &str) -> i64 {
    super::lifecycle::spread(s, 40_000)
}

/// Day 2: the Job's pod cannot be placed; it stays Pending until the
/// deadline, then the Job fails.
pub(crate) fn run_day2(w: &mut World, scheduled: DateTime<Utc>, mut cj: CronJobState, container: ContainerDef) -> Day2 {
    let (cpu_m, mem_mi) = (container.cpu_m, container.mem_mi);
    let (mut job, p) = start_job(w, &mut cj, scheduled, container);
    let t0 = job.created + ms(60);
    let usage = w.node_views();
    let note = match w.schedule(p, t0) {
        Err(rejects) => sim::failure_message(&rejects),
        Ok(_) => String::new(), // the story is broken; tests catch it
    };
    let id = w.report_unschedulable(p, t0, &note);
    let event_time = id.created;
    let regarding = w.pods[p].obj_ref();
    let version = |series: Option<(u32, DateTime<Utc>)>| {
        SchedulerEvent {
            id: &id,
            regarding: &regarding,
            reason: "FailedScheduling",
            action: "Scheduling",
            note: &note,
            kind: EventType::Warning,
            event_time,
            series,
        }
        .to_json()
    };
    let mut versions = 1;

    let deadline = job.created + Duration::seconds(BACKUP_DEADLINE_S);
    let attempts: Vec<DateTime<Utc>> =
        (1..).map(|k: i64| t0 + Duration::seconds(RETRY * k) + ms(7 * k)).take_while(|a| *a < deadline).collect();
    let mut written = 1;
    if let Some(&a1) = attempts.first() {
        w.rec.push(a1 + ms(2), ObjectChange::Modified, version(Some((2, jittered(&mut w.rng, a1)))));
        versions += 1;
        written = 2;
    }
    for (h, m, s) in SERIES_TICKS {
        let tick = at(scheduled.year(), scheduled.month(), scheduled.day(), h, m, s);
        let seen: Vec<&DateTime<Utc>> = attempts.iter().filter(|a| **a <= tick).collect();
        let count = 1 + seen.len() as u32;
        if let (true, Some(last)) = (count > written, seen.last()) {
            w.rec.push(tick, ObjectChange::Modified, version(Some((count, jittered(&mut w.rng, **last)))));
            versions += 1;
            written = count;
        }
    }

    let dl = deadline + ms(250);
    let msg = "Job was active longer than specified deadline";
    job.conditions = vec![("FailureTarget", "DeadlineExceeded", msg, dl)];
    w.rec.push(dl, ObjectChange::Modified, job.render());
    let deleted_at = w.controller_delete(p, dl + ms(5));
    let jref = job_ref(&job);
    w.core_event(
        deleted_at + ms(5),
        &jref,
        "DeadlineExceeded",
        msg,
        EventType::Warning,
        Source::Controller("job-controller"),
    );
    job.counts = (0, 0, 1);
    job.conditions.push(("Failed", "DeadlineExceeded", msg, deleted_at + ms(10)));
    w.rec.push(deleted_at + ms(10), ObjectChange::Modified, job.render());
    let cref = cronjob_ref(&cj);
    w.core_event(
        deleted_at + ms(700),
        &cref,
        "SawCompletedJob",
        &format!("Saw completed job: {}, condition: Failed", job.name),
        EventType::Normal,
        Source::Controller("cronjob-controller"),
    );
    cj.active.clear();
    w.rec.push(
        deleted_at + ms(705),
        ObjectChange::Modified,
        cj.render(&super::controllers::template_json(&job.template, false)),
    );

    Day2 {
        job_name: job.name.clone(),
        job_created_at: job.created,
        pod: pod_fact(&w.pods[p]),
        cpu_m,
        mem_mi,
        failure_at: t0,
        usage,
        note,
        event_name: id.name.clone(),
        final_count: written,
        versions,
        deadline_exceeded_at: deleted_at + ms(5),
        deleted_at,
    }
}
