//! The drain history as `why-pending` needs it when the kept moves are
//! stale ([`super::to_nodes`] reads the kept rows otherwise): only the
//! moves that can have sent pods to the few nodes it explains, matched from
//! a part of the history.
//!
//! An evicted pod's replacement is a pod of its own owner
//! ([`super::moves`]), and owners never share a replacement, so the moves
//! whose replacements landed on a set of nodes are among the moves of the
//! owners of the pods bound to those nodes (query `node_owners`). Reading
//! those owners' pods (`owner_pods`) with their bindings (`owner_bindings`)
//! and eviction evidence (`owner_evictions`), then keeping the moved pods
//! whose owner is one of them, gives those moves and their replacements
//! exactly as the whole-history timeline gives them (a test compares both
//! on every node of a generated cluster), at a fraction of the rows: at 10M
//! events the whole history is 820,000 bindings and 500,000 pieces of
//! evidence. [`Focus::retain_landed`] then keeps the moves whose
//! replacement is on one of the nodes.

use std::cell::OnceCell;
use std::collections::HashSet;

use chrono::{DateTime, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde_json::{json, Value};

use super::episodes::NodeEpisode;
use super::moves::{self, PlacementWindow};
use crate::history::{self, EvictionEvidence, Placement};
use crate::AnalyzeError;

/// `(namespace, owner name)` of the owners whose moves can reach some nodes,
/// with the same as a JSON array of `{"namespace", "owner"}`.
type Owners = (HashSet<(String, String)>, String);

/// What sent pods to some nodes: the nodes, and the owners whose moves can
/// reach them (read when first needed).
pub(crate) struct Focus {
    /// The nodes.
    nodes: Vec<String>,
    /// The nodes, as a JSON array of names (the queries' parameter).
    nodes_json: String,
    /// Bindings up to this instant name the owners.
    until: DateTime<Utc>,
    /// `(namespace, owner name)` of every pod bound to the nodes (query
    /// `node_owners`), with them as a JSON array of `{"namespace", "owner"}`
    /// (query `owner_pods`): read on first use ([`Focus::owners`]).
    owners: OnceCell<Owners>,
    /// Their pods (query `owner_pods`), as a JSON array of `{"namespace", "name"}`:
    /// read on first use ([`Focus::pods`]).
    pods: OnceCell<String>,
}

impl Focus {
    /// The focus on `nodes` up to `until`. Reads nothing: the owners of
    /// the pods bound to them (query `node_owners`) and their pods (query
    /// `owner_pods`) are read when first needed.
    pub(crate) fn of_nodes(nodes: &[&str], until: DateTime<Utc>) -> Focus {
        Focus {
            nodes: nodes.iter().map(|n| n.to_string()).collect(),
            nodes_json: Value::from(nodes.to_vec()).to_string(),
            until,
            owners: OnceCell::new(),
            pods: OnceCell::new(),
        }
    }

    /// The owners of the pods bound to the nodes up to `until` (query
    /// `node_owners`, read once), as a set and as a JSON array of
    /// `{"namespace", "owner"}`.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the query fails.
    fn owners(&self, store: &Reader) -> Result<&Owners, AnalyzeError> {
        if let Some(owners) = self.owners.get() {
            return Ok(owners);
        }
        let rows = store.query_map(
            &sql::NODE_OWNERS,
            kdrift_store::params![self.nodes_json, self.until.timestamp_micros()],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )?;
        let json = Value::Array(rows.iter().map(|(ns, owner)| json!({ "namespace": ns, "owner": owner })).collect())
            .to_string();
        Ok(self.owners.get_or_init(|| (rows.into_iter().collect(), json)))
    }

    /// The owners' pods (query `owner_pods`, read once), as a JSON array
    /// of `{"namespace", "name"}`.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the query fails.
    fn pods(&self, store: &Reader) -> Result<&str, AnalyzeError> {
        if let Some(pods) = self.pods.get() {
            return Ok(pods);
        }
        let owners = &self.owners(store)?.1;
        let pods = store.query_map(&sql::OWNER_PODS, [owners], |r| {
            Ok(json!({ "namespace": r.get::<_, String>(0)?, "name": r.get::<_, String>(1)? }))
        })?;
        Ok(self.pods.get_or_init(|| Value::Array(pods).to_string()))
    }

    /// Every binding to the nodes up to `until`, and every binding of the
    /// owners' pods (what matching their moves needs), oldest first (query
    /// `owner_bindings`).
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when a query fails.
    pub(crate) fn placements(&self, store: &Reader, until: DateTime<Utc>) -> Result<Vec<Placement>, AnalyzeError> {
        let params = kdrift_store::params![self.pods(store)?, self.nodes_json, until.timestamp_micros()];
        Ok(store.query_map(&sql::OWNER_BINDINGS, params, history::placement_row)?)
    }

    /// The eviction evidence of the owners' pods between `since` and
    /// `until` (query `owner_evictions`), oldest first. Not cut to the
    /// episodes' ranges as [`history::eviction_evidence_in`] is:
    /// [`moves::attach_evictions`] keeps only what falls inside an episode's
    /// range, so the moves are the same.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the query fails.
    pub(crate) fn evidence(
        &self,
        store: &Reader,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<EvictionEvidence>, AnalyzeError> {
        let params = kdrift_store::params![self.pods(store)?, since.timestamp_micros(), until.timestamp_micros()];
        Ok(store.query_map(&sql::OWNER_EVICTIONS, params, history::evidence_row)?)
    }

    /// Drops the moved pods whose owner ([`moves::owner_key`]) is not one of
    /// the owners: the evidence read for a pod that only shares a name
    /// prefix with them. Their replacements could only be matched among
    /// bindings read in part.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the owners' query fails.
    pub(crate) fn retain_owned(
        &self,
        store: &Reader,
        episodes: &mut [NodeEpisode],
        placements: PlacementWindow<'_, '_>,
    ) -> Result<(), AnalyzeError> {
        let owners = &self.owners(store)?.0;
        for ep in episodes.iter_mut() {
            ep.evicted.retain(|m| {
                moves::owner_key(m, placements).is_some_and(|owner| owners.contains(&(m.namespace.clone(), owner)))
            });
        }
        Ok(())
    }

    /// Keeps the moved pods whose replacement was bound to one of the
    /// nodes: the only moves that brought a pod there (what the kept rows
    /// of query `drain_moves_to_node` are).
    pub(crate) fn retain_landed(&self, episodes: &mut [NodeEpisode]) {
        for ep in episodes.iter_mut() {
            ep.evicted.retain(|m| m.replacement.as_ref().is_some_and(|r| self.nodes.contains(&r.node)));
        }
    }
}
