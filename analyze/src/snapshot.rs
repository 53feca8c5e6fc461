//! The rebalance planner's input from the store: a [`Snapshot`] of the
//! cluster at one instant (by default the store's newest observation).
//!
//! Nodes and pods come from [`ClusterAt::load`]; Namespaces (for
//! `namespaceLabelSelector`), PodDisruptionBudgets (for `PodsWithoutPDB`),
//! PriorityClasses (for a `priorityThreshold` given by name) and
//! PersistentVolumeClaims (for `protectedStorageClasses`) from the
//! `objects_at` query. Dumps often lack those kinds; the planner then acts as
//! if the cluster had none, and its plan's warnings say what that changes
//! when the policy reads the kind. Objects that cannot be read are noted and left out, never fatal.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{namespace_from_json, pdb_from_json, priority_class_from_json, pvc_from_json};
use kdrift_rebalance::{ModelError, Snapshot};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde_json::Value;

use crate::state::lower_bound::{event_only_note, events_instant, unstored_namespaces, unstored_note};
use crate::state::{estimated_note, no_bound_pods_note, ClusterAt};
use crate::AnalyzeError;

/// A snapshot read from the store, with what the reader noticed.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSnapshot {
    /// The cluster at `at` (`snapshot.now` is `at`).
    pub snapshot: Snapshot,
    /// The instant (UTC).
    pub at: DateTime<Utc>,
    /// What the snapshot lacks or had to estimate, in words.
    pub notes: Vec<String>,
    /// Nodes whose requested amounts are a lower bound (a namespace that was
    /// not dumped, pods counted with no requests: `crate::state::lower_bound`),
    /// in name order.
    pub lower_bound_nodes: Vec<String>,
}

/// One stored object of some kind at the instant.
struct Stored {
    kind: &'static str,
    namespace: String,
    name: String,
    estimated: bool,
    object: Result<Value, String>,
}

/// Loads the cluster at `at` (default: the store's newest observation).
/// An `at` after the store's history loads the state as last recorded, and
/// the first note says so (`crate::state::after_history`), as in
/// `kdrift skew`'s report.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn load_snapshot(store: &Reader, at: Option<DateTime<Utc>>) -> Result<LoadedSnapshot, AnalyzeError> {
    let mut notes = Vec::new();
    let at = match at {
        Some(at) => {
            notes.extend(crate::state::after_history(store, at)?);
            at
        }
        None => match crate::plausible::latest_observation(store)? {
            Some(latest) => latest,
            None => {
                notes.push("the store holds no observation: planning on an empty cluster".to_string());
                Utc::now()
            }
        },
    };
    let cluster = ClusterAt::load(store, at)?;
    let mut loaded = snapshot_from(store, cluster, at)?;
    notes.append(&mut loaded.notes);
    loaded.notes = notes;
    Ok(loaded)
}

/// [`load_snapshot`] on a cluster already loaded at `at` (for callers that
/// also use the [`ClusterAt`] itself: the store is read once).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn snapshot_from(store: &Reader, cluster: ClusterAt, at: DateTime<Utc>) -> Result<LoadedSnapshot, AnalyzeError> {
    let mut notes = Vec::new();
    let mut steps = crate::steps::Steps::start();
    let lower_bound_nodes = lower_bound_nodes(store, &cluster, at, &mut notes)?;
    steps.done("lower-bound nodes");
    if cluster.nodes.is_empty() {
        notes.push(format!("no Node objects at {}: nothing to plan", kdrift_store::instant_text(at)));
    }
    notes.extend(estimated_note(
        cluster.estimated_nodes.len(),
        cluster.estimated_pods.len(),
        &kdrift_store::instant_text(at),
    ));
    // Nodes but no pod bound to any: the 0 % are missing data (nodes
    // dumped without pods), not empty nodes (as `kdrift skew` notes).
    let bound = cluster.pods.iter().any(|p| p.node_name.is_some());
    notes.extend(no_bound_pods_note(at, !cluster.nodes.is_empty(), bound, &cluster.unreadable));
    notes.extend(cluster.unreadable.iter().map(|u| format!("left out, unreadable: {u}")));
    let mut snapshot = Snapshot::new(cluster.nodes, cluster.pods, at);
    steps.done("snapshot");

    let namespaces = objects(store, "Namespace", at)?;
    read_all(&namespaces, namespace_from_json, &mut snapshot.namespaces, &mut notes);
    let pdbs = objects(store, "PodDisruptionBudget", at)?;
    read_all(&pdbs, pdb_from_json, &mut snapshot.pdbs, &mut notes);
    let classes = objects(store, "PriorityClass", at)?;
    read_all(&classes, priority_class_from_json, &mut snapshot.priority_classes, &mut notes);
    let pvcs = objects(store, "PersistentVolumeClaim", at)?;
    read_all(&pvcs, pvc_from_json, &mut snapshot.pvcs, &mut notes);

    // A kind with no object at all is said by the plan, and only when its
    // policy reads that kind (kdrift_rebalance's planner warnings).
    for (kind, found) in [
        ("Namespace", &namespaces),
        ("PodDisruptionBudget", &pdbs),
        ("PriorityClass", &classes),
        ("PersistentVolumeClaim", &pvcs),
    ] {
        let estimated = found.iter().filter(|o| o.estimated).count();
        if estimated > 0 {
            notes.push(format!(
                "{} known only from versions observed after {}",
                crate::words::count(estimated, &format!("{kind} object is"), &format!("{kind} objects are")),
                kdrift_store::instant_text(at)
            ));
        }
    }
    steps.done("namespaces, PDBs, priority classes, PVCs");
    Ok(LoadedSnapshot { snapshot, at, notes, lower_bound_nodes })
}

/// The nodes whose requested amounts are a lower bound, with the notes
/// that say why (as `kdrift skew`'s).
fn lower_bound_nodes(
    store: &Reader,
    cluster: &ClusterAt,
    at: DateTime<Utc>,
    notes: &mut Vec<String>,
) -> Result<Vec<String>, AnalyzeError> {
    let events_at = events_instant(store, at)?;
    let unstored = unstored_namespaces(store, events_at)?;
    notes.extend(unstored_note(events_at, &unstored));
    let unknown: BTreeSet<&str> = cluster.requests_unknown.iter().map(String::as_str).collect();
    // No key built per pod when there is nothing to look for (150,000 pods).
    let with_unknown: BTreeSet<String> = cluster
        .pods
        .iter()
        .filter(|p| !unknown.is_empty() && unknown.contains(p.key().as_str()))
        .filter_map(|p| p.node_name.clone())
        .collect();
    let with_unknown: Vec<String> = with_unknown.into_iter().collect();
    notes.extend(event_only_note(cluster.event_only_pods.len(), cluster.requests_unknown.len(), &with_unknown));
    Ok(if unstored.is_empty() { with_unknown } else { cluster.nodes.iter().map(|n| n.name.clone()).collect() })
}

impl Stored {
    /// `namespace/name`, or the name of a cluster-scoped object.
    fn key(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }
}

/// Every object of `kind` at `at`.
fn objects(store: &Reader, kind: &'static str, at: DateTime<Utc>) -> Result<Vec<Stored>, AnalyzeError> {
    let rows = store.query_map(&sql::OBJECTS_AT, kdrift_store::params![kind, at.timestamp_micros()], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, bool>(4)?, r.get::<_, String>(5)?))
    })?;
    Ok(rows
        .into_iter()
        .map(|(namespace, name, estimated, json)| Stored {
            kind,
            namespace,
            name,
            estimated,
            object: serde_json::from_str(&json).map_err(|e| e.to_string()),
        })
        .collect())
}

/// Reads every stored object with `read` into `out`; an unreadable one is
/// noted (`left out, unreadable: …`) and left out.
fn read_all<T>(found: &[Stored], read: fn(&Value) -> Result<T, ModelError>, out: &mut Vec<T>, notes: &mut Vec<String>) {
    for o in found {
        match o.object.as_ref().map_err(Clone::clone).and_then(|v| read(v).map_err(|e| e.to_string())) {
            Ok(item) => out.push(item),
            Err(e) => notes.push(format!("left out, unreadable: {} {}: {e}", o.kind, o.key())),
        }
    }
}
