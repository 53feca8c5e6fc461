//! `RemoveFailedPods` planned: which pods descheduler v0.36 would evict, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removefailedpods/failedpods.go`;
//! descheduler-plugins.md §2.5. Per considered node (name order), every
//! bound pod whose phase is `Failed` (checked first: other pods are not
//! candidates), then namespaces → labelSelector → DefaultEvictor Filter →
//! PreEvictionFilter → `validateCanEvict` (min age, excluded owner kinds,
//! reasons, exit codes; every failure aggregated as upstream logs it).
//! Pods are taken in listing order (upstream: informer order, unsorted;
//! kdrift: snapshot order). A node limit moves on to the next node, the
//! total limit ends the plugin.
//!
//! A bare Failed pod stays protected by DefaultEvictor's FailedBarePods
//! protection (on by default, descheduler-plugins.md §5). `minPodLifetimeSeconds`
//! defaults to 3600. A `creationTimestamp` after "now" passes the minimum
//! age: upstream converts the negative age with Go's `uint(...)`, which
//! wraps to a huge value on amd64.

use super::pod_lifetime::{age_text, candidates, evict_per_node, rule_skip, seconds_since, Miss};
use crate::model::pod::{ContainerStatus, PodInfo, PodPhase};
use crate::planner::cycle::Cycle;
use crate::planner::plan::{PluginRun, SkipReason};
use crate::policy::{ExtensionPoint, Profile, RemoveFailedPodsArgs, REMOVE_FAILED_PODS};

/// The non-empty waiting and terminated reasons of `statuses`
/// (`getFailedContainerStatusReasons`).
fn reasons_of(statuses: &[ContainerStatus]) -> impl Iterator<Item = &str> {
    statuses.iter().flat_map(|c| {
        [c.waiting_reason.as_deref(), c.terminated_reason.as_deref()].into_iter().flatten().filter(|r| !r.is_empty())
    })
}

/// `validateCanEvict`: why the pod is evicted (with the numbers), or every
/// check it fails, in upstream's words and order.
fn can_evict(
    args: &RemoveFailedPodsArgs,
    pod: &PodInfo,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<String, SkipReason> {
    let status = pod.status();
    let min = args.min_pod_lifetime();
    let age = seconds_since(now, pod.creation_timestamp);
    let mut errs = Vec::new();
    let mut why = vec![if age < 0 {
        format!(
            "phase Failed, age {} (created after now: passes minPodLifetimeSeconds {min}, as upstream's uint conversion wraps)",
            age_text(age)
        )
    } else {
        format!("phase Failed, age {} >= minPodLifetimeSeconds {min}", age_text(age))
    }];
    if age >= 0 && age < i64::from(min) {
        errs.push(format!("pod does not exceed the min age seconds of {min}"));
    }
    for o in pod.owners.iter().filter(|o| args.exclude_owner_kinds.contains(&o.kind)) {
        errs.push(format!("pod's owner kind of {} is excluded", o.kind));
    }
    if !args.reasons.is_empty() {
        let mut all: Vec<&str> = reasons_of(&status.containers).collect();
        all.extend(status.reason.as_deref().filter(|r| !r.is_empty()));
        if args.including_init_containers {
            all.extend(reasons_of(&status.init_containers));
        }
        match all.iter().find(|r| args.reasons.iter().any(|x| x == *r)) {
            Some(r) => why.push(format!("reason {r} listed")),
            None => errs.push("pod does not match any of the reasons".to_string()),
        }
    }
    if !args.exit_codes.is_empty() {
        let init: &[ContainerStatus] = if args.including_init_containers { &status.init_containers } else { &[] };
        match status
            .containers
            .iter()
            .chain(init)
            .filter_map(|c| c.terminated_exit_code)
            .find(|c| args.exit_codes.contains(c))
        {
            Some(c) => why.push(format!("exit code {c} listed")),
            None => errs.push("pod does not match any of the exitCodes".to_string()),
        }
    }
    if errs.is_empty() {
        Ok(why.join(", "))
    } else {
        Err(rule_skip("failed-pod-not-evictable", crate::policy::aggregate(&errs), true))
    }
}

/// Runs `RemoveFailedPods` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &RemoveFailedPodsArgs) -> PluginRun {
    let mut run = PluginRun::new(&profile.name, REMOVE_FAILED_PODS, ExtensionPoint::Deschedule);
    let now = cycle.snapshot.now;
    let per_node = candidates(
        cycle,
        profile,
        &mut run,
        |p| p.phase == Some(PodPhase::Failed) && args.scope.selects(&p.namespace, &p.labels),
        |p| can_evict(args, p, now).map_err(Miss::Skip),
    );
    evict_per_node(cycle, &mut run, &per_node);
    run
}
