//! The Job and pod fields a postmortem reads from stored objects: a Job's
//! conditions and limits, a pod's phase and each container's last state
//! (`status.containerStatuses[].state`, else `lastState`). Tolerant: a
//! missing or mistyped field reads as absent.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

/// One condition of a Job (`Failed`, `FailureTarget`, `Complete`, `SuccessCriteriaMet`, `Suspended`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobCondition {
    /// `type`.
    pub kind: String,
    /// `status` (`True`).
    pub status: String,
    /// `reason` (`DeadlineExceeded`, `BackoffLimitExceeded`, …).
    pub reason: String,
    /// `message`.
    pub message: String,
    /// `lastTransitionTime` (UTC).
    pub at: Option<DateTime<Utc>>,
}

/// How one container ended (or is).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContainerEnd {
    /// Container name.
    pub name: String,
    /// `terminated`, `waiting`, `running`, or `unknown`.
    pub state: String,
    /// The state's reason (`Completed`, `Error`, `OOMKilled`, `CrashLoopBackOff`, …).
    pub reason: Option<String>,
    /// Exit code, when terminated.
    pub exit_code: Option<i64>,
    /// When it finished (UTC), when terminated.
    pub finished_at: Option<DateTime<Utc>>,
    /// Restarts so far.
    pub restart_count: i64,
    /// The state came from `lastState` (the previous run) because the current one says nothing.
    pub from_last_state: bool,
}

/// A container state: kind (`terminated`, …), reason, exit code, finishedAt.
type StateParts = (String, Option<String>, Option<i64>, Option<DateTime<Utc>>);

fn time(v: Option<&Value>) -> Option<DateTime<Utc>> {
    v.and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
        .filter(|t| t.timestamp() > 0)
}

fn text(v: Option<&Value>) -> String {
    v.and_then(Value::as_str).unwrap_or_default().to_string()
}

/// The Job's conditions, in object order.
pub fn job_conditions(job: &Value) -> Vec<JobCondition> {
    job.pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| JobCondition {
                    kind: text(c.get("type")),
                    status: text(c.get("status")),
                    reason: text(c.get("reason")),
                    message: text(c.get("message")),
                    at: time(c.get("lastTransitionTime")),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `spec.activeDeadlineSeconds` and `spec.backoffLimit`.
pub fn job_limits(job: &Value) -> (Option<i64>, Option<i64>) {
    (
        job.pointer("/spec/activeDeadlineSeconds").and_then(Value::as_i64),
        job.pointer("/spec/backoffLimit").and_then(Value::as_i64),
    )
}

/// `status.startTime` and `status.completionTime`.
pub fn job_times(job: &Value) -> (Option<DateTime<Utc>>, Option<DateTime<Utc>>) {
    (time(job.pointer("/status/startTime")), time(job.pointer("/status/completionTime")))
}

/// Every container's (init containers first) last known state.
pub fn container_ends(pod: &Value) -> Vec<ContainerEnd> {
    let mut out = Vec::new();
    for field in ["initContainerStatuses", "containerStatuses"] {
        let Some(list) = pod.pointer(&format!("/status/{field}")).and_then(Value::as_array) else { continue };
        for c in list {
            let restart_count = c.get("restartCount").and_then(Value::as_i64).unwrap_or(0);
            let name = text(c.get("name"));
            let pick = |state: Option<&Value>| -> Option<StateParts> {
                let s = state?.as_object()?;
                let (kind, body) = s.iter().next()?;
                Some((
                    kind.clone(),
                    body.get("reason").and_then(Value::as_str).map(str::to_string),
                    body.get("exitCode").and_then(Value::as_i64),
                    time(body.get("finishedAt")),
                ))
            };
            let current = pick(c.get("state"));
            let (state, from_last_state) = match current {
                Some(s) if s.0 != "waiting" || c.get("lastState").and_then(|l| pick(Some(l))).is_none() => {
                    (Some(s), false)
                }
                Some(s) => (pick(c.get("lastState")).or(Some(s)), true),
                None => (pick(c.get("lastState")), true),
            };
            let (state, reason, exit_code, finished_at) =
                state.unwrap_or_else(|| ("unknown".to_string(), None, None, None));
            out.push(ContainerEnd { name, state, reason, exit_code, finished_at, restart_count, from_last_state });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn terminated_and_crash_looping_containers() {
        let pod = json!({"status": {"containerStatuses": [
            {"name": "a", "restartCount": 0, "state": {"terminated": {"reason": "Error", "exitCode": 2, "finishedAt": "2026-11-28T04:10:00Z"}}},
            {"name": "b", "restartCount": 4, "state": {"waiting": {"reason": "CrashLoopBackOff"}},
             "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137}}},
            {"name": "c"}
        ]}});
        let ends = container_ends(&pod);
        assert_eq!(
            (ends[0].state.as_str(), ends[0].exit_code, ends[0].reason.as_deref()),
            ("terminated", Some(2), Some("Error"))
        );
        assert_eq!(
            (ends[1].state.as_str(), ends[1].reason.as_deref(), ends[1].from_last_state),
            ("terminated", Some("OOMKilled"), true)
        );
        assert_eq!(ends[2].state, "unknown");
    }

    #[test]
    fn job_conditions_and_limits() {
        let job = json!({"spec": {"activeDeadlineSeconds": 5400, "backoffLimit": 6},
            "status": {"conditions": [{"type": "Failed", "status": "True", "reason": "DeadlineExceeded",
                "message": "Job was active longer than specified deadline", "lastTransitionTime": "2026-11-28T05:30:00Z"}]}});
        let c = job_conditions(&job);
        assert_eq!((c[0].kind.as_str(), c[0].reason.as_str()), ("Failed", "DeadlineExceeded"));
        assert_eq!(job_limits(&job), (Some(5400), Some(6)));
    }
}
