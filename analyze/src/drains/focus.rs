//! The drain history as `why-pending` needs it: only the moves that can
//! have sent pods to the few nodes it explains, read from the store without
//! the rest of the history.
//!
//! An evicted pod's replacement is a pod of its own owner ([`super::moves`]),
//! and owners never share a replacement, so the moves whose replacements
//! landed on a set of nodes are among the moves of the owners of the pods
//! bound to those nodes (query `node_owners`). Reading those owners' pods
//! (`owner_pods`) with their bindings (`owner_bindings`) and eviction
//! evidence (`owner_evictions`), then
//! keeping the moved pods whose owner is one of them, gives those moves and
//! their replacements exactly as the whole-history timeline gives them (a
//! test compares both on every node of a generated cluster), at a
//! fraction of the rows: at 10M events the whole history is 820,000
//! bindings and 500,000 pieces of evidence. With the moves kept in the
//! store ([`super::kept`]), the owners alone select the kept rows, and
//! their pods, bindings and evidence are not read at all.

use std::cell::OnceCell;
use std::collections::HashSet;

use chrono::{DateTime, Utc};
use kdrift_ingest::store::sql;
use kdrift_ingest::Store;
use serde_json::{json, Value};

use super::episodes::NodeEpisode;
use super::moves::{self, PlacementWindow};
use crate::history::{self, EvictionEvidence, Placement};
use crate::AnalyzeError;

/// The owners whose moves can reach some nodes.
pub(crate) struct Focus {
    /// The nodes, as a JSON array of names (the queries' parameter).
    nodes: String,
    /// `(namespace, owner name)` of every pod bound to them.
    owners: HashSet<(String, String)>,
    /// Their pods (query `owner_pods`), as a JSON array of `{"namespace", "name"}`:
    /// read on first use ([`Focus::pods`]).
    pods: OnceCell<String>,
    /// The owners, as a JSON array of `{"namespace", "owner"}` (query `drain_moves_of_owners`).
    pub(crate) owners_json: String,
}

impl Focus {
    /// The owners of the pods bound to `nodes` up to `until` (query
    /// `node_owners`). Their pods (query `owner_pods`) are read when first
    /// needed.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the query fails.
    pub(crate) fn of_nodes(store: &Store, nodes: &[&str], until: DateTime<Utc>) -> Result<Focus, AnalyzeError> {
        let nodes = Value::from(nodes.to_vec()).to_string();
        let rows = store.query_map(&sql::NODE_OWNERS, duckdb::params![nodes, until.timestamp_micros()], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let owners_json =
            Value::Array(rows.iter().map(|(ns, owner)| json!({ "namespace": ns, "owner": owner })).collect())
                .to_string();
        Ok(Focus { nodes, owners: rows.into_iter().collect(), pods: OnceCell::new(), owners_json })
    }

    /// The owners' pods (query `owner_pods`, read once), as a JSON array
    /// of `{"namespace", "name"}`.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the query fails.
    fn pods(&self, store: &Store) -> Result<&str, AnalyzeError> {
        if let Some(pods) = self.pods.get() {
            return Ok(pods);
        }
        let pods = store.query_map(&sql::OWNER_PODS, [&self.owners_json], |r| {
            Ok(json!({ "namespace": r.get::<_, String>(0)?, "name": r.get::<_, String>(1)? }))
        })?;
        Ok(self.pods.get_or_init(|| Value::Array(pods).to_string()))
    }

    /// Every binding to the nodes up to `until`, oldest first (query
    /// `owner_bindings`), and, with `of_owner_pods`, every binding of the
    /// owners' pods too (what matching their moves needs; the kept moves
    /// need none).
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when a query fails.
    pub(crate) fn placements(
        &self,
        store: &Store,
        until: DateTime<Utc>,
        of_owner_pods: bool,
    ) -> Result<Vec<Placement>, AnalyzeError> {
        let pods = if of_owner_pods { self.pods(store)? } else { "[]" };
        let params = duckdb::params![pods, self.nodes, until.timestamp_micros()];
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
        store: &Store,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<EvictionEvidence>, AnalyzeError> {
        let params = duckdb::params![self.pods(store)?, since.timestamp_micros(), until.timestamp_micros()];
        Ok(store.query_map(&sql::OWNER_EVICTIONS, params, history::evidence_row)?)
    }

    /// Drops the moved pods whose owner ([`moves::owner_key`]) is not one of
    /// the owners: the evidence read for a pod that only shares a name
    /// prefix with them. Their replacements could only be matched among
    /// bindings read in part.
    pub(crate) fn retain_owned(&self, episodes: &mut [NodeEpisode], placements: PlacementWindow<'_, '_>) {
        for ep in episodes.iter_mut() {
            ep.evicted.retain(|m| {
                moves::owner_key(m, placements).is_some_and(|owner| self.owners.contains(&(m.namespace.clone(), owner)))
            });
        }
    }

    /// [`Focus::retain_owned`] for moves whose owner is already filled
    /// (the kept moves, [`moves::owner_key_of_matched`]).
    pub(crate) fn retain_owned_matched(&self, episodes: &mut [NodeEpisode]) {
        for ep in episodes.iter_mut() {
            ep.evicted.retain(|m| {
                moves::owner_key_of_matched(m)
                    .is_some_and(|owner| self.owners.contains(&(m.namespace.clone(), owner.to_string())))
            });
        }
    }
}
