//! What the executor writes down, as Kubernetes-shaped objects handed to an
//! [`EventSink`] (the CLI's sink appends them to the store as an ingest run of
//! source kind `kdrift`):
//!
//! - one core/v1 `Event` per eviction attempt, involvedObject the pod,
//!   annotated with the profile and plugin that chose it
//!   (`kdrift.io/profile`, `kdrift.io/plugin`), `reportingComponent: kdrift`, reason [`REASON_EVICTED`] (Normal),
//!   [`REASON_BLOCKED`] (Warning: 429, PodDisruptionBudget),
//!   [`REASON_FAILED`] (Warning) or [`REASON_SKIPPED`] (Normal: gone,
//!   moved, in use, …) — so `why-pending` and a timeline see kdrift's
//!   evictions next to the scheduler's events;
//! - one Event per awaited replacement: [`REASON_REPLACEMENT_READY`]
//!   (Normal, naming the new pod, its node and the predicted node) or
//!   [`REASON_REPLACEMENT_NOT_READY`] (Warning);
//! - one `kdrift.io/v1alpha1` `RebalanceRun` per run (its status holds the
//!   whole [`ExecutionReport`]), which `kdrift check` reads to find the last
//!   successful rebalance.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};

use super::report::{EvictionOutcome, ExecutionReport, Replacement};
use crate::document::PlannedEviction;

/// `reportingComponent` and `source.component` of kdrift's events.
pub const REPORTING_COMPONENT: &str = "kdrift";
/// The Eviction was accepted.
pub const REASON_EVICTED: &str = "Evicted";
/// 429: a PodDisruptionBudget refused the Eviction.
pub const REASON_BLOCKED: &str = "EvictionBlocked";
/// The Eviction failed for good; the run stopped.
pub const REASON_FAILED: &str = "EvictionFailed";
/// kdrift chose not to evict (the pod is gone, moved, in use, …).
pub const REASON_SKIPPED: &str = "EvictionSkipped";
/// The replacement became Ready.
pub const REASON_REPLACEMENT_READY: &str = "ReplacementReady";
/// No replacement became Ready in time.
pub const REASON_REPLACEMENT_NOT_READY: &str = "ReplacementNotReady";
/// `apiVersion` of the run record.
pub const RUN_API_VERSION: &str = "kdrift.io/v1alpha1";
/// `kind` of the run record.
pub const RUN_KIND: &str = "RebalanceRun";

/// Where the executor's records go. Called on the executor's task, one
/// record at a time; a failure stops the run (no further evictions).
pub trait EventSink {
    /// The sink's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// Appends one object (an Event or the RebalanceRun).
    ///
    /// # Errors
    /// The sink's; the executor reports it and stops evicting.
    fn record(&mut self, object: &Value) -> Result<(), Self::Error>;
}

/// Collects the records in memory (tests, `--no-store`).
impl EventSink for Vec<Value> {
    type Error = std::convert::Infallible;
    fn record(&mut self, object: &Value) -> Result<(), Self::Error> {
        self.push(object.clone());
        Ok(())
    }
}

/// A name for a run started at `t`: `rebalance-20261128-020000-123456`.
pub fn run_name(t: DateTime<Utc>) -> String {
    format!("rebalance-{}", t.format("%Y%m%d-%H%M%S-%6f"))
}

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A core/v1 Event about the planned pod.
fn event(
    run: &str,
    suffix: &str,
    e: &PlannedEviction,
    kind: &str,
    reason: &str,
    message: String,
    at: DateTime<Utc>,
) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": format!("{}.{}-{}{}", e.pod.name, run, e.order, suffix),
            "namespace": e.pod.namespace,
            "creationTimestamp": time(at),
            // Which descheduler plugin chose the eviction, as descheduler's
            // own Eviction says it (`reason: "triggered by PROFILE/PLUGIN"`).
            "annotations": {
                "kdrift.io/profile": e.profile,
                "kdrift.io/plugin": e.plugin,
            },
        },
        "involvedObject": {
            "apiVersion": "v1",
            "kind": "Pod",
            "namespace": e.pod.namespace,
            "name": e.pod.name,
            "uid": e.pod.uid,
        },
        "type": kind,
        "reason": reason,
        "message": message,
        "action": "Evict",
        "source": {"component": REPORTING_COMPONENT},
        "reportingComponent": REPORTING_COMPONENT,
        "reportingInstance": run,
        "firstTimestamp": time(at),
        "lastTimestamp": time(at),
        "eventTime": at.to_rfc3339_opts(SecondsFormat::Micros, true),
        "count": 1,
    })
}

/// The Event for one eviction attempt; `None` for [`EvictionOutcome::NotAttempted`].
pub fn attempt_event(run: &str, e: &PlannedEviction, outcome: &EvictionOutcome, at: DateTime<Utc>) -> Option<Value> {
    let (kind, reason, message) = match outcome {
        EvictionOutcome::Evicted { attempts, .. } => (
            "Normal",
            REASON_EVICTED,
            format!(
                "pod evicted from {} node by kdrift (rebalance {run}, eviction {}{}, triggered by {}/{}): {}",
                e.node,
                e.order,
                if *attempts > 1 { format!(", after {attempts} attempts") } else { String::new() },
                e.profile,
                e.plugin,
                e.reason
            ),
        ),
        EvictionOutcome::Blocked { message } => (
            "Warning",
            REASON_BLOCKED,
            format!("eviction from {} refused by a PodDisruptionBudget (rebalance {run}): {message}", e.node),
        ),
        EvictionOutcome::Skipped { message, .. } => {
            ("Normal", REASON_SKIPPED, format!("not evicted from {} (rebalance {run}): {message}", e.node))
        }
        EvictionOutcome::Failed { attempts, error } => (
            "Warning",
            REASON_FAILED,
            format!(
                "eviction from {} failed after {attempts} attempt(s) (rebalance {run}); no further evictions: {error}",
                e.node
            ),
        ),
        EvictionOutcome::NotAttempted { .. } => return None,
    };
    Some(event(run, "", e, kind, reason, message, at))
}

/// The Event for an awaited replacement; `None` when none was awaited.
pub fn replacement_event(
    run: &str,
    e: &PlannedEviction,
    replacement: &Replacement,
    at: DateTime<Utc>,
) -> Option<Value> {
    let predicted = |p: &Option<String>| match p {
        Some(n) => format!(" (predicted {n})"),
        None => String::new(),
    };
    let (kind, reason, message) = match replacement {
        Replacement::Ready { pod, node, waited_seconds, predicted_node, .. } => (
            "Normal",
            REASON_REPLACEMENT_READY,
            format!(
                "replacement {pod} is Ready on {node}{} {waited_seconds:.0} s after the eviction",
                predicted(predicted_node)
            ),
        ),
        Replacement::NotReady { pod, node, waited_seconds, predicted_node } => (
            "Warning",
            REASON_REPLACEMENT_NOT_READY,
            match (pod, node) {
                (Some(pod), Some(node)) => format!(
                    "replacement {pod} on {node}{} is not Ready after {waited_seconds:.0} s",
                    predicted(predicted_node)
                ),
                (Some(pod), None) => format!(
                    "replacement {pod} is not scheduled after {waited_seconds:.0} s{}",
                    predicted(predicted_node)
                ),
                _ => format!("no replacement appeared within {waited_seconds:.0} s{}", predicted(predicted_node)),
            },
        ),
        Replacement::NotWaited | Replacement::NoController => return None,
    };
    Some(event(run, "-replacement", e, kind, reason, message, at))
}

/// The `RebalanceRun` record of a run.
pub fn run_object(report: &ExecutionReport) -> Value {
    let status = serde_json::to_value(report).unwrap_or(Value::Null);
    json!({
        "apiVersion": RUN_API_VERSION,
        "kind": RUN_KIND,
        "metadata": {
            "name": report.run,
            "creationTimestamp": time(report.started_at),
        },
        "status": {
            "outcome": report.outcome.as_str(),
            "startedAt": report.started_at.to_rfc3339_opts(SecondsFormat::Micros, true),
            "finishedAt": report.finished_at.to_rfc3339_opts(SecondsFormat::Micros, true),
            "planned": report.planned,
            "evicted": report.count("Evicted"),
            "blocked": report.count("Blocked"),
            "skipped": report.count("Skipped"),
            "failed": report.count("Failed"),
            "notAttempted": report.count("NotAttempted"),
            "report": status,
        },
    })
}
