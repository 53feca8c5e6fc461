//! `kdrift postmortem job NAMESPACE/NAME`: why a Job failed. A Job name
//! explains that Job; a CronJob name explains its failed runs (and lists the
//! others). Per run: the failure (a `Failed` / `FailureTarget` condition of
//! the stored Job — `DeadlineExceeded`, `BackoffLimitExceeded`, … — else the
//! Job controller's event of that reason), the limits, the controllers'
//! events, and its pods: the why-pending chain of a pod that never started,
//! the last container states of one that ran.

pub mod containers;

use chrono::{DateTime, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;
use serde_json::Value;

pub use containers::{ContainerEnd, JobCondition};

use crate::pending::{why_pending, PendingReport};
use crate::AnalyzeError;

/// Job controller reasons that end a Job as failed.
const FAILURE_REASONS: [&str; 5] =
    ["DeadlineExceeded", "BackoffLimitExceeded", "FailedIndexes", "MaxFailedIndexesExceeded", "PodFailurePolicy"];

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    /// A `Failed` (or `FailureTarget`) condition, or a failure event.
    Failed,
    /// A `Complete` condition or a `Completed` event.
    Succeeded,
    /// Neither, with a stored object.
    Running,
    /// Known only from events that say neither.
    Unknown,
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobFailure {
    /// `DeadlineExceeded`, `BackoffLimitExceeded`, …
    pub reason: String,
    /// The controller's message.
    pub message: String,
    /// When (UTC).
    pub at: Option<DateTime<Utc>>,
    /// `condition` (the Job object) or `event`.
    pub source: String,
}

/// One event of the Job or CronJob controller about the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobEvent {
    /// When (UTC).
    pub at: DateTime<Utc>,
    /// `Job` or `CronJob`.
    pub kind: String,
    /// `Normal` or `Warning`.
    pub event_type: String,
    /// Reason.
    pub reason: String,
    /// Message.
    pub message: String,
}

/// One pod of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobPod {
    /// Pod name.
    pub name: String,
    /// Uid (`""` when unknown).
    pub uid: String,
    /// The node it was bound to (`None`: never bound).
    pub node: Option<String>,
    /// Last known phase.
    pub phase: Option<String>,
    /// Its last stored version is a deletion.
    pub deleted: bool,
    /// `never-started` (never bound to a node), `ran`, or `unknown` (no object, no Scheduled event).
    pub outcome: String,
    /// Containers' last states (a pod that ran).
    pub containers: Vec<ContainerEnd>,
    /// The why-pending chain (a pod that never started and had FailedScheduling).
    pub chain: Option<PendingReport>,
    /// What found it (query `job_pods`): `owner` (its ownerReferences),
    /// `created-event` / `deleted-event` (the Job's `Created pod:` /
    /// `Deleted pod:` events), `pod-events` (events of a pod named
    /// `<job>-<5 characters>` since the Job's creation).
    pub found_by: Vec<String>,
    /// No object of it is stored: it is known only from events, and its
    /// chain is reconstructed from them (its spec from its owner's template).
    pub reconstructed: bool,
}

/// What `postmortem job` looked for when it found no pod of a Job: one line.
pub fn no_pod_found(namespace: &str, job: &str) -> String {
    format!(
        "no pod of Job {namespace}/{job} in the store (looked for pods owned by the Job, its `Created pod:` and \
         `Deleted pod:` events, and events of pods named {job}-xxxxx since its creation)"
    )
}

/// One run (Job).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobRun {
    /// Job name.
    pub name: String,
    /// Uid (`""` when unknown).
    pub uid: String,
    /// `CronJob/name` when a CronJob created it.
    pub owner: Option<String>,
    /// Created (UTC).
    pub created_at: Option<DateTime<Utc>>,
    /// `status.startTime`.
    pub started_at: Option<DateTime<Utc>>,
    /// `status.completionTime`, else the failure time.
    pub finished_at: Option<DateTime<Utc>>,
    /// How it ended.
    pub status: RunStatus,
    /// Why it failed.
    pub failure: Option<JobFailure>,
    /// `spec.activeDeadlineSeconds`.
    pub active_deadline_seconds: Option<i64>,
    /// `spec.backoffLimit`.
    pub backoff_limit: Option<i64>,
    /// The stored Job's conditions.
    pub conditions: Vec<JobCondition>,
    /// The controllers' events, oldest first.
    pub events: Vec<JobEvent>,
    /// Its pods, oldest first.
    pub pods: Vec<JobPod>,
    /// When no pod was found: what was looked for ([`no_pod_found`]).
    pub no_pods: Option<String>,
}

/// A run of the CronJob that is not explained (it did not fail).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OtherRun {
    /// Job name.
    pub name: String,
    /// How it ended.
    pub status: RunStatus,
    /// Created (UTC).
    pub created_at: Option<DateTime<Utc>>,
}

/// What `postmortem job` says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobPostmortem {
    /// Namespace.
    pub namespace: String,
    /// The name asked for.
    pub name: String,
    /// Whether the name is a CronJob's (its failed runs are explained).
    pub cronjob: bool,
    /// The runs explained, oldest first.
    pub runs: Vec<JobRun>,
    /// The CronJob's other runs.
    pub other_runs: Vec<OtherRun>,
    /// Caveats.
    pub notes: Vec<String>,
}

struct JobRow {
    name: String,
    uid: String,
    owner_kind: Option<String>,
    owner_name: Option<String>,
    created_at: Option<DateTime<Utc>>,
    object: Option<Value>,
}

/// The namespaces holding a Job or CronJob named `name` (a Job object, or a
/// Job or CronJob event; query `job_name_namespaces`): where
/// `postmortem job NAME` looks for it.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn job_name_namespaces(store: &Reader, name: &str) -> Result<Vec<String>, AnalyzeError> {
    Ok(store.query_map(&sql::JOB_NAME_NAMESPACES, [name], |r| r.get(0))?)
}

/// Every Job and CronJob the store knows, as (namespace, name): an object
/// version or an event about one (query `job_names`). What shell completion
/// offers for `postmortem job`.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn job_names(store: &Reader) -> Result<Vec<(String, String)>, AnalyzeError> {
    Ok(store.query_map(&sql::JOB_NAMES, [], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

/// The postmortem of the Job (or the CronJob's failed Jobs) `namespace/name`.
/// `Ok(None)` when the store knows no such Job or CronJob.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn postmortem_job(store: &Reader, namespace: &str, name: &str) -> Result<Option<JobPostmortem>, AnalyzeError> {
    let rows = store.query_map(&sql::JOBS, [namespace, name], |r| {
        Ok(JobRow {
            name: r.get(0)?,
            uid: r.get(1)?,
            owner_kind: r.get(2)?,
            owner_name: r.get(3)?,
            created_at: r.get(4)?,
            object: r.get::<_, Option<String>>(7)?.and_then(|j| serde_json::from_str(&j).ok()),
        })
    })?;
    if rows.is_empty() {
        return Ok(None);
    }
    let cronjob = !rows.iter().any(|r| r.name == name);
    let mut notes = Vec::new();
    let mut runs = Vec::new();
    let mut other_runs = Vec::new();
    for row in rows.iter().filter(|r| !cronjob || r.name != name) {
        let run = run(store, namespace, row)?;
        if cronjob && run.status != RunStatus::Failed {
            other_runs.push(OtherRun { name: run.name, status: run.status, created_at: run.created_at });
        } else {
            runs.push(run);
        }
    }
    if rows.iter().any(|r| r.object.is_none()) {
        notes.push(
            "some Jobs are known only from events (their objects are not in the store): status from events".into(),
        );
    }
    if cronjob && runs.is_empty() {
        notes.push(format!("no run of CronJob {namespace}/{name} failed ({} run(s) in the store)", other_runs.len()));
    }
    Ok(Some(JobPostmortem {
        namespace: namespace.to_string(),
        name: name.to_string(),
        cronjob,
        runs,
        other_runs,
        notes,
    }))
}

fn run(store: &Reader, namespace: &str, row: &JobRow) -> Result<JobRun, AnalyzeError> {
    let events = store.query_map(&sql::JOB_EVENTS, [namespace, row.name.as_str()], |r| {
        Ok(JobEvent {
            at: r.get(0)?,
            kind: r.get(1)?,
            event_type: r.get(2)?,
            reason: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
            message: r.get(4)?,
        })
    })?;
    let conditions = row.object.as_ref().map(containers::job_conditions).unwrap_or_default();
    let (active_deadline_seconds, backoff_limit) = row.object.as_ref().map(containers::job_limits).unwrap_or_default();
    let (started_at, completed_at) = row.object.as_ref().map(containers::job_times).unwrap_or_default();
    let true_cond = |kind: &str| conditions.iter().find(|c| c.kind == kind && c.status == "True");
    let failure = true_cond("Failed")
        .or_else(|| true_cond("FailureTarget"))
        .map(|c| JobFailure {
            reason: c.reason.clone(),
            message: c.message.clone(),
            at: c.at,
            source: "condition".into(),
        })
        .or_else(|| {
            events.iter().find(|e| e.kind == "Job" && FAILURE_REASONS.contains(&e.reason.as_str())).map(|e| {
                JobFailure {
                    reason: e.reason.clone(),
                    message: e.message.clone(),
                    at: Some(e.at),
                    source: "event".into(),
                }
            })
        });
    let succeeded =
        true_cond("Complete").is_some() || events.iter().any(|e| e.kind == "Job" && e.reason == "Completed");
    let status = match (&failure, succeeded, &row.object) {
        (Some(_), _, _) => RunStatus::Failed,
        (None, true, _) => RunStatus::Succeeded,
        (None, false, Some(_)) => RunStatus::Running,
        (None, false, None) => RunStatus::Unknown,
    };
    let pods = pods(store, namespace, &row.name, row.created_at)?;
    let no_pods = pods.is_empty().then(|| no_pod_found(namespace, &row.name));
    Ok(JobRun {
        name: row.name.clone(),
        uid: row.uid.clone(),
        owner: match (&row.owner_kind, &row.owner_name) {
            (Some(k), Some(n)) => Some(format!("{k}/{n}")),
            _ => None,
        },
        created_at: row.created_at,
        started_at,
        finished_at: completed_at.or_else(|| failure.as_ref().and_then(|f| f.at)),
        status,
        failure,
        active_deadline_seconds,
        backoff_limit,
        conditions,
        events,
        pods,
        no_pods,
    })
}

fn pods(
    store: &Reader,
    namespace: &str,
    job: &str,
    created_at: Option<DateTime<Utc>>,
) -> Result<Vec<JobPod>, AnalyzeError> {
    let since = created_at.map_or(0, |t| t.timestamp_micros());
    let rows = store.query_map(&sql::JOB_PODS, kdrift_store::params![namespace, job, since], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<String>>(5)?,
            r.get::<_, Option<String>>(6)?,
            r.get::<_, Option<String>>(7)?,
        ))
    })?;
    let mut out = Vec::new();
    for (name, uid, node, change, object, found_by) in rows {
        let found_by: Vec<String> =
            found_by.unwrap_or_default().split(',').filter(|s| !s.is_empty()).map(str::to_string).collect();
        let reconstructed = object.is_none();
        let object: Option<Value> = object.and_then(|j| serde_json::from_str(&j).ok());
        let phase =
            object.as_ref().and_then(|o| o.pointer("/status/phase")).and_then(Value::as_str).map(str::to_string);
        let containers = object.as_ref().map(containers::container_ends).unwrap_or_default();
        let outcome = match (&node, &object) {
            (Some(_), _) => "ran",
            (None, Some(_)) => "never-started",
            (None, None) => "unknown",
        };
        let chain = if node.is_none() { why_pending(store, namespace, &name)? } else { None };
        let outcome = if outcome == "unknown" && chain.is_some() { "never-started" } else { outcome };
        out.push(JobPod {
            name,
            uid,
            node,
            phase,
            deleted: change.as_deref() == Some("DELETED") || found_by.iter().any(|f| f == "deleted-event"),
            outcome: outcome.to_string(),
            containers: if outcome == "ran" { containers } else { Vec::new() },
            chain,
            found_by,
            reconstructed,
        });
    }
    Ok(out)
}
