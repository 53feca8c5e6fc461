//! Progress of an execution as it happens, for a caller to show (issue 38
//! item 3): the executor calls an [`ExecutionProgress`] when an eviction is
//! accepted (the wait for its replacement begins) and when a planned
//! eviction is settled (replaced, refused by a PodDisruptionBudget, skipped,
//! failed, not attempted). The library prints nothing: the CLI renders a bar
//! on a terminal, plain lines or JSON log events otherwise.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::report::{EvictionOutcome, Replacement};

/// Which planned eviction a progress call is about.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    /// Its position in the plan, from 1.
    pub index: usize,
    /// The evictions planned.
    pub total: usize,
    /// The pod, `namespace/name`.
    pub pod: &'a str,
    /// The node it runs on (the plan's).
    pub node: &'a str,
}

/// Receives an execution's progress. Called on the executor's task, in the
/// order things happen (with `concurrency` > 1, steps interleave). Every
/// method does nothing by default.
pub trait ExecutionProgress: Send + Sync {
    /// The execution starts: `total` evictions planned.
    fn planned(&self, total: usize) {
        let _ = total;
    }

    /// The API server accepted the Eviction (201): the wait for the
    /// replacement begins (`waits`: false when `--ready-timeout 0`).
    fn evicted(&self, step: Step<'_>, waits: bool) {
        let _ = (step, waits);
    }

    /// The planned eviction is settled: `outcome` is what the report holds.
    fn settled(&self, step: Step<'_>, outcome: &EvictionOutcome) {
        let _ = (step, outcome);
    }
}

/// Reports nothing (the default of [`super::ExecuteOptions::progress`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl ExecutionProgress for NoProgress {}

/// A shared [`ExecutionProgress`], held by [`super::ExecuteOptions`].
#[derive(Clone)]
pub struct ProgressHandle(pub Arc<dyn ExecutionProgress>);

impl ProgressHandle {
    /// Wraps `progress`.
    pub fn new(progress: impl ExecutionProgress + 'static) -> ProgressHandle {
        ProgressHandle(Arc::new(progress))
    }
}

impl Default for ProgressHandle {
    fn default() -> Self {
        ProgressHandle::new(NoProgress)
    }
}

impl fmt::Debug for ProgressHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressHandle")
    }
}

/// A duration as a clock reads it: `0:42`, `1:05`, `1:02:03` (whole seconds).
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// What an eviction's wait line says, after `[i/n] `:
/// `evicted media/x from node-1 — waiting for its replacement`.
pub fn evicted_line(step: Step<'_>, waits: bool) -> String {
    if waits {
        format!("evicted {} from {} — waiting for its replacement", step.pod, step.node)
    } else {
        format!("evicted {} from {}", step.pod, step.node)
    }
}

/// What a settled eviction's line says, after `[i/n] `: `media/x replaced
/// by media/x-abc on node-2 after 1:05`, `media/x refused by a
/// PodDisruptionBudget: …`, `media/x skipped (Moved): …`.
pub fn settled_line(step: Step<'_>, outcome: &EvictionOutcome) -> String {
    let pod = step.pod;
    match outcome {
        EvictionOutcome::Evicted { replacement, .. } => match replacement {
            Replacement::Ready { pod: new, node, waited_seconds, predicted_node, as_predicted } => {
                let after = clock(Duration::from_secs_f64(waited_seconds.max(0.0)));
                let predicted = match (as_predicted, predicted_node) {
                    (Some(false), Some(p)) => format!(" (predicted {p})"),
                    _ => String::new(),
                };
                format!("{pod} replaced by {new} on {node}{predicted} after {after}")
            }
            Replacement::NotReady { pod: new, node, waited_seconds, .. } => {
                let after = clock(Duration::from_secs_f64(waited_seconds.max(0.0)));
                let seen = match (new, node) {
                    (Some(p), Some(n)) => format!(" ({p} on {n} not Ready)"),
                    (Some(p), None) => format!(" ({p} not scheduled)"),
                    _ => String::new(),
                };
                format!("{pod}: no replacement Ready after {after}{seen}")
            }
            Replacement::NotWaited => format!("{pod} evicted; its replacement not awaited (--ready-timeout 0)"),
            Replacement::NoController => format!("{pod} evicted; no controller recreates it"),
        },
        EvictionOutcome::Blocked { message } => format!("{pod} refused by a PodDisruptionBudget: {message}"),
        EvictionOutcome::Skipped { cause, message } => format!("{pod} skipped ({cause:?}): {message}"),
        EvictionOutcome::Failed { attempts, error } => {
            format!("{pod} failed after {attempts} attempt{}: {error}", if *attempts == 1 { "" } else { "s" })
        }
        EvictionOutcome::NotAttempted { reason } => format!("{pod} not attempted: the run stopped ({reason})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks() {
        assert_eq!(clock(Duration::from_millis(42_900)), "0:42");
        assert_eq!(clock(Duration::from_secs(65)), "1:05");
        assert_eq!(clock(Duration::from_secs(3723)), "1:02:03");
    }

    #[test]
    fn lines() {
        let step = Step { index: 3, total: 8, pod: "media/x", node: "node-1" };
        assert_eq!(evicted_line(step, true), "evicted media/x from node-1 — waiting for its replacement");
        let ready = EvictionOutcome::Evicted {
            attempts: 1,
            replacement: Replacement::Ready {
                pod: "media/x-abc".to_string(),
                node: "node-2".to_string(),
                waited_seconds: 65.4,
                predicted_node: Some("node-3".to_string()),
                as_predicted: Some(false),
            },
        };
        assert_eq!(
            settled_line(step, &ready),
            "media/x replaced by media/x-abc on node-2 (predicted node-3) after 1:05"
        );
        let blocked = EvictionOutcome::Blocked { message: "Cannot evict pod".to_string() };
        assert_eq!(settled_line(step, &blocked), "media/x refused by a PodDisruptionBudget: Cannot evict pod");
    }
}
