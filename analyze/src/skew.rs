//! `kdrift skew`: every node's requested % of allocatable (cpu, memory,
//! pods, extended resources) at an instant, the max − min skew per
//! resource, and each node's LowNodeUtilization class.
//!
//! The class is not recomputed here: each node's requested amounts (the
//! store's per-node aggregates, [`crate::state::amounts`]: no pod is loaded)
//! go through the rebalance planner's classification
//! ([`kdrift_rebalance::classify_nodes`], the same as [`kdrift_rebalance::plan`]'s)
//! with the policy given, and the classification of its first
//! LowNodeUtilization run is reported (descheduler v0.36: nodes not Ready or
//! outside the policy's nodeSelector are not classified; fewer than two nodes
//! aborts the cycle).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use kdrift_rebalance::{classify_nodes, Policy, PolicyError, ResourceList};
use kdrift_rebalance::{ExcludedNode, NodeClass, NodeReport, ThresholdsApplied};
use kdrift_rebalance::{
    LowNodeUtilizationArgs, PluginArgs, PluginConfig, PluginSet, Plugins, Profile, ResourceThresholds,
    LOW_NODE_UTILIZATION,
};
use kdrift_store::Reader;
use serde::Serialize;

use crate::state::amounts::{amounts_at, AmountsAt};
use crate::state::lower_bound::{
    event_only_note, events_instant, unstored_namespaces, unstored_note, UnstoredNamespace,
};
use crate::state::{estimated_note, no_bound_pods_note, no_nodes_at};
use crate::usage::{requested_from, NodeRequested, RequestedAt, ResourceSkew};
use crate::AnalyzeError;

/// One node: requested amounts and class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkewNode {
    /// Requested amounts and percent of allocatable.
    #[serde(flatten)]
    pub requested: NodeRequested,
    /// LowNodeUtilization class; `None` when the node is not classified.
    pub class: Option<NodeClass>,
    /// Why it got the class (descheduler's wording), or why it has none.
    pub why: String,
}

/// What `kdrift skew` says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkewReport {
    /// The instant (UTC).
    pub at: DateTime<Utc>,
    /// Nodes, in name order.
    pub nodes: Vec<SkewNode>,
    /// Per resource: max − min of requested % over the nodes that offer it.
    pub skew: Vec<ResourceSkew>,
    /// The thresholds the classes were computed with (after deviation, if any).
    pub thresholds: Option<ThresholdsApplied>,
    /// Why nothing was classified (no Node objects at the instant, with the store's time span;
    /// fewer than two nodes; no LowNodeUtilization profile).
    pub not_classified: Option<String>,
    /// Caveats: an `at` after the store's history (first), estimated
    /// numbers, objects left out.
    pub notes: Vec<String>,
}

/// A policy with one profile that balances with LowNodeUtilization at these
/// thresholds (percent of allocatable per resource), validated as
/// descheduler validates it.
///
/// # Errors
/// [`PolicyError`] with descheduler's message for invalid thresholds,
/// without its `in profile kdrift-skew: ` (a profile of kdrift's making the
/// user never wrote: the caller names its flags instead).
pub fn policy_from_thresholds(
    thresholds: ResourceThresholds,
    targets: ResourceThresholds,
) -> Result<Policy, PolicyError> {
    let args = LowNodeUtilizationArgs { thresholds, target_thresholds: targets, ..LowNodeUtilizationArgs::default() };
    let policy = Policy {
        profiles: vec![Profile {
            name: "kdrift-skew".into(),
            plugin_config: vec![PluginConfig {
                name: LOW_NODE_UTILIZATION.into(),
                args: PluginArgs::LowNodeUtilization(Box::new(args)),
            }],
            plugins: Plugins {
                balance: PluginSet { enabled: vec![LOW_NODE_UTILIZATION.into()], disabled: Vec::new() },
                ..Plugins::default()
            },
        }],
        ..Policy::default()
    };
    let prefix = format!("in profile {}: ", policy.profiles[0].name);
    policy.validate().map_err(|e| match e {
        PolicyError::Invalid(errors) => PolicyError::Invalid(
            errors.into_iter().map(|m| m.strip_prefix(&prefix).map_or_else(|| m.clone(), str::to_string)).collect(),
        ),
        other => other,
    })?;
    Ok(policy)
}

/// The skew at `at` (default: the store's newest observation) under `policy`.
/// An `at` after the store's history shows the state as last recorded, and
/// the first note says so (`crate::state::after_history`).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn skew(store: &Reader, at: Option<DateTime<Utc>>, policy: &Policy) -> Result<SkewReport, AnalyzeError> {
    let after_history = match at {
        Some(at) => crate::state::after_history(store, at)?,
        None => None,
    };
    let at = match at {
        Some(at) => at,
        None => crate::plausible::latest_observation(store)?.unwrap_or_else(Utc::now),
    };
    let (amounts, requested, caveats) = requested_noted(store, at)?;
    let usage: BTreeMap<String, ResourceList> =
        amounts.usage.iter().map(|(node, u)| (node.clone(), u.requested.clone())).collect();
    let notes: Vec<String> = after_history.into_iter().chain(caveats).collect();
    // No node at all: say so with the store's span (a time outside it is the
    // usual cause), not descheduler's "requires >=2 nodes".
    let no_nodes = if amounts.nodes.is_empty() { Some(no_nodes_why(store, at)?) } else { None };
    // One instant: each node is held once, so taken without a copy.
    let nodes = amounts.nodes.into_iter().map(|n| std::sync::Arc::try_unwrap(n).unwrap_or_else(|n| (*n).clone()));
    let planned = classify_nodes(nodes.collect(), &usage, policy);
    let run = planned.runs.first();
    let not_classified = no_nodes.or_else(|| planned.aborted.clone()).or_else(|| {
        run.is_none().then(|| "the policy has no profile enabling LowNodeUtilization in plugins.balance".to_string())
    });
    let excluded_by_name: HashMap<&str, &ExcludedNode> =
        planned.nodes_excluded.iter().map(|e| (e.name.as_str(), e)).collect();
    let excluded = |name: &str| -> Option<&ExcludedNode> { excluded_by_name.get(name).copied() };
    let classified: HashMap<&str, &NodeReport> =
        run.map(|r| r.nodes.iter().map(|x| (x.name.as_str(), x)).collect()).unwrap_or_default();
    let nodes = requested
        .nodes
        .into_iter()
        .map(|n| {
            let report = classified.get(n.node.as_str()).copied();
            let (class, why) = match (report, excluded(&n.node)) {
                (Some(r), _) => (Some(r.class), r.why.clone()),
                (None, Some(e)) => (None, format!("not considered by descheduler: {}", e.reason)),
                (None, None) => (None, not_classified.clone().unwrap_or_else(|| "not classified".into())),
            };
            SkewNode { requested: n, class, why }
        })
        .collect();
    Ok(SkewReport {
        at,
        nodes,
        skew: requested.skew,
        thresholds: run.map(|r| r.thresholds.clone()),
        not_classified,
        notes,
    })
}

/// `kdrift skew -n/-l`: each node's requested amounts and percents of
/// allocatable recomputed over only the pods `keep` keeps (namespace,
/// name) among those bound to it at the report's instant and counting
/// toward its usage (not terminal; descheduler v0.36 §1), and the skew over
/// those percents. The classes stay descheduler's, over every pod (it
/// classifies nodes, not a selection of their pods); the first note says
/// so with `selection` (`labels app=web`) and the pods counted. Returns how
/// many pods were kept.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn narrow_to_pods(
    store: &Reader,
    report: &mut SkewReport,
    keep: &dyn Fn(&str, &str) -> bool,
    selection: &str,
) -> Result<usize, AnalyzeError> {
    let state = crate::ClusterAt::load(store, report.at)?;
    let mut kept = 0;
    for node in &mut report.nodes {
        let pods: Vec<_> = state
            .pods
            .iter()
            .filter(|p| p.node_name.as_deref() == Some(node.requested.node.as_str()) && p.counts_toward_usage())
            .filter(|p| keep(&p.namespace, &p.name))
            .collect();
        kept += pods.len();
        node.requested.pods = pods.len();
        for line in &mut node.requested.resources {
            line.requested = if line.resource == kdrift_rebalance::PODS {
                pods.len() as i64
            } else {
                pods.iter().map(|p| p.requests.get(&line.resource)).sum()
            };
            line.percent =
                if line.allocatable > 0 { line.requested as f64 * 100.0 / line.allocatable as f64 } else { 0.0 };
        }
    }
    let requested: Vec<NodeRequested> = report.nodes.iter().map(|n| n.requested.clone()).collect();
    report.skew = crate::usage::skew_of(&requested);
    report.notes.insert(
        0,
        format!(
            "requested amounts count only the {} matching {selection}; CLASS and WHY are descheduler's, over every pod",
            crate::words::count(kept, "pod", "pods")
        ),
    );
    Ok(kept)
}

/// What `kdrift skew` (and `skew --usage`) say when the store has no Node
/// object at `at`: [`no_nodes_at`] (with the store's span) and what to do,
/// e.g. `the store has no Node objects at … (before its history); its
/// history spans … to …: ingest `kubectl get nodes -o json` first (or
/// choose an --at within it)`.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub(crate) fn no_nodes_why(store: &Reader, at: DateTime<Utc>) -> Result<String, AnalyzeError> {
    let why = no_nodes_at(store, at)?;
    // An --at before the history is the instant's fault, not the store's
    // (new-user trial 46: "ingest nodes first" on a store that has them).
    if why.contains("(before its history)") {
        return Ok(format!("{why}: choose an --at within it (or ingest Node objects listed at that time)"));
    }
    // An --at can only help when there is a history to choose from.
    let choose = if why.ends_with("no history at all") { "" } else { " (or choose an --at within it)" };
    Ok(format!("{why}: ingest `kubectl get nodes -o json` first{choose}"))
}

/// The requested amounts at `at` as `kdrift skew` reads them, from the
/// per-node aggregates (no pod is loaded, issue 6), with every node a lower
/// bound (`lower_bound`, shown `≥`) when events name pods of a namespace
/// that was not dumped ([`unstored_namespaces`]), and the caveats about the
/// numbers (lower bounds first; not the after-history note). Shared by
/// `kdrift skew`, `skew --usage` and `hotspots`.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(crate) fn requested_noted(
    store: &Reader,
    at: DateTime<Utc>,
) -> Result<(AmountsAt, RequestedAt, Vec<String>), AnalyzeError> {
    let amounts = amounts_at(store, &[at])?.remove(0);
    let mut requested = requested_from(&amounts, at);
    // A namespace that was not dumped: every node may hold its pods.
    let events_at = events_instant(store, at)?;
    let unstored = unstored_namespaces(store, events_at)?;
    if !unstored.is_empty() {
        requested.nodes.iter_mut().for_each(|n| n.lower_bound = true);
    }
    let caveats = notes(&amounts, &unstored, events_at);
    Ok((amounts, requested, caveats))
}

/// Caveats about the numbers (what `kdrift rebalance plan` also notes about
/// nodes and pods; Namespaces, PDBs, PriorityClasses and PVCs concern
/// evictions, not classes): lower bounds first.
fn notes(amounts: &AmountsAt, unstored: &[UnstoredNamespace], events_at: DateTime<Utc>) -> Vec<String> {
    let at = amounts.at.map(kdrift_store::instant_text).unwrap_or_default();
    let mut notes = Vec::new();
    notes.extend(unstored_note(events_at, unstored));
    let lower: Vec<String> =
        amounts.usage.iter().filter(|(_, u)| u.requests_unknown > 0).map(|(n, _)| n.clone()).collect();
    notes.extend(event_only_note(amounts.event_only_pods.len(), amounts.requests_unknown.len(), &lower));
    // Nodes but no pod counting toward any of them: the 0 % are missing
    // data (nodes dumped without pods), not empty nodes.
    if let Some(at) = amounts.at {
        notes.extend(no_bound_pods_note(at, !amounts.nodes.is_empty(), !amounts.usage.is_empty(), &amounts.unreadable));
    }
    notes.extend(estimated_note(amounts.estimated_nodes.len(), amounts.estimated_pods as usize, &at));
    notes.extend(amounts.unreadable.iter().map(|u| format!("left out, unreadable: {u}")));
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_become_a_valid_policy_or_descheduler_error() {
        let t = |pairs: &[(&str, f64)]| pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect::<ResourceThresholds>();
        let p = policy_from_thresholds(t(&[("cpu", 20.0)]), t(&[("cpu", 50.0)])).expect("valid");
        assert!(p.profiles[0].balances_low_node_utilization());
        let err = policy_from_thresholds(t(&[("cpu", 60.0)]), t(&[("cpu", 50.0)])).expect_err("invalid");
        assert_eq!(err.to_string(), "thresholds' cpu percentage is greater than targetThresholds'");
    }
}
