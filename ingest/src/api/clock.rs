//! Where the Kubernetes API sources take an observation's time from.
//!
//! A live snapshot or recorder observes an object version when it arrives:
//! wall-clock time ([`WallClock`]). Tests that replay a recorded history
//! through the fake API server need the history's own times instead: they
//! use a [`ManualClock`] and set it to each replayed record's time before
//! the server sends it, so the store holds the same observation times as the
//! dump-file path.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

/// A source of "now" for observations.
pub trait Clock: Send + Sync {
    /// The current instant (UTC).
    fn now(&self) -> DateTime<Utc>;
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
