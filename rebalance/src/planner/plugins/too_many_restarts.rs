//! `RemovePodsHavingTooManyRestarts` planned: which pods descheduler v0.36
//! would evict, and why the others stay.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodshavingtoomanyrestarts/toomanyrestarts.go`;
//! descheduler-plugins.md §2.6. Per considered node (name order), every
//! bound pod in any phase (`ListAllPodsOnANode`) goes through namespaces →
//! labelSelector → DefaultEvictor Filter → PreEvictionFilter → restarts ≥
//! `podRestartThreshold` (inclusive; the sum of `containerStatuses[].restartCount`,
//! plus init containers with `includingInitContainers`, never ephemeral) →
//! `states` (phase, or a container's — with the flag also an init
//! container's — waiting reason; terminated reasons are not read). The
//! node's pods are then taken most restarts first; a node limit moves on to
//! the next node, the total limit ends the plugin.
//!
//! Determinism: upstream sorts with the unstable `sort.Slice`; kdrift sorts
//! stably, equal restarts keeping snapshot order.

use super::pod_lifetime::{candidates, evict_per_node, rule_skip, Miss};
use crate::model::pod::PodInfo;
use crate::planner::cycle::Cycle;
use crate::planner::plan::{PluginRun, SkipReason};
use crate::policy::{
    ExtensionPoint, Profile, RemovePodsHavingTooManyRestartsArgs, REMOVE_PODS_HAVING_TOO_MANY_RESTARTS,
};

/// The pod's restarts counted as upstream does: `(total, containers, init
/// containers counted)`. Sums in i64 (upstream's int32 sum could wrap).
fn restarts(args: &RemovePodsHavingTooManyRestartsArgs, pod: &PodInfo) -> (i64, i64, Option<i64>) {
    let status = pod.status();
    let containers: i64 = status.containers.iter().map(|c| i64::from(c.restart_count)).sum();
    let init = args
        .including_init_containers
        .then(|| status.init_containers.iter().map(|c| i64::from(c.restart_count)).sum::<i64>());
    (containers + init.unwrap_or(0), containers, init)
}

/// Why the pod is evicted (with its numbers), or why not.
fn rule(args: &RemovePodsHavingTooManyRestartsArgs, pod: &PodInfo) -> Result<String, SkipReason> {
    let threshold = args.pod_restart_threshold;
    let (total, containers, init) = restarts(args, pod);
    if total < i64::from(threshold) {
        return Err(rule_skip(
            "restarts-below-threshold",
            format!("restarts {total} < podRestartThreshold {threshold}"),
            false,
        ));
    }
    let parts = match init {
        Some(i) => format!("containers {containers}, init containers {i}"),
        None => format!("containers {containers}"),
    };
    let mut why = format!("restarts {total} ({parts}) >= podRestartThreshold {threshold}");
    if !args.states.is_empty() {
        let status = pod.status();
        let phase = pod.phase.map(|p| p.as_str()).filter(|p| args.states.iter().any(|s| s == p));
        let init: &[_] = if args.including_init_containers { &status.init_containers } else { &[] };
        let waiting = status
            .containers
            .iter()
            .chain(init)
            .find_map(|c| c.waiting_reason.as_ref().filter(|r| args.states.contains(r)).map(|r| (c, r)));
        match (phase, waiting) {
            (Some(p), _) => why.push_str(&format!(", phase {p} listed")),
            (None, Some((c, r))) => why.push_str(&format!(", container {} waiting {r} listed", c.name)),
            (None, None) => {
                return Err(rule_skip(
                    "state-not-listed",
                    format!(
                        "neither the phase nor a container's waiting reason is in states [{}]",
                        args.states.join(" ")
                    ),
                    false,
                ))
            }
        }
    }
    Ok(why)
}

/// Runs `RemovePodsHavingTooManyRestarts` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &RemovePodsHavingTooManyRestartsArgs) -> PluginRun {
    let mut run = PluginRun::new(&profile.name, REMOVE_PODS_HAVING_TOO_MANY_RESTARTS, ExtensionPoint::Deschedule);
    let snapshot = cycle.snapshot;
    let mut per_node = candidates(
        cycle,
        profile,
        &mut run,
        |p| args.scope.selects(&p.namespace, &p.labels),
        |p| rule(args, p).map_err(Miss::NotMatching),
    );
    for (_, pods) in &mut per_node {
        pods.sort_by_key(|(i, _)| std::cmp::Reverse(restarts(args, &snapshot.pods[*i]).0));
    }
    evict_per_node(cycle, &mut run, &per_node);
    run
}
