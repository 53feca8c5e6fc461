//! `RemoveDuplicates` planned: which pods descheduler v0.36 would evict, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removeduplicates/`;
//! descheduler-plugins.md §3.1. STUB: plans nothing yet.

use crate::planner::cycle::Cycle;
use crate::planner::plan::PluginRun;
use crate::policy::{ExtensionPoint, Profile, RemoveDuplicatesArgs};

/// Runs `RemoveDuplicates` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &RemoveDuplicatesArgs) -> PluginRun {
    let _ = (&cycle, args);
    let mut run = PluginRun::new(&profile.name, crate::policy::REMOVE_DUPLICATES, ExtensionPoint::Balance);
    run.notes.push("kdrift does not model this plugin yet: it plans no eviction".to_string());
    run
}
