//! The drain history as `why-pending` needs it: only the moves that can
//! have sent pods to the few nodes it explains, read from the store without
//! the rest of the history.
//!
//! An evicted pod's replacement is a pod of its own owner ([`super::moves`]),
//! and owners never share a replacement, so the moves whose replacements
//! landed on a set of nodes are among the moves of the owners of the pods
//! bound to those nodes (query `node_owners`). Reading those owners' pods
//! (`owner_bindings`) and their eviction evidence (`owner_evictions`), then
//! keeping the moved pods whose owner is one of them, gives those moves and
//! their replacements exactly as the whole-history timeline gives them (a
//! test compares both on every node of a generated cluster), at a
//! fraction of the rows: at 10M events the whole history is 820,000
//! bindings and 500,000 pieces of evidence.

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
    /// The same, as a JSON array of `{"namespace", "owner"}`.
    owners_json: String,
}

impl Focus {
    /// The owners of the pods bound to `nodes` up to `until` (query `node_owners`).
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
        Ok(Focus { nodes, owners: rows.into_iter().collect(), owners_json })
    }

    /// Every binding up to `until` of the pods that belong to the owners,
    /// and every binding to the nodes, oldest first (query `owner_bindings`).
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the query fails.
    pub(crate) fn placements(&self, store: &Store, until: DateTime<Utc>) -> Result<Vec<Placement>, AnalyzeError> {
        let params = duckdb::params![self.owners_json, self.nodes, until.timestamp_micros()];
        Ok(store.query_map(&sql::OWNER_BINDINGS, params, history::placement_row)?)
    }

    /// [`history::eviction_evidence_in`] for the pods of the owners only
    /// (query `owner_evictions`).
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the query fails.
    pub(crate) fn evidence_in(
        &self,
        store: &Store,
        ranges: &[(&str, DateTime<Utc>, DateTime<Utc>)],
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<EvictionEvidence>, AnalyzeError> {
        let list = history::ranges_json(ranges);
        let params = duckdb::params![list, since.timestamp_micros(), until.timestamp_micros(), self.owners_json];
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
}
