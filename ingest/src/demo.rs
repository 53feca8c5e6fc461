//! The demo scenario as an ingest source: its records go into the store
//! exactly like a recorder's watch events would (source kind `demo`).

use crate::files::{ingest_records, IngestReport};
use crate::record::{Change, Origin, Record};
use crate::scenario::{ObjectChange, Scenario, ScenarioRecord};
use crate::store::{Store, StoreError};

/// The record a watch would have delivered for a scenario record.
pub fn to_record(r: ScenarioRecord, location: &str) -> Record {
    Record {
        object: r.object,
        origin: Origin { location: location.to_string(), line: None, item: None },
        observed_at: Some(r.observed_at),
        change: match r.change {
            ObjectChange::Added => Change::Added,
            ObjectChange::Modified => Change::Modified,
            ObjectChange::Deleted => Change::Deleted,
        },
    }
}

/// Loads a generated scenario into `store` as one run (source kind `demo`,
/// location `demo:seed=<seed>`).
///
/// # Errors
/// [`StoreError`] when the store fails.
pub fn ingest_scenario(store: &Store, scenario: Scenario, seed: u64) -> Result<IngestReport, StoreError> {
    let location = format!("demo:seed={seed}");
    let records = scenario.records.into_iter().map(|r| to_record(r, &location));
    ingest_records(store, "demo", &location, records)
}
