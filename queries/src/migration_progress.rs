//! Progress of migrating an existing store to this build's schema, step by
//! step (issue 38 item 3): a migration may rewrite every stored version and
//! take minutes on a large store. The store prints nothing; the caller
//! renders ([`crate::Store::open_reporting`]). A store just created is
//! brought to the current schema without a report (its tables are empty).

use std::path::Path;
use std::time::Duration;

/// Told of each migration step of an existing store, in order.
pub trait MigrationProgress {
    /// Migrating the store at `path` from schema `from` to `to` (one step) begins.
    fn step(&self, path: &Path, from: i64, to: i64) {
        let _ = (path, from, to);
    }

    /// That step was committed after `elapsed`.
    fn step_done(&self, path: &Path, to: i64, elapsed: Duration) {
        let _ = (path, to, elapsed);
    }
}

/// Reports nothing ([`crate::Store::open`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoMigrationProgress;

impl MigrationProgress for NoMigrationProgress {}
