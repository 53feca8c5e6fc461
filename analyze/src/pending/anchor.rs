//! Why the anchor pod — a pod the pending pod's required pod affinity
//! selects, on a node that is left — is on that node: its extended-resource
//! requests and which nodes offer them, its preferred node affinity and
//! which nodes it favours, and which nodes it could not go to when it was
//! bound (cordoned or NotReady then).

use chrono::{DateTime, Utc};
use kdrift_rebalance::{NodeInfo, PodInfo};
use kdrift_rebalance::{NodeSelectorTerm, SelectorOperator};
use serde::Serialize;

use super::full::{amount, Arrival};
use crate::usage::is_extended;

/// One pod the required pod affinity pins the pending pod to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Anchor {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub name: String,
    /// The node it is on.
    pub node: String,
    /// When it was bound there (UTC), when known.
    pub bound_at: Option<DateTime<Utc>>,
    /// What brought it there.
    pub arrival: Arrival,
    /// Its requests, `(resource, amount)`.
    pub requests: Vec<(String, i64)>,
    /// Per extended resource it requests: the nodes that offer it (allocatable > 0).
    pub offered_by: Vec<(String, Vec<String>)>,
    /// Its preferred node affinity terms, as text (`weight 100: kubernetes.io/hostname In [node-1, node-2]`).
    pub preferred: Vec<String>,
    /// Nodes matching at least one preferred term.
    pub preferred_nodes: Vec<String>,
    /// Nodes it could not go to when it was bound, with why (`node-2 (cordoned)`).
    pub unavailable_at_binding: Vec<String>,
    /// The reasons in words, most telling first.
    pub why: Vec<String>,
}

fn term_text(t: &NodeSelectorTerm) -> String {
    let op = |o: &SelectorOperator| match o {
        SelectorOperator::In => "In".to_string(),
        SelectorOperator::NotIn => "NotIn".to_string(),
        SelectorOperator::Exists => "Exists".to_string(),
        SelectorOperator::DoesNotExist => "DoesNotExist".to_string(),
        SelectorOperator::Gt => "Gt".to_string(),
        SelectorOperator::Lt => "Lt".to_string(),
        SelectorOperator::Other(s) => s.clone(),
    };
    t.match_expressions
        .iter()
        .chain(t.match_fields.iter())
        .map(|r| {
            if r.values.is_empty() {
                format!("{} {}", r.key, op(&r.operator))
            } else {
                format!("{} {} [{}]", r.key, op(&r.operator), r.values.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Explains `anchor` on `node`: `nodes_now` are the nodes at the failure,
/// `nodes_then` at its binding (empty when unknown).
pub(super) fn explain(
    anchor: &PodInfo,
    node: &str,
    bound_at: Option<DateTime<Utc>>,
    arrival: Arrival,
    nodes_now: &[NodeInfo],
    nodes_then: &[NodeInfo],
) -> Anchor {
    let requests: Vec<(String, i64)> = anchor.requests.iter().map(|(r, v)| (r.to_string(), v)).collect();
    let extended: Vec<(&str, i64)> = anchor.requests.iter().filter(|(r, v)| is_extended(r) && *v > 0).collect();
    let offered_by: Vec<(String, Vec<String>)> = extended
        .iter()
        .map(|(r, _)| {
            let nodes = nodes_now.iter().filter(|n| n.allocatable.get(r) > 0).map(|n| n.name.clone()).collect();
            (r.to_string(), nodes)
        })
        .collect();
    let prefs = &anchor.affinity.node_affinity.preferred;
    let preferred: Vec<String> =
        prefs.iter().map(|p| format!("weight {}: {}", p.weight, term_text(&p.preference))).collect();
    let preferred_nodes: Vec<String> =
        nodes_now.iter().filter(|n| prefs.iter().any(|p| p.preference.matches(n))).map(|n| n.name.clone()).collect();
    let unavailable_at_binding: Vec<String> = nodes_then
        .iter()
        .filter(|n| n.name != node)
        .filter_map(|n| {
            let mut why = Vec::new();
            if n.unschedulable {
                why.push("cordoned");
            }
            if n.ready == Some(false) {
                why.push("NotReady");
            }
            (!why.is_empty()).then(|| format!("{} ({})", n.name, why.join(", ")))
        })
        .collect();

    let mut why = Vec::new();
    let who = format!("{}/{}", anchor.namespace, anchor.name);
    for ((r, v), (_, nodes)) in extended.iter().zip(&offered_by) {
        why.push(format!(
            "{who} requests {} {r}, which only {} offer{}",
            amount(r, *v),
            nodes.join(", "),
            if nodes.len() == 1 { "s" } else { "" }
        ));
    }
    if !preferred.is_empty() {
        why.push(format!(
            "its preferred node affinity ({}) favours {}",
            preferred.join("; "),
            if preferred_nodes.is_empty() { "no node".to_string() } else { preferred_nodes.join(", ") }
        ));
    }
    if let Some(at) = bound_at {
        let blocked: Vec<&str> = nodes_then
            .iter()
            .filter(|n| n.name != node && (n.unschedulable || n.ready == Some(false)))
            .map(|n| n.name.as_str())
            .collect();
        // Nodes it could have gone to then: schedulable, Ready, offering every extended resource it requests.
        let possible: Vec<&str> = nodes_then
            .iter()
            .filter(|n| !n.unschedulable && n.ready != Some(false))
            .filter(|n| extended.iter().all(|(r, _)| n.allocatable.get(r) > 0))
            .map(|n| n.name.as_str())
            .collect();
        let context = match &arrival {
            Arrival::Drain { operation, replaced, from_node, .. } => format!(
                " during drain #{operation}{}",
                match (replaced, from_node) {
                    (Some(p), Some(f)) => format!(", replacing {p} evicted from {f}"),
                    _ => String::new(),
                }
            ),
            _ => String::new(),
        };
        if !blocked.is_empty() {
            let only = if possible == [node] && !extended.is_empty() {
                format!(
                    ": {node} was the only schedulable node offering {}",
                    extended.iter().map(|(r, _)| *r).collect::<Vec<_>>().join(", ")
                )
            } else if possible == [node] {
                format!(": {node} was the only schedulable node")
            } else {
                String::new()
            };
            why.push(format!(
                "when it was bound to {node} ({}{context}), {} {} cordoned or NotReady{only}",
                kdrift_store::instant_text(at),
                blocked.join(", "),
                if blocked.len() == 1 { "was" } else { "were" },
            ));
        } else {
            why.push(format!("it was bound to {node} at {}{context}", kdrift_store::instant_text(at)));
        }
    }
    Anchor {
        namespace: anchor.namespace.clone(),
        name: anchor.name.clone(),
        node: node.to_string(),
        bound_at,
        arrival,
        requests,
        offered_by,
        preferred,
        preferred_nodes,
        unavailable_at_binding,
        why,
    }
}
