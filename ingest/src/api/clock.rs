//! Where the Kubernetes API sources take an observation's time from.
//!
//! A live snapshot or recorder observes an object version when it arrives:
//! wall-clock time ([`WallClock`]). Tests that replay a recorded history
//! through the fake API server need the history's own times instead, so the
//! store holds the same observation times as the dump-file path: a
//! [`ManualClock`] set to the instant a snapshot is taken at, or a
//! [`ReplayClock`] that knows each replayed version's time by its
//! resourceVersion (so the replay need not wait for the recorder after each
//! record).

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

/// A source of "now" for observations.
pub trait Clock: Send + Sync {
    /// The current instant (UTC).
    fn now(&self) -> DateTime<Utc>;

    /// When `object` (an object version just received) is observed; `now()`
    /// unless the clock knows better.
    fn observation_time(&self, object: &serde_json::Value) -> DateTime<Utc> {
        let _ = object;
        self.now()
    }
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct WallClock;

impl Clock for WallClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that only moves when told to; clones share the instant.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<DateTime<Utc>>>);

impl ManualClock {
    /// A clock standing at `at`.
    pub fn new(at: DateTime<Utc>) -> ManualClock {
        ManualClock(Arc::new(Mutex::new(at)))
    }

    /// Moves the clock to `at` (backwards too).
    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = at;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The observation times of a recorded history, by resourceVersion; any
/// other version is observed at [`ReplayClock::fallback`]'s instant.
#[derive(Debug, Clone)]
pub struct ReplayClock {
    times: Arc<std::collections::HashMap<String, DateTime<Utc>>>,
    /// The clock for versions the history does not know.
    pub fallback: ManualClock,
}

impl ReplayClock {
    /// A clock for `(resourceVersion, observed at)` pairs; unknown versions
    /// are observed at `fallback`.
    pub fn new(times: impl IntoIterator<Item = (String, DateTime<Utc>)>, fallback: DateTime<Utc>) -> ReplayClock {
        ReplayClock { times: Arc::new(times.into_iter().collect()), fallback: ManualClock::new(fallback) }
    }
}

impl Clock for ReplayClock {
    fn now(&self) -> DateTime<Utc> {
        self.fallback.now()
    }

    fn observation_time(&self, object: &serde_json::Value) -> DateTime<Utc> {
        let rv = object.pointer("/metadata/resourceVersion").and_then(serde_json::Value::as_str);
        rv.and_then(|rv| self.times.get(rv).copied()).unwrap_or_else(|| self.now())
    }
}
