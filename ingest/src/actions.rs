//! kdrift's own actions into the store: the Events and the `RebalanceRun`
//! record that `kdrift rebalance apply` / `run` hand to their
//! [`EventSink`], each appended at once (its own small ingest run of source
//! kind `kdrift`), so an interrupted run still leaves what it did. Events
//! land in `event_versions` like any other, so `why-pending` and a timeline
//! see kdrift's evictions next to the scheduler's events.

use chrono::Utc;
use kdrift_rebalance::EventSink;
use serde_json::Value;

use crate::files::ingest_records;
use crate::store::{Change, Origin, Record};
use crate::store::{Store, StoreError};

/// The `ingest_runs.source_kind` of kdrift's own records.
pub const SOURCE_KIND: &str = "kdrift";

/// Why a record could not be appended.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ActionError {
    /// The store failed.
    #[error("the store")]
    Store(#[from] StoreError),
    /// The store refused the object (not a storable object).
    #[error("the store refused {name}: {message}")]
    Refused {
        /// The object's name.
        name: String,
        /// Why.
        message: String,
    },
}

/// Appends every record to `store`, with `location` (e.g. `rebalance apply plan.json`) as its origin.
#[derive(Debug)]
pub struct StoreSink<'s> {
    store: &'s Store,
    location: String,
}

impl<'s> StoreSink<'s> {
    /// A sink into `store`.
    pub fn new(store: &'s Store, location: &str) -> StoreSink<'s> {
        StoreSink { store, location: location.to_string() }
    }
}

impl EventSink for StoreSink<'_> {
    type Error = ActionError;

    fn record(&mut self, object: &Value) -> Result<(), ActionError> {
        let record = Record {
            object: object.clone(),
            origin: Origin { location: self.location.clone(), line: None, item: None },
            observed_at: Some(Utc::now()),
            change: Change::Listed,
        };
        let report = ingest_records(self.store, SOURCE_KIND, &self.location, [record])?;
        if let Some(e) = report.files.iter().flat_map(|f| f.errors.iter()).next() {
            return Err(ActionError::Refused {
                name: object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("?").to_string(),
                message: e.message.clone(),
            });
        }
        Ok(())
    }
}
