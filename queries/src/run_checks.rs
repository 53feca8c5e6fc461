//! What an ingest run stored that its user should hear about, read as
//! plain rows after the run committed (`kdrift ingest file` words the
//! warnings).

use crate::{sql, Store, StoreError};

/// A node name that one run stored with more than one uid
/// (`run_node_uids`): dumps of two clusters given together, or a node
/// deleted and re-created under its name between two dumps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeUids {
    /// The node's name.
    pub name: String,
    /// How many distinct uids the run stored under it.
    pub uids: i64,
    /// The locations (files) they came from, sorted.
    pub locations: Vec<String>,
}

impl Store {
    /// The node names that run `run_id` stored with more than one uid, by name.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn run_node_uids(&self, run_id: i64) -> Result<Vec<NodeUids>, StoreError> {
        self.query_map(&sql::RUN_NODE_UIDS, [run_id], |r| {
            Ok(NodeUids { name: r.get(0)?, uids: r.get(1)?, locations: texts(r.get(2)?) })
        })
    }
}

/// A DuckDB list of texts (other values as DuckDB shows them).
fn texts(v: duckdb::types::Value) -> Vec<String> {
    match v {
        duckdb::types::Value::List(items) => items
            .into_iter()
            .map(|i| match i {
                duckdb::types::Value::Text(t) => t,
                other => format!("{other:?}"),
            })
            .collect(),
        other => vec![format!("{other:?}")],
    }
}
