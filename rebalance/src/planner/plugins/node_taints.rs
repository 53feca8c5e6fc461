//! `RemovePodsViolatingNodeTaints` planned: which pods descheduler v0.36 would evict, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodsviolatingnodetaints/`;
//! descheduler-plugins.md §2.2. STUB: plans nothing yet.

use crate::planner::cycle::Cycle;
use crate::planner::plan::PluginRun;
use crate::policy::{ExtensionPoint, Profile, RemovePodsViolatingNodeTaintsArgs};

/// Runs `RemovePodsViolatingNodeTaints` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &RemovePodsViolatingNodeTaintsArgs) -> PluginRun {
    let _ = (&cycle, args);
    let mut run =
        PluginRun::new(&profile.name, crate::policy::REMOVE_PODS_VIOLATING_NODE_TAINTS, ExtensionPoint::Deschedule);
    run.notes.push("kdrift does not model this plugin yet: it plans no eviction".to_string());
    run
}
