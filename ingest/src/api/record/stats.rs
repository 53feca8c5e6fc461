//! What the recorder has done so far, shared with its metrics and probes
//! server ([`super::serve`], `kdrift record --metrics-addr`; issue 38
//! item 2). The recorder's loop and its watchers write here where they
//! already count (a batch committed publishes each resource's
//! [`ResourceReport`](crate::api::ResourceReport) totals; a watcher counts
//! its restarts and 410s as they happen); the server only reads.
//!
//! Two rules answer the probes:
//! - ready ([`RecorderStats::readiness`]): every resource's first list
//!   ended (it is watched), or the server refused the resource (403 / 404:
//!   it is reported, never watched, and would keep the recorder unready);
//! - healthy ([`RecorderStats::health`]): fewer than `unhealthy_after`
//!   batch commits failed in a row (a failed batch stays staged and goes
//!   with the next commit, `RunWriter::commit_batch`; a successful commit
//!   makes the recorder healthy again).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use kdrift_rebalance::ResourceKind;

/// `--unhealthy-after`'s default: /healthz fails once this many batch
/// commits failed in a row (a batch every 5 s: 15 s of failing commits).
pub const DEFAULT_UNHEALTHY_AFTER: u32 = 3;

/// The recorder ends with the store's error after this many failed batch
/// commits in a row (or `unhealthy_after`, when higher): a store that
/// stays broken is not retried for ever when nothing probes the recorder.
pub const FAILED_COMMITS_GIVEN_UP: u32 = 10;

/// One resource's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceStats {
    /// Object versions received (listed or watched) and committed, new or
    /// already stored: the resource's `received` at the last successful commit.
    pub committed: u64,
    /// Items and watch lines skipped (errors of the run), at the last successful commit.
    pub item_errors: u64,
    /// Lists and watches that failed (retried, or fatal).
    pub failures: u64,
    /// Watch requests started again after one ended (its timeoutSeconds,
    /// a dropped connection, a failure); a 410 is counted in `gone`.
    pub watch_restarts: u64,
    /// Lists after the first (after a 410 Gone or a failure).
    pub relists: u64,
    /// 410 Gone answers (an expired resourceVersion or continue token).
    pub gone: u64,
    /// The first list ended: the resource is watched.
    pub synced: bool,
    /// The server refused the resource (403 / 404): not recorded.
    pub unavailable: bool,
}

/// A copy of the recorder's counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatsSnapshot {
    /// Per resource (kubectl's `resource.group` name).
    pub resources: BTreeMap<String, ResourceStats>,
    /// Batch commits that succeeded.
    pub commits: u64,
    /// Batch commits that failed.
    pub failed_commits: u64,
    /// Batch commits that failed since the last one that succeeded.
    pub failed_in_a_row: u32,
    /// The last failed commit's error (cleared by a successful commit).
    pub last_commit_error: Option<String>,
    /// When the last batch committed, in Unix seconds.
    pub last_commit_unix_seconds: Option<f64>,
    /// Times `metrics.k8s.io` was asked.
    pub usage_takes: u64,
    /// Node and pod usage samples read from it.
    pub usage_samples: u64,
    /// Whether the recorder started (its resources are known).
    pub started: bool,
}

/// The shared counts (behind `Arc`; see the module doc).
#[derive(Debug)]
pub struct RecorderStats {
    state: Mutex<StatsSnapshot>,
    unhealthy_after: u32,
    stopping: AtomicBool,
}

impl Default for RecorderStats {
    fn default() -> RecorderStats {
        RecorderStats::new(DEFAULT_UNHEALTHY_AFTER)
    }
}

/// Identity: two options are the same when they share one [`RecorderStats`].
impl PartialEq for RecorderStats {
    fn eq(&self, other: &RecorderStats) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for RecorderStats {}

impl RecorderStats {
    /// Counts whose /healthz fails after `unhealthy_after` failed commits in a row (at least 1).
    pub fn new(unhealthy_after: u32) -> RecorderStats {
        RecorderStats {
            state: Mutex::new(StatsSnapshot::default()),
            unhealthy_after: unhealthy_after.max(1),
            stopping: AtomicBool::new(false),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut StatsSnapshot) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Changes `resource`'s counts.
    pub fn resource(&self, resource: &ResourceKind, f: impl FnOnce(&mut ResourceStats)) {
        self.with(|s| f(s.resources.entry(resource.name()).or_default()));
    }

    /// The recorder starts with these resources.
    pub fn begin(&self, resources: &[ResourceKind]) {
        self.with(|s| {
            for r in resources {
                s.resources.entry(r.name()).or_default();
            }
            s.started = true;
        });
    }

    /// A batch committed: each resource's versions received and items
    /// skipped so far, `(name, committed, item_errors)`.
    pub fn committed(&self, totals: impl IntoIterator<Item = (String, u64, u64)>) {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
        self.with(|s| {
            for (name, committed, item_errors) in totals {
                let r = s.resources.entry(name).or_default();
                r.committed = committed;
                r.item_errors = item_errors;
            }
            s.commits += 1;
            s.failed_in_a_row = 0;
            s.last_commit_error = None;
            s.last_commit_unix_seconds = Some(now);
        });
    }

    /// A batch commit failed with `error`; returns the failures in a row.
    pub fn commit_failed(&self, error: &str) -> u32 {
        self.with(|s| {
            s.failed_commits += 1;
            s.failed_in_a_row += 1;
            s.last_commit_error = Some(error.to_string());
            s.failed_in_a_row
        })
    }

    /// Batch commits failed since the last that succeeded.
    pub fn failed_in_a_row(&self) -> u32 {
        self.with(|s| s.failed_in_a_row)
    }

    /// Failed commits in a row after which the recorder ends ([`FAILED_COMMITS_GIVEN_UP`]).
    pub fn give_up_after(&self) -> u32 {
        FAILED_COMMITS_GIVEN_UP.max(self.unhealthy_after)
    }

    /// The usage totals after a take of `metrics.k8s.io`.
    pub fn usage(&self, takes: u64, samples: u64) {
        self.with(|s| {
            s.usage_takes = takes;
            s.usage_samples = samples;
        });
    }

    /// The recorder was asked to stop (SIGTERM): a commit failing now was
    /// stopped by it and ends the recorder, not retried.
    pub fn stop_requested(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// Whether [`RecorderStats::stop_requested`] was called.
    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// A copy of the counts.
    pub fn snapshot(&self) -> StatsSnapshot {
        self.with(|s| s.clone())
    }

    /// `Ok` when every resource is watched or refused by the server;
    /// else why not, naming the resources still in their first list.
    ///
    /// # Errors
    /// The reason, for /readyz's 503 body.
    pub fn readiness(&self) -> Result<(), String> {
        readiness(&self.snapshot())
    }

    /// `Ok` unless the last `unhealthy_after` batch commits failed.
    ///
    /// # Errors
    /// The reason with the last error, for /healthz's 503 body.
    pub fn health(&self) -> Result<(), String> {
        health(&self.snapshot(), self.unhealthy_after)
    }
}

/// The readiness rule ([`RecorderStats::readiness`]).
///
/// # Errors
/// The reason.
pub fn readiness(s: &StatsSnapshot) -> Result<(), String> {
    if !s.started {
        return Err("not ready: the recorder has not started".to_string());
    }
    let listing: Vec<&str> =
        s.resources.iter().filter(|(_, r)| !r.synced && !r.unavailable).map(|(n, _)| n.as_str()).collect();
    if listing.is_empty() {
        Ok(())
    } else {
        Err(format!("not ready: first list not finished for {}", listing.join(", ")))
    }
}

/// The health rule ([`RecorderStats::health`]).
///
/// # Errors
/// The reason.
pub fn health(s: &StatsSnapshot, unhealthy_after: u32) -> Result<(), String> {
    if s.failed_in_a_row >= unhealthy_after.max(1) {
        let error = s.last_commit_error.as_deref().unwrap_or("");
        Err(format!("unhealthy: the last {} batch commits failed; the last error: {error}", s.failed_in_a_row))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kdrift_rebalance::HISTORY_RESOURCES;

    #[test]
    fn healthy_until_the_last_n_commits_failed_and_again_after_one_succeeds() {
        let stats = RecorderStats::new(3);
        assert_eq!(stats.health(), Ok(()));
        assert_eq!(stats.commit_failed("disk full"), 1);
        assert_eq!(stats.commit_failed("disk full"), 2);
        assert_eq!(stats.health(), Ok(()), "2 of 3");
        assert_eq!(stats.commit_failed("IO Error: read-only"), 3);
        assert_eq!(
            stats.health(),
            Err("unhealthy: the last 3 batch commits failed; the last error: IO Error: read-only".to_string())
        );
        stats.committed([("pods".to_string(), 5, 0)]);
        assert_eq!(stats.health(), Ok(()));
        let s = stats.snapshot();
        assert_eq!((s.commits, s.failed_commits, s.failed_in_a_row), (1, 3, 0));
        assert_eq!(s.resources["pods"].committed, 5);
        assert_eq!(stats.give_up_after(), FAILED_COMMITS_GIVEN_UP);
        assert_eq!(RecorderStats::new(20).give_up_after(), 20);
    }

    #[test]
    fn ready_once_every_resource_is_watched_or_refused() {
        let stats = RecorderStats::default();
        assert_eq!(stats.readiness(), Err("not ready: the recorder has not started".to_string()));
        let [namespaces, nodes] = [HISTORY_RESOURCES[0], HISTORY_RESOURCES[1]];
        stats.begin(&[namespaces, nodes]);
        let mut both = [namespaces.name(), nodes.name()];
        both.sort();
        assert_eq!(stats.readiness(), Err(format!("not ready: first list not finished for {}", both.join(", "))));
        stats.resource(&namespaces, |r| r.synced = true);
        assert_eq!(stats.readiness(), Err(format!("not ready: first list not finished for {}", nodes.name())));
        stats.resource(&nodes, |r| r.unavailable = true);
        assert_eq!(stats.readiness(), Ok(()));
    }
}
