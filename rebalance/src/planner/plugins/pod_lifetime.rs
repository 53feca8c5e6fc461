//! `PodLifeTime` planned: which pods descheduler v0.36 would evict, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/podlifetime/pod_lifetime.go`;
//! descheduler-plugins.md §2.4. Every pod bound to a considered node, in any
//! phase (`ListAllPodsOnANode`), goes through namespaces → labelSelector →
//! DefaultEvictor Filter → PreEvictionFilter → age → states → ownerKinds →
//! conditions → exitCodes (ANDed, in that order; the first that fails is
//! the skip reason). The survivors of every node form ONE list, oldest
//! `creationTimestamp` first; a node limit moves on to the next pod, the
//! total limit ends the plugin.
//!
//! Determinism: upstream's `SortPodsBasedOnAge` is unstable over an
//! informer (Go map) order; kdrift sorts stably over node name, then
//! snapshot order. A pod without `creationTimestamp` is taken as Go's zero
//! time: the oldest possible, its age saturating (as `metav1.Time{}` does).
//! The helpers shared with RemoveFailedPods and
//! RemovePodsHavingTooManyRestarts (age, container-state matching, the rule
//! loop's bookkeeping) live here.

use chrono::{DateTime, Utc};

use crate::model::pod::{ContainerStatus, PodInfo, PodStatusInfo};
use crate::planner::cycle::Cycle;
use crate::planner::evictor::FilterOutcome;
use crate::planner::limits::LimitHit;
use crate::planner::plan::{PluginRun, SkipReason, StopReason};
use crate::policy::plugins::pod_lifetime::PodConditionFilter;
use crate::policy::{ExtensionPoint, PodLifeTimeArgs, Profile, POD_LIFE_TIME};

/// Go's `time.Duration` ceiling in whole seconds: the age of a pod whose
/// `creationTimestamp` is unset (Go's zero time) saturates here.
const MAX_AGE_SECONDS: i64 = i64::MAX / 1_000_000_000;

/// Seconds from `t` to `now`, truncated toward zero like Go's
/// `uint(d.Seconds())` for a non-negative `d`; `None` (Go's zero time) is
/// [`MAX_AGE_SECONDS`].
pub(crate) fn seconds_since(now: DateTime<Utc>, t: Option<DateTime<Utc>>) -> i64 {
    match t {
        Some(t) => (now - t).num_seconds(),
        None => MAX_AGE_SECONDS,
    }
}

/// `12s`, or `10925s (3h02m)` from a minute up: the exact figure plus a
/// readable one.
pub(crate) fn age_text(secs: i64) -> String {
    if secs == MAX_AGE_SECONDS {
        return "unknown (no creationTimestamp: Go's zero time, the oldest)".to_string();
    }
    if secs.abs() < 60 {
        return format!("{secs}s");
    }
    let s = secs.abs();
    let (d, h, m) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60);
    let readable = if d > 0 { format!("{d}d{h}h{m:02}m") } else { format!("{h}h{m:02}m") };
    format!("{secs}s ({}{readable})", if secs < 0 { "-" } else { "" })
}

/// The first container status among `statuses` whose waiting or (when
/// `terminated`) terminated reason is in `states`, as `"<kind> <name>
/// waiting|terminated <reason>"`.
pub(crate) fn container_state_in(
    kind: &str,
    statuses: &[ContainerStatus],
    states: &[String],
    terminated: bool,
) -> Option<String> {
    statuses.iter().find_map(|c| {
        let has = |r: &Option<String>| r.as_ref().filter(|r| states.iter().any(|s| s == *r)).cloned();
        if let Some(r) = has(&c.waiting_reason) {
            return Some(format!("{kind} {} waiting {r}", c.name));
        }
        if terminated {
            if let Some(r) = has(&c.terminated_reason) {
                return Some(format!("{kind} {} terminated {r}", c.name));
            }
        }
        None
    })
}

/// The first container among `statuses` whose `state.terminated.exitCode`
/// is in `codes`, as `"<kind> <name> exit code <n>"`.
pub(crate) fn exit_code_in(kind: &str, statuses: &[ContainerStatus], codes: &[i32]) -> Option<String> {
    statuses.iter().find_map(|c| {
        c.terminated_exit_code.filter(|e| codes.contains(e)).map(|e| format!("{kind} {} exit code {e}", c.name))
    })
}

/// A rule's skip: kdrift's words (`upstream: false`) or descheduler's.
pub(crate) fn rule_skip(rule: &str, message: String, upstream: bool) -> SkipReason {
    SkipReason::Rule { rule: rule.to_string(), message, upstream }
}

/// A pod a plugin's rule does not keep.
pub(crate) enum Miss {
    /// It does not break the rule: counted, not listed; the reason (with
    /// its numbers) is shown only when the pod is explained.
    NotMatching(SkipReason),
    /// It breaks the rule, but the plugin keeps it for this reason (listed).
    Skip(SkipReason),
}

/// Runs the shared listing: for each considered node, in name order, each
/// of its pods (any phase) that `scope` selects and that is not already
/// evicted, passes the DefaultEvictor Filter and PreEvictionFilter, and then
/// `rule` (`Ok(why)` keeps it, `Err(Miss::Skip(reason))` records the skip).
/// A pod for which `rule` says `Err(Miss::NotMatching(_))` does not break the
/// plugin's rule: it is counted ([`PluginRun::not_matching`]) whatever the
/// filters would say, and not listed (the rule is checked first for that
/// decision only; a pod is kept exactly when upstream keeps it). Returns the
/// kept pods per node as `(snapshot index, why)`.
pub(crate) fn candidates<'a>(
    cycle: &mut Cycle<'a>,
    profile: &Profile,
    run: &mut PluginRun,
    selects: impl Fn(&PodInfo) -> bool,
    mut rule: impl FnMut(&PodInfo) -> Result<String, Miss>,
) -> Vec<(String, Vec<(usize, String)>)> {
    let evictor = cycle.evictor(profile);
    let snapshot = cycle.snapshot;
    let mut out = Vec::new();
    let nodes: Vec<String> = cycle.nodes.iter().map(|n| n.name.clone()).collect();
    for node in nodes {
        let mut kept = Vec::new();
        let pods = cycle.all_pods_by_node.get(node.as_str()).cloned().unwrap_or_default();
        for idx in pods {
            let pod = &snapshot.pods[idx];
            if !selects(pod) {
                continue;
            }
            let verdict = match rule(pod) {
                Err(Miss::NotMatching(reason)) => {
                    cycle.not_matching(run, idx, || reason.message().0);
                    continue;
                }
                Err(Miss::Skip(reason)) => Err(reason),
                Ok(why) => Ok(why),
            };
            if cycle.evicted.contains(&idx) {
                cycle.skip(run, idx, &node, SkipReason::AlreadyEvicted);
                continue;
            }
            if let FilterOutcome::Fails(reason) = evictor.filter(pod) {
                cycle.skip(run, idx, &node, reason);
                continue;
            }
            if let Some(reason) = evictor.pre_eviction(pod) {
                cycle.skip(run, idx, &node, reason);
                continue;
            }
            match verdict {
                Ok(why) => kept.push((idx, why)),
                Err(reason) => cycle.skip(run, idx, &node, reason),
            }
        }
        out.push((node, kept));
    }
    out
}

/// Evicts each node's kept pods in order, node by node, the way the
/// per-node plugins (RemoveFailedPods, RemovePodsHavingTooManyRestarts) do:
/// a node limit ends the node (its other pods are skipped as not reached), a
/// namespace limit goes on to the next pod, the total limit ends the plugin
/// (every later pod is skipped as not reached). `rank` is 1-based per node.
pub(crate) fn evict_per_node(cycle: &mut Cycle<'_>, run: &mut PluginRun, per_node: &[(String, Vec<(usize, String)>)]) {
    let mut ended = false;
    for (node, pods) in per_node {
        if ended {
            for (idx, _) in pods {
                cycle.skip(run, *idx, node, SkipReason::NotReached { stop: StopReason::NotVisited });
            }
            continue;
        }
        for (rank, (idx, why)) in pods.iter().enumerate() {
            match cycle.evict(run, *idx, node, rank + 1, why.clone()) {
                Ok(()) | Err(LimitHit::Namespace) => {}
                Err(hit) => {
                    let stop = if hit == LimitHit::Total { StopReason::MaxTotal } else { StopReason::MaxPerNode };
                    for (rest, _) in &pods[rank + 1..] {
                        cycle.skip(run, *rest, node, SkipReason::NotReached { stop: stop.clone() });
                    }
                    ended = hit == LimitHit::Total;
                    break;
                }
            }
        }
    }
}

/// Why `pod` matches every filter of `args` at `now` (the filters met,
/// with their numbers), or the first filter it fails.
fn matches(args: &PodLifeTimeArgs, pod: &PodInfo, now: DateTime<Utc>) -> Result<String, SkipReason> {
    let status = pod.status();
    let mut why = Vec::new();
    if let Some(max) = args.max_pod_life_time_seconds {
        let age = seconds_since(now, pod.creation_timestamp);
        if age < 0 || age <= i64::from(max) {
            return Err(rule_skip(
                "younger-than-max-lifetime",
                format!("age {} <= maxPodLifeTimeSeconds {max}", age_text(age)),
                false,
            ));
        }
        why.push(format!("age {} > maxPodLifeTimeSeconds {max}", age_text(age)));
    }
    if !args.states.is_empty() {
        match state_match(args, pod, status) {
            Some(m) => why.push(format!("state {m} listed")),
            None => {
                return Err(rule_skip(
                    "state-not-listed",
                    format!(
                        "no phase, status reason or container state of the pod is in states [{}]",
                        args.states.join(" ")
                    ),
                    false,
                ))
            }
        }
    }
    if let Some(k) = &args.owner_kinds {
        if !k.include.is_empty() {
            match pod.owners.iter().find(|o| k.include.contains(&o.kind)) {
                Some(o) => why.push(format!("owner kind {} included", o.kind)),
                None => {
                    return Err(rule_skip(
                        "owner-kind-not-included",
                        format!("no owner of the pod is of a kind in ownerKinds.include [{}]", k.include.join(" ")),
                        false,
                    ))
                }
            }
        } else if let Some(o) = pod.owners.iter().find(|o| k.exclude.contains(&o.kind)) {
            return Err(rule_skip(
                "owner-kind-excluded",
                format!("owner kind {} is in ownerKinds.exclude", o.kind),
                false,
            ));
        }
    }
    if !args.conditions.is_empty() {
        match args.conditions.iter().find_map(|f| condition_match(f, status, now)) {
            Some(m) => why.push(m),
            None => {
                return Err(rule_skip(
                    "condition-not-matched",
                    "no condition of the pod matches a conditions filter (type, status, reason, minTimeSinceLastTransitionSeconds)".to_string(),
                    false,
                ))
            }
        }
    }
    if !args.exit_codes.is_empty() {
        let found = exit_code_in("container", &status.containers, &args.exit_codes).or_else(|| {
            args.including_init_containers
                .then(|| exit_code_in("init container", &status.init_containers, &args.exit_codes))
                .flatten()
        });
        match found {
            Some(m) => why.push(format!("{m} listed")),
            None => {
                let codes: Vec<String> = args.exit_codes.iter().map(i32::to_string).collect();
                return Err(rule_skip(
                    "exit-code-not-listed",
                    format!("no container terminated with an exit code in exitCodes [{}]", codes.join(" ")),
                    false,
                ));
            }
        }
    }
    Ok(why.join(", "))
}

/// The first of the pod's phase, `status.reason`, container, init (with
/// the flag) and ephemeral (with the flag) waiting/terminated reasons in
/// `states`.
fn state_match(args: &PodLifeTimeArgs, pod: &PodInfo, status: &PodStatusInfo) -> Option<String> {
    let states = &args.states;
    if let Some(phase) = pod.phase.map(|p| p.as_str()).filter(|p| states.iter().any(|s| s == p)) {
        return Some(format!("phase {phase}"));
    }
    if let Some(r) = status.reason.as_ref().filter(|r| states.contains(r)) {
        return Some(format!("status reason {r}"));
    }
    container_state_in("container", &status.containers, states, true)
        .or_else(|| {
            args.including_init_containers
                .then(|| container_state_in("init container", &status.init_containers, states, true))
                .flatten()
        })
        .or_else(|| {
            args.including_ephemeral_containers
                .then(|| container_state_in("ephemeral container", &status.ephemeral_containers, states, true))
                .flatten()
        })
}

/// The first condition of the pod matching filter `f`, described.
fn condition_match(f: &PodConditionFilter, status: &PodStatusInfo, now: DateTime<Utc>) -> Option<String> {
    status.conditions.iter().find_map(|c| {
        let reason = c.reason.as_deref().unwrap_or("");
        if (!f.type_.is_empty() && c.type_ != f.type_)
            || (!f.status.is_empty() && c.status != f.status)
            || (!f.reason.is_empty() && reason != f.reason)
        {
            return None;
        }
        let mut text = format!("condition {}={}", c.type_, c.status);
        if !reason.is_empty() {
            text.push_str(&format!(" ({reason})"));
        }
        if let Some(min) = f.min_time_since_last_transition_seconds {
            let since = seconds_since(now, Some(c.last_transition_time?));
            if since < 0 || since < i64::from(min) {
                return None;
            }
            text.push_str(&format!(" for {} >= minTimeSinceLastTransitionSeconds {min}", age_text(since)));
        }
        Some(text)
    })
}

/// Runs `PodLifeTime` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &PodLifeTimeArgs) -> PluginRun {
    let mut run = PluginRun::new(&profile.name, POD_LIFE_TIME, ExtensionPoint::Deschedule);
    let now = cycle.snapshot.now;
    let snapshot = cycle.snapshot;
    let per_node = candidates(
        cycle,
        profile,
        &mut run,
        |p| args.scope.selects(&p.namespace, &p.labels),
        // Every filter PodLifeTime fails is its rule: such pods are counted.
        |p| matches(args, p, now).map_err(Miss::NotMatching),
    );
    // One list over every node, oldest first (stable: node name, then
    // snapshot order among equal timestamps; `None` first, as Go's zero time).
    let mut all: Vec<(String, usize, String)> = per_node
        .into_iter()
        .flat_map(|(node, pods)| pods.into_iter().map(move |(i, why)| (node.clone(), i, why)))
        .collect();
    all.sort_by_key(|(_, i, _)| snapshot.pods[*i].creation_timestamp);
    let total = all.len();
    for (rank, (node, idx, why)) in all.iter().enumerate() {
        let rule = format!("#{} of {total} (oldest first): {why}", rank + 1);
        if let Err(LimitHit::Total) = cycle.evict(&mut run, *idx, node, rank + 1, rule) {
            for (n, rest, _) in &all[rank + 1..] {
                cycle.skip(&mut run, *rest, n, SkipReason::NotReached { stop: StopReason::MaxTotal });
            }
            break;
        }
    }
    run
}
