//! Turning a parsed [`Record`] into the row the store stages for it: its
//! identity, observation time, JSON text, content hash, model fields and
//! (for pods) requested amounts, plus what the cluster model cannot read in
//! it. Pure CPU work with no store access, so that readers can do it on every
//! core ([`prepare_all`]) while the store's connection only appends
//! ([`super::writer::RunWriter::append`]); BENCHMARKS.md, issue 6.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::writer::UsageColumns;
use crate::record::{content_hash, identify, newest_timestamp, Change, Identity, IdentityError, Origin, Record};
use kdrift_rebalance::model_fields;

/// One record made ready for staging.
#[derive(Debug)]
pub struct Prepared {
    /// Where it was read.
    pub origin: Origin,
    /// Whether it declared `kind: Event`.
    pub is_event: bool,
    /// What the cluster model cannot read in a Pod or Node that declares its
    /// kind (a quantity "abc", allocatable "-1"): reported as an input error,
    /// the version still stored.
    pub problem: Option<String>,
    /// The staging row, or why the record is not a storable object.
    pub row: Result<StagingRow, IdentityError>,
}

/// The columns of one `staging_observations` row (schema v4).
#[derive(Debug, Clone)]
pub struct StagingRow {
    /// Observation time, UTC microseconds.
    pub(super) observed_at: i64,
    /// Whether `observed_at` was estimated from the object's own timestamps.
    pub(super) estimated: bool,
    pub(super) change: Change,
    pub(super) identity: Identity,
    /// [`content_hash`]: the dedupe key.
    pub(super) hash: u64,
    /// The whole object, compact JSON.
    pub(super) json: String,
    /// [`model_fields`] as JSON (pods and nodes).
    pub(super) model: Option<String>,
    pub(super) usage: UsageColumns,
    /// What the derivations read of an Event, Pod or Node
    /// ([`crate::fields::derived_fields`]): they never parse the object.
    pub(super) fields: Option<Vec<Option<String>>>,
}

/// Prepares one record: the credentials in it masked
/// (`crate::record_mask`) before anything is read from it, its identity
/// included; a Secret is refused ([`IdentityError::Secret`]). The observation time is the source's, else the
/// newest timestamp inside the object (marked estimated), else `fallback`
/// (the run's start).
pub fn prepare(mut record: Record, fallback: DateTime<Utc>) -> Prepared {
    let declared = record.object.get("kind").and_then(Value::as_str).map(str::to_string);
    let is_event = declared.as_deref() == Some("Event");
    // Credentials masked first (an Event's message, an annotation, an env
    // value; a held credential anywhere): the identity is read from the
    // masked object, so a name, uid or resourceVersion a server wrote a
    // held credential into is stored masked in the identity columns too
    // (break-it, issue 34).
    crate::record_mask::mask_object(&mut record.object);
    let identity = match identify(&mut record.object, None) {
        Ok(id) => id,
        // Not stored: the model's problems (said as "the version is
        // stored, but …") would be false, and the identity error says why.
        Err(e) => return Prepared { origin: record.origin, is_event, problem: None, row: Err(e) },
    };
    let (observed_at, estimated) = match record.observed_at {
        Some(t) => (t, false),
        None => (newest_timestamp(&record.object).unwrap_or(fallback), true),
    };
    if identity.kind.trim().eq_ignore_ascii_case("Secret") {
        let name = format!("{}/{}", identity.namespace, identity.name);
        return Prepared { origin: record.origin, is_event, problem: None, row: Err(IdentityError::Secret { name }) };
    }
    if let Some(kind) = crate::record::credential_kind(&identity.kind) {
        let name = format!("{}/{}", identity.namespace, identity.name);
        return Prepared {
            origin: record.origin,
            is_event,
            problem: None,
            row: Err(IdentityError::Credential { kind, name }),
        };
    }
    let json = record.object.to_string();
    // What the cluster model reads of a pod or node, kept next to it (schema v3).
    let model = model_fields(&identity.kind, &record.object);
    // What a pod version adds to its node's requested amounts (schema v4).
    let usage = (identity.kind == "Pod").then(|| UsageColumns::of(model.as_ref().unwrap_or(&record.object)));
    let problem = model_problem(declared.as_deref(), model.as_ref().unwrap_or(&record.object), usage.as_ref());
    let hash = content_hash(record.change, &identity, &json);
    let fields = crate::fields::derived_fields(&identity.kind, &record.object);
    let row = StagingRow {
        observed_at: observed_at.timestamp_micros(),
        estimated,
        change: record.change,
        identity,
        hash,
        json,
        model: model.map(|m| m.to_string()),
        usage: usage.unwrap_or_default(),
        fields,
    };
    Prepared { origin: record.origin, is_event, problem, row: Ok(row) }
}

/// [`prepare`] for each record, on up to every core, in order.
pub fn prepare_all(records: Vec<Record>, fallback: DateTime<Utc>) -> Vec<Prepared> {
    crate::parallel::map_ordered(records, |r| prepare(r, fallback))
}

/// What the model cannot read in a Pod or Node that declares its kind:
/// [`kdrift_rebalance::PodInfo::from_json`]'s error (already computed for the
/// pod's usage columns, from its model fields: the same result by
/// construction, `pod_model_fields_agree`), or
/// [`kdrift_rebalance::NodeInfo::from_json`]'s.
fn model_problem(declared: Option<&str>, object: &Value, usage: Option<&UsageColumns>) -> Option<String> {
    match declared {
        Some("Pod") => match usage {
            Some(u) => u.model_error.clone(),
            None => kdrift_rebalance::PodInfo::from_json(object).err().map(|e| e.to_string()),
        },
        Some("Node") => kdrift_rebalance::NodeInfo::from_json(object).err().map(|e| e.to_string()),
        _ => None,
    }
}
