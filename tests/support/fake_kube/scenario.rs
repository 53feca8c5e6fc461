//! Loading kdrift's demo scenario (`kdrift_scenario`) into the fake:
//! the state at an instant as ADDED objects, or the whole history replayed
//! change by change so that watchers see every ADDED / MODIFIED / DELETED
//! in order. Recorded resourceVersions are kept (they strictly increase).

use chrono::{DateTime, Utc};
use kdrift_scenario::{ObjectChange, Scenario, ScenarioRecord};
use serde_json::Value;

use super::resources::{by_kind, ResourceId, SERVED};
use super::state::{Stamp, State};
use super::status::ApiError;

fn text<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn resource_of(object: &Value) -> Result<ResourceId, ApiError> {
    let (api_version, kind) = (text(object, "/apiVersion"), text(object, "/kind"));
    by_kind(api_version, kind)
        .ok_or_else(|| ApiError::bad_request(format!("the fake does not serve {api_version} {kind}")))
}

/// Applies one recorded change: ADDED creates (or replaces a leftover),
/// MODIFIED replaces (or creates a missing object), DELETED removes the
/// object with the recorded last state.
///
/// # Errors
/// An [`ApiError`] for an object the fake cannot store.
pub fn apply(st: &mut State, change: ObjectChange, object: &Value) -> Result<Value, ApiError> {
    let rid = resource_of(object)?;
    let (ns, name) = (text(object, "/metadata/namespace").to_string(), text(object, "/metadata/name").to_string());
    let exists = st.get(rid, &ns, &name).is_some();
    match change {
        ObjectChange::Deleted if exists => st.delete(rid, &ns, &name, Some(object.clone()), Stamp::KeepIfNewer),
        ObjectChange::Deleted => Err(ApiError::not_found(SERVED[rid].plural, SERVED[rid].group, &name)),
        _ if exists => st.update(rid, object.clone(), Stamp::KeepIfNewer, false),
        _ => st.create(rid, object.clone(), Stamp::KeepIfNewer),
    }
}

/// The objects present at `at` (all records when `None`), each at its latest
/// version, in resourceVersion order.
pub fn state_at(scenario: &Scenario, at: Option<DateTime<Utc>>) -> Vec<Value> {
    let mut latest: std::collections::BTreeMap<(String, String, String, String), Option<&ScenarioRecord>> =
        std::collections::BTreeMap::new();
    for r in scenario.records.iter().take_while(|r| at.is_none_or(|t| r.observed_at <= t)) {
        let o = &r.object;
        // Both event APIs are one storage: key events by namespace/name only.
        let group = if text(o, "/kind") == "Event" { "Event".to_string() } else { text(o, "/apiVersion").to_string() };
        let key =
            (group, text(o, "/kind").into(), text(o, "/metadata/namespace").into(), text(o, "/metadata/name").into());
        latest.insert(key, (r.change != ObjectChange::Deleted).then_some(r));
    }
    let mut records: Vec<&ScenarioRecord> = latest.into_values().flatten().collect();
    let rv = |r: &ScenarioRecord| text(&r.object, "/metadata/resourceVersion").parse::<u64>().unwrap_or(0);
    records.sort_by_key(|r| rv(r));
    records.into_iter().map(|r| r.object.clone()).collect()
}
