//! Has the cluster drifted from a plan? `rebalance apply` re-reads the
//! cluster, plans again with the document's own policy and options, and
//! compares ([`drift`]).
//!
//! What refuses a plan (a [`Difference`]):
//! - a planned pod is gone, terminating, replaced (same name, another uid)
//!   or on another node;
//! - a node appeared or disappeared, or a node's class changed in some profile;
//! - the evictions planned now differ from the document's (other pods, or
//!   the same pods in another order) — which is how a changed
//!   resourceVersion "matters": a pod's labels, annotations, requests or
//!   owner changed the plan. The planned pods whose resourceVersion changed
//!   are then listed too, as the likely cause.
//!
//! A resourceVersion change that leaves the plan as it was (a status update,
//! a probe flapping) is not a difference; [`Drift::notes`] counts them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;

use super::PlanDocument;
use crate::model::pod::PodInfo;
use crate::planner::{NodeClass, Plan, Snapshot};

/// One way the cluster no longer matches the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
#[non_exhaustive]
pub enum Difference {
    /// A planned pod no longer exists (or has finished).
    PodGone {
        /// The eviction's position in the plan.
        order: usize,
        /// `namespace/name`.
        pod: String,
    },
    /// A planned pod is being deleted.
    PodTerminating {
        /// The eviction's position.
        order: usize,
        /// `namespace/name`.
        pod: String,
    },
    /// A pod of the same name exists with another uid (it was recreated).
    PodReplaced {
        /// The eviction's position.
        order: usize,
        /// `namespace/name`.
        pod: String,
        /// The uid in the plan.
        planned_uid: String,
        /// The uid now.
        live_uid: String,
    },
    /// A planned pod runs on another node now (or on none).
    PodMoved {
        /// The eviction's position.
        order: usize,
        /// `namespace/name`.
        pod: String,
        /// The node in the plan.
        from: String,
        /// The node now (`None`: unbound).
        to: Option<String>,
    },
    /// A planned pod changed (another resourceVersion); listed when the evictions changed.
    PodChanged {
        /// The eviction's position.
        order: usize,
        /// `namespace/name`.
        pod: String,
        /// resourceVersion in the plan.
        planned: String,
        /// resourceVersion now.
        live: String,
    },
    /// A node of the plan is gone.
    NodeGone {
        /// The node.
        node: String,
    },
    /// A node the plan did not know.
    NodeAdded {
        /// The node.
        node: String,
    },
    /// A node's class in a profile changed (`None`: not classified, e.g. no longer considered).
    NodeClassChanged {
        /// The node.
        node: String,
        /// The profile.
        profile: String,
        /// The class in the plan.
        planned: Option<NodeClass>,
        /// The class now.
        live: Option<NodeClass>,
    },
    /// Planning now gives other evictions.
    EvictionsChanged {
        /// Planned in the file, not any more (`namespace/name`).
        no_longer_planned: Vec<String>,
        /// Planned now, not in the file.
        newly_planned: Vec<String>,
        /// The same pods, in another order.
        reordered: bool,
    },
}

fn class_name(c: Option<NodeClass>) -> &'static str {
    match c {
        Some(NodeClass::Underutilized) => "underutilized",
        Some(NodeClass::AppropriatelyUtilized) => "appropriately utilized",
        Some(NodeClass::Overutilized) => "overutilized",
        None => "not classified",
    }
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::PodGone { order, pod } => write!(f, "pod {pod} (eviction {order}) is gone"),
            Difference::PodTerminating { order, pod } => {
                write!(f, "pod {pod} (eviction {order}) is already terminating")
            }
            Difference::PodReplaced { order, pod, planned_uid, live_uid } => {
                write!(f, "pod {pod} (eviction {order}) was recreated: uid {planned_uid} in the plan, {live_uid} now")
            }
            Difference::PodMoved { order, pod, from, to } => match to {
                Some(to) => write!(f, "pod {pod} (eviction {order}) moved from {from} to {to}"),
                None => write!(f, "pod {pod} (eviction {order}) is no longer bound to {from}"),
            },
            Difference::PodChanged { order, pod, planned, live } => {
                write!(f, "pod {pod} (eviction {order}) changed: resourceVersion {planned} in the plan, {live} now")
            }
            Difference::NodeGone { node } => write!(f, "node {node} is gone"),
            Difference::NodeAdded { node } => write!(f, "node {node} is new"),
            Difference::NodeClassChanged { node, profile, planned, live } => {
                write!(f, "node {node} was {} in profile {profile}, now {}", class_name(*planned), class_name(*live))
            }
            Difference::EvictionsChanged { no_longer_planned, newly_planned, reordered } => {
                let mut parts = Vec::new();
                if !no_longer_planned.is_empty() {
                    parts.push(format!("no longer planned: {}", no_longer_planned.join(", ")));
                }
                if !newly_planned.is_empty() {
                    parts.push(format!("newly planned: {}", newly_planned.join(", ")));
                }
                if *reordered {
                    parts.push("the same pods in another order".to_string());
                }
                write!(f, "planning now gives other evictions ({})", parts.join("; "))
            }
        }
    }
}

/// The comparison of a plan document with the cluster now.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Drift {
    /// Every difference; empty means the plan still holds.
    pub differences: Vec<Difference>,
    /// Changes that do not matter, in words.
    pub notes: Vec<String>,
}

impl Drift {
    /// True when the plan still holds.
    pub fn is_empty(&self) -> bool {
        self.differences.is_empty()
    }
}

/// Compares `doc` with the `live` snapshot and `replanned` (the plan made
/// now on `live` with the document's policy and options). See the module docs.
pub fn drift(doc: &PlanDocument, live: &Snapshot, replanned: &Plan) -> Drift {
    let mut out = Drift::default();
    let by_key: BTreeMap<(&str, &str), &PodInfo> =
        live.pods.iter().map(|p| ((p.namespace.as_str(), p.name.as_str()), p)).collect();
    let mut rv_changed = Vec::new();
    for e in &doc.evictions {
        let key = e.pod.key();
        let order = e.order;
        let Some(p) = by_key.get(&(e.pod.namespace.as_str(), e.pod.name.as_str())).filter(|p| !p.is_terminal()) else {
            out.differences.push(Difference::PodGone { order, pod: key });
            continue;
        };
        if let (Some(planned), Some(now)) = (&e.pod.uid, &p.uid) {
            if planned != now {
                out.differences.push(Difference::PodReplaced {
                    order,
                    pod: key,
                    planned_uid: planned.clone(),
                    live_uid: now.clone(),
                });
                continue;
            }
        }
        if p.is_terminating() {
            out.differences.push(Difference::PodTerminating { order, pod: key });
            continue;
        }
        if p.node_name.as_deref() != Some(e.node.as_str()) {
            out.differences.push(Difference::PodMoved {
                order,
                pod: key,
                from: e.node.clone(),
                to: p.node_name.clone(),
            });
            continue;
        }
        if let (Some(planned), Some(now)) = (&e.pod.resource_version, &p.resource_version) {
            if planned != now {
                rv_changed.push(Difference::PodChanged {
                    order,
                    pod: key,
                    planned: planned.clone(),
                    live: now.clone(),
                });
            }
        }
    }

    let planned_nodes: BTreeSet<&str> = doc.snapshot.nodes.iter().map(|n| n.name.as_str()).collect();
    let live_nodes: BTreeSet<&str> = live.nodes.iter().map(|n| n.name.as_str()).collect();
    for n in planned_nodes.difference(&live_nodes) {
        out.differences.push(Difference::NodeGone { node: n.to_string() });
    }
    for n in live_nodes.difference(&planned_nodes) {
        out.differences.push(Difference::NodeAdded { node: n.to_string() });
    }
    let mut planned_classes: BTreeMap<(&str, &str), NodeClass> = BTreeMap::new();
    for n in &doc.snapshot.nodes {
        for c in &n.classes {
            planned_classes.insert((n.name.as_str(), c.profile.as_str()), c.class);
        }
    }
    let mut live_classes: BTreeMap<(&str, &str), NodeClass> = BTreeMap::new();
    for run in &replanned.runs {
        for n in &run.nodes {
            live_classes.insert((n.name.as_str(), run.profile.as_str()), n.class);
        }
    }
    let keys: BTreeSet<(&str, &str)> = planned_classes.keys().chain(live_classes.keys()).copied().collect();
    for (node, profile) in keys {
        // A node that appeared or vanished is reported once, above.
        if !planned_nodes.contains(node) || !live_nodes.contains(node) {
            continue;
        }
        let (planned, now) =
            (planned_classes.get(&(node, profile)).copied(), live_classes.get(&(node, profile)).copied());
        if planned != now {
            out.differences.push(Difference::NodeClassChanged {
                node: node.to_string(),
                profile: profile.to_string(),
                planned,
                live: now,
            });
        }
    }

    let file: Vec<(String, &str)> = doc.evictions.iter().map(|e| (e.pod.key(), e.node.as_str())).collect();
    let now: Vec<(String, &str)> = replanned
        .evictions()
        .map(|e| (format!("{}/{}", e.pod.namespace, e.pod.name), e.source_node.as_str()))
        .collect();
    if file != now {
        let file_keys: BTreeSet<&str> = file.iter().map(|(k, _)| k.as_str()).collect();
        let now_keys: BTreeSet<&str> = now.iter().map(|(k, _)| k.as_str()).collect();
        let no_longer_planned: Vec<String> = file_keys.difference(&now_keys).map(|s| s.to_string()).collect();
        let newly_planned: Vec<String> = now_keys.difference(&file_keys).map(|s| s.to_string()).collect();
        let reordered = no_longer_planned.is_empty() && newly_planned.is_empty();
        out.differences.push(Difference::EvictionsChanged { no_longer_planned, newly_planned, reordered });
        out.differences.append(&mut rv_changed);
    } else if !rv_changed.is_empty() {
        out.notes.push(format!(
            "{} planned pod(s) changed since the plan (another resourceVersion) without changing the plan",
            rv_changed.len()
        ));
    }
    out
}
