//! The live snapshot: nodes, pods, PodDisruptionBudgets, namespaces and
//! PriorityClasses (and PersistentVolumeClaims when the policy protects
//! storage classes) read from the API server through a [`ClusterClient`].
//!
//! This is the only way kdrift reads a cluster for rebalancing: `rebalance
//! plan --live`, `rebalance apply` (before executing, to check for drift)
//! and `rebalance run` all call [`read_snapshot`], so a plan printed by one is
//! the plan executed by the other on the same cluster state. There is no
//! cache that could still be empty (descheduler's dry-run bug,
//! `descheduler-lownodeutilization.md` §7): every call lists afresh, and a
//! list that fails is an error, never an empty cluster.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::client::{kinds, ClusterClient, ResourceKind};
use super::ExecuteError;
use crate::model::node::NodeInfo;
use crate::model::objects::{namespace_from_json, pdb_from_json, priority_class_from_json, pvc_from_json};
use crate::model::pod::PodInfo;
use crate::planner::Snapshot;
use crate::policy::Policy;
use crate::ModelError;

/// A snapshot read from a cluster, with what the reader noticed.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveSnapshot {
    /// The cluster (`snapshot.now` is the time of reading).
    pub snapshot: Snapshot,
    /// Objects left out because they could not be read, and kinds that were not read.
    pub notes: Vec<String>,
}

/// True when some profile's DefaultEvictor sets `protectedStorageClasses`
/// (the only use of PersistentVolumeClaims).
pub fn needs_pvcs(policy: &Policy) -> bool {
    policy.profiles.iter().any(|p| p.default_evictor().pod_protections.protected_storage_classes.is_some())
}

/// Lists the cluster's nodes, pods, PodDisruptionBudgets, namespaces and
/// PriorityClasses (PersistentVolumeClaims too when [`needs_pvcs`]) and
/// reads them with the same readers as the store's snapshot. An object that
/// cannot be read is left out and noted.
///
/// # Errors
/// [`ExecuteError::Read`] when a list fails (naming the resource).
pub async fn read_snapshot<C: ClusterClient>(
    client: &C,
    policy: &Policy,
    now: DateTime<Utc>,
) -> Result<LiveSnapshot, ExecuteError> {
    let mut notes = Vec::new();
    let nodes = read(client, kinds::NODE, NodeInfo::from_json, &mut notes).await?;
    let pods = read(client, kinds::POD, PodInfo::from_json, &mut notes).await?;
    let mut snapshot = Snapshot::new(nodes, pods, now);
    snapshot.pdbs = read(client, kinds::POD_DISRUPTION_BUDGET, pdb_from_json, &mut notes).await?;
    snapshot.namespaces = read(client, kinds::NAMESPACE, namespace_from_json, &mut notes).await?;
    snapshot.priority_classes = read(client, kinds::PRIORITY_CLASS, priority_class_from_json, &mut notes).await?;
    if needs_pvcs(policy) {
        snapshot.pvcs = read(client, kinds::PERSISTENT_VOLUME_CLAIM, pvc_from_json, &mut notes).await?;
    }
    Ok(LiveSnapshot { snapshot, notes })
}

/// Lists `kind` and reads every item with `parse`.
async fn read<C: ClusterClient, T>(
    client: &C,
    kind: ResourceKind,
    parse: fn(&Value) -> Result<T, ModelError>,
    notes: &mut Vec<String>,
) -> Result<Vec<T>, ExecuteError> {
    let items = client.list(kind, None).await.map_err(|source| ExecuteError::Read { resource: kind.name(), source })?;
    let mut out = Vec::with_capacity(items.len());
    for item in &items {
        match parse(item) {
            Ok(x) => out.push(x),
            Err(e) => notes.push(format!("left out, unreadable: {} {e}", kind.kind)),
        }
    }
    Ok(out)
}
