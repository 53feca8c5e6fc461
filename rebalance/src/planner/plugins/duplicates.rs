//! `RemoveDuplicates` planned: which pods descheduler v0.36 would evict, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `removeduplicates/removeduplicates.go: Balance`;
//! descheduler-plugins.md §3.1. Per node, the pods passing `namespaces`,
//! Filter and PreEvictionFilter (nodeFit included) are keyed by their sorted
//! `namespace/kind/name/image` strings (one per ownerRef × container image);
//! a pod whose key list equals one already seen on the same node is a
//! duplicate, recorded under each of its owners `(namespace, kind, name,
//! images)`. Every listed pod counts toward its owners' occurrence over all
//! nodes. Per owner: the feasible nodes are the union, over the distinct
//! (tolerations, required node affinity, nodeSelector) of its duplicates, of
//! the nodes whose NoSchedule/NoExecute taints are tolerated and whose labels
//! match — only when more than one node matches; fewer than two → no
//! eviction. `upperAvg = ceil(occurrence / feasible nodes)`; a node with more
//! than `upperAvg` copies loses its duplicates from position `upperAvg - 1`
//! on, in listing order, keeping `upperAvg`. Node limit → next node; total
//! limit → the plugin ends.
//!
//! Deterministic where upstream iterates Go maps: owners in order of first
//! appearance (nodes by name, pods in snapshot order), nodes by name.
//! Upstream requests an eviction once per ownerRef, so a duplicate with two
//! owners over their average is evicted (and counted against the limits)
//! twice, as upstream's test "Evict pods uniformly with two replica sets"
//! counts 4; kdrift records both requests. Pods evicted earlier in the cycle
//! still count (they are still listed) but are skipped as already evicted.
//! A pod whose `images` were not read counts one empty image per app
//! container ([`keys_of`]).
//!
//! Listing: a pod with no ownerReferences or an excluded owner kind, a first
//! pod with no copy on its node, and a protected pod (Filter /
//! PreEvictionFilter) with no twin on its node do not break the rule: they
//! are counted ([`PluginRun::not_matching`]), not listed. The kept original
//! of a duplicate, copies within the average and protected twins are listed.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::node::TaintEffect;
use crate::model::pod::{tolerations_tolerate, ContainerKind, PodInfo};
use crate::planner::cycle::Cycle;
use crate::planner::evictor::FilterOutcome;
use crate::planner::limits::LimitHit;
use crate::planner::node_fit::matches_node_selector;
use crate::planner::plan::{PluginRun, SkipReason, StopReason};
use crate::policy::{ExtensionPoint, Profile, RemoveDuplicatesArgs, REMOVE_DUPLICATES};

/// descheduler v0.36's log line when an owner's duplicates have fewer than
/// two feasible nodes.
pub const TOO_FEW_FEASIBLE_NODES: &str = "Less than two feasible nodes for duplicates to land, skipping eviction";

/// `(namespace, kind, name, imagesHash)`: upstream `podOwner`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct OwnerKey {
    namespace: String,
    kind: String,
    name: String,
    images: String,
}

impl OwnerKey {
    fn text(&self) -> String {
        format!("{} {}/{} (images {:?})", self.kind, self.namespace, self.name, self.images)
    }
}

fn rule(key: &str, message: String, upstream: bool) -> SkipReason {
    SkipReason::Rule { rule: key.to_string(), message, upstream }
}

/// The sorted `spec.containers[].image` of `pod` and upstream's key list.
/// A pod whose images were not read (`images` empty) counts one empty image
/// per app container (at least one), as a container without `image` would,
/// so pods of different owners never share an empty key list.
fn keys_of(pod: &PodInfo) -> (Vec<String>, String) {
    let mut images = pod.images.clone();
    if images.is_empty() {
        let apps = pod.containers.iter().filter(|c| c.kind == ContainerKind::App).count();
        images = vec![String::new(); apps.max(1)];
    }
    images.sort();
    let mut keys: Vec<String> = pod
        .owners
        .iter()
        .flat_map(|o| images.iter().map(move |i| format!("{}/{}/{}/{i}", pod.namespace, o.kind, o.name)))
        .collect();
    keys.sort();
    (keys, images.join("#"))
}

/// Records each skip once per pod (a pod may belong to several owners).
struct Skips {
    decided: BTreeSet<usize>,
}

impl Skips {
    fn skip(&mut self, cycle: &Cycle<'_>, run: &mut PluginRun, idx: usize, node: &str, reason: SkipReason) {
        if self.decided.insert(idx) {
            cycle.skip(run, idx, node, reason);
        }
    }
}

/// Why a pod is never a duplicate (for an explained pod).
fn never_duplicate_text(pod: &PodInfo, args: &RemoveDuplicatesArgs) -> String {
    match pod.owners.iter().find(|o| args.exclude_owner_kinds.contains(&o.kind)) {
        Some(o) => format!("its owner kind {} is in excludeOwnerKinds: never a duplicate", o.kind),
        None => "it has no ownerReferences: never a duplicate".to_string(),
    }
}

/// Why a pod is no duplicate on `node` (for an explained pod).
fn no_copy_text(node: &str) -> String {
    format!("no other pod on {node} has the same owners and container images")
}

/// Runs `RemoveDuplicates` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &RemoveDuplicatesArgs) -> PluginRun {
    let mut run = PluginRun::new(&profile.name, REMOVE_DUPLICATES, ExtensionPoint::Balance);
    let snapshot = cycle.snapshot;
    let evictor = cycle.evictor(profile);
    let before = cycle.evicted.clone();
    let nodes = cycle.nodes.clone();
    let mut skips = Skips { decided: BTreeSet::new() };
    let mut occurrence: BTreeMap<OwnerKey, usize> = BTreeMap::new();
    let mut owner_order: Vec<OwnerKey> = Vec::new();
    // owner → node index → duplicates in listing order.
    let mut duplicates: BTreeMap<OwnerKey, BTreeMap<usize, Vec<usize>>> = BTreeMap::new();
    let mut originals: Vec<(usize, usize, bool)> = Vec::new();
    for (ni, node) in nodes.iter().enumerate() {
        let name = node.name.as_str();
        let mut seen: Vec<(Vec<String>, usize)> = Vec::new();
        // Pods the DefaultEvictor protects, with their keys: listed only
        // when another pod of the node has the same keys (a duplicate).
        let mut protected: Vec<(usize, Vec<String>, SkipReason)> = Vec::new();
        for &idx in cycle.pods_by_node.get(name).map(Vec::as_slice).unwrap_or(&[]) {
            let pod = &snapshot.pods[idx];
            if !args.scope.selects(&pod.namespace, &pod.labels) {
                continue;
            }
            let never_duplicate =
                pod.owners.is_empty() || pod.owners.iter().any(|o| args.exclude_owner_kinds.contains(&o.kind));
            let blocked = match evictor.filter(pod) {
                FilterOutcome::Fails(reason) => Some(reason),
                _ => evictor.pre_eviction(pod),
            };
            if let Some(reason) = blocked {
                if never_duplicate {
                    cycle.not_matching(&mut run, idx, || never_duplicate_text(pod, args));
                } else {
                    protected.push((idx, keys_of(pod).0, reason));
                }
                continue;
            }
            if never_duplicate {
                // No ownerReferences, or an owner kind in excludeOwnerKinds:
                // never a duplicate.
                cycle.not_matching(&mut run, idx, || never_duplicate_text(pod, args));
                continue;
            }
            let (keys, images) = keys_of(pod);
            let owner_keys: Vec<OwnerKey> = pod
                .owners
                .iter()
                .map(|o| OwnerKey {
                    namespace: pod.namespace.clone(),
                    kind: o.kind.clone(),
                    name: o.name.clone(),
                    images: images.clone(),
                })
                .collect();
            for k in &owner_keys {
                let n = occurrence.entry(k.clone()).or_default();
                if *n == 0 {
                    owner_order.push(k.clone());
                }
                *n += 1;
            }
            match seen.iter().position(|(k, _)| *k == keys) {
                Some(at) => {
                    let original = seen[at].1;
                    if let Some(o) = originals.iter_mut().find(|o| o.0 == original) {
                        o.2 = true;
                    }
                    for k in owner_keys {
                        duplicates.entry(k).or_default().entry(ni).or_default().push(idx);
                    }
                }
                None => {
                    seen.push((keys, idx));
                    originals.push((idx, ni, false));
                }
            }
        }
        for (at, (idx, keys, reason)) in protected.iter().enumerate() {
            let twin = seen.iter().any(|(k, _)| k == keys)
                || protected.iter().enumerate().any(|(other, (_, k, _))| other != at && k == keys);
            if twin {
                skips.skip(cycle, &mut run, *idx, name, reason.clone());
            } else {
                cycle.not_matching(&mut run, *idx, || no_copy_text(name));
            }
        }
    }
    for (idx, ni, has_copies) in originals {
        if !has_copies {
            // No other pod on its node has the same owners and images.
            cycle.not_matching(&mut run, idx, || no_copy_text(&nodes[ni].name));
            continue;
        }
        let message =
            format!("first pod with these owners and images on {}: the original, never evicted", nodes[ni].name);
        skips.skip(cycle, &mut run, idx, &nodes[ni].name, rule("original", message, false));
    }
    let mut evicted_here: BTreeSet<usize> = BTreeSet::new();
    for key in owner_order {
        let Some(per_node) = duplicates.get(&key) else { continue };
        let targets = target_nodes(cycle, per_node.values().flatten().map(|i| &snapshot.pods[*i]));
        let occ = occurrence.get(&key).copied().unwrap_or(0);
        if targets.len() < 2 {
            let names: Vec<&str> = targets.iter().map(|s| s.as_str()).collect();
            run.notes.push(format!(
                "{TOO_FEW_FEASIBLE_NODES}: owner {} has {} feasible node(s) [{}]",
                key.text(),
                targets.len(),
                names.join(", ")
            ));
            for (&ni, pods) in per_node {
                for &idx in pods {
                    let why = rule("too-few-feasible-nodes", TOO_FEW_FEASIBLE_NODES.to_string(), true);
                    skips.skip(cycle, &mut run, idx, &nodes[ni].name, why);
                }
            }
            continue;
        }
        let upper = occ.div_ceil(targets.len());
        let avg = format!(
            "{occ} copies of {} over {} feasible nodes, upperAvg ceil({occ}/{})={upper}",
            key.text(),
            targets.len(),
            targets.len()
        );
        for (&ni, pods) in per_node {
            let node = nodes[ni].name.as_str();
            let here = pods.len() + 1;
            let keep = if here > upper { upper - 1 } else { pods.len() };
            for (j, &idx) in pods.iter().enumerate().take(keep) {
                let why = format!("copy {} of {here} on {node}: within {avg}", j + 2);
                skips.skip(cycle, &mut run, idx, node, rule("within-average", why, false));
            }
            let mut stop: Option<StopReason> = None;
            for (j, &idx) in pods.iter().enumerate().skip(keep) {
                if let Some(s) = &stop {
                    skips.skip(cycle, &mut run, idx, node, SkipReason::NotReached { stop: s.clone() });
                    continue;
                }
                if before.contains(&idx) {
                    skips.skip(cycle, &mut run, idx, node, SkipReason::AlreadyEvicted);
                    continue;
                }
                let again = if evicted_here.contains(&idx) {
                    " (a second request: upstream evicts once per ownerRef)"
                } else {
                    ""
                };
                let text = format!("copy {} of {here} on {node}, {avg}: keeps {upper}{again}", j + 2);
                skips.decided.insert(idx);
                match cycle.evict(&mut run, idx, node, j + 2, text) {
                    Ok(()) => {
                        evicted_here.insert(idx);
                    }
                    Err(LimitHit::Namespace) => {}
                    Err(LimitHit::Node) => stop = Some(StopReason::MaxPerNode),
                    Err(LimitHit::Total) => {
                        not_reached_after_total(cycle, &mut run, &mut skips, &duplicates, &nodes);
                        return run;
                    }
                }
            }
        }
    }
    run
}

/// After the total limit: every duplicate not yet decided is not reached.
fn not_reached_after_total(
    cycle: &Cycle<'_>,
    run: &mut PluginRun,
    skips: &mut Skips,
    duplicates: &BTreeMap<OwnerKey, BTreeMap<usize, Vec<usize>>>,
    nodes: &[&crate::model::node::NodeInfo],
) {
    for per_node in duplicates.values() {
        for (&ni, pods) in per_node {
            for &idx in pods {
                let why = SkipReason::NotReached { stop: StopReason::MaxTotal };
                skips.skip(cycle, run, idx, &nodes[ni].name, why);
            }
        }
    }
}

/// Upstream `getTargetNodes`: the union of the nodes each distinct
/// (tolerations, required node affinity, nodeSelector) of `dups` may land
/// on, counted only when more than one node fits it. Unschedulable status
/// and resources are not checked.
fn target_nodes<'p>(cycle: &Cycle<'_>, dups: impl Iterator<Item = &'p PodInfo>) -> BTreeSet<String> {
    let mut reps: Vec<&PodInfo> = Vec::new();
    for p in dups {
        let same = |r: &&PodInfo| {
            r.tolerations == p.tolerations
                && r.affinity.node_affinity.required == p.affinity.node_affinity.required
                && r.node_selector == p.node_selector
        };
        if !reps.iter().any(same) {
            reps.push(p);
        }
    }
    let mut out = BTreeSet::new();
    for rep in reps {
        let fits: Vec<&str> = cycle
            .nodes
            .iter()
            .filter(|n| {
                n.taints
                    .iter()
                    .filter(|t| matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute))
                    .all(|t| tolerations_tolerate(&rep.tolerations, t))
                    && matches_node_selector(rep, n)
            })
            .map(|n| n.name.as_str())
            .collect();
        if fits.len() > 1 {
            out.extend(fits.into_iter().map(str::to_string));
        }
    }
    out
}
