//! `PodLifeTime` planned: which pods descheduler v0.36 would evict, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/podlifetime/`;
//! descheduler-plugins.md §2.4. STUB: plans nothing yet.

use crate::planner::cycle::Cycle;
use crate::planner::plan::PluginRun;
use crate::policy::{ExtensionPoint, PodLifeTimeArgs, Profile};

/// Runs `PodLifeTime` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &PodLifeTimeArgs) -> PluginRun {
    let _ = (&cycle, args);
    let mut run = PluginRun::new(&profile.name, crate::policy::POD_LIFE_TIME, ExtensionPoint::Deschedule);
    run.notes.push("kdrift does not model this plugin yet: it plans no eviction".to_string());
    run
}
