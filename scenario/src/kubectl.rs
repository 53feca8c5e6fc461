//! `kubectl get events|pods|nodes -A -o json` as of some instant: the latest
//! version of every object still present, in a `kind: List`. Events read
//! through core/v1, so the scheduler's events.k8s.io events appear in their
//! core/v1 form (no `count`, null first/last timestamps, empty source).
//! Events are not expired (a real dump only shows the last hour).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::events::new_to_core;
use super::{ObjectChange, ScenarioRecord};

/// The file names [`super::Scenario::to_kubectl_lists`] returns, in order.
pub const KUBECTL_FILES: [&str; 3] = ["events.json", "nodes.json", "pods.json"];

fn text<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// Builds the three lists from `records` observed up to `until` (all if None).
pub(crate) fn lists(records: &[ScenarioRecord], until: Option<DateTime<Utc>>) -> Vec<(String, Value)> {
    // file index -> (namespace, name) -> latest object (None once deleted)
    let mut latest: [BTreeMap<(String, String), Option<Value>>; 3] = Default::default();
    for r in records {
        if until.is_some_and(|u| r.observed_at > u) {
            break;
        }
        let file = match text(&r.object, "/kind") {
            "Event" => 0,
            "Node" => 1,
            "Pod" => 2,
            _ => continue,
        };
        let key = (text(&r.object, "/metadata/namespace").to_string(), text(&r.object, "/metadata/name").to_string());
        let value = match r.change {
            ObjectChange::Deleted => None,
            _ if text(&r.object, "/apiVersion") == "events.k8s.io/v1" => Some(new_to_core(&r.object)),
            _ => Some(r.object.clone()),
        };
        latest[file].insert(key, value);
    }
    KUBECTL_FILES
        .iter()
        .zip(latest)
        .map(|(name, objects)| {
            let items: Vec<Value> = objects.into_values().flatten().collect();
            (
                name.to_string(),
                json!({ "apiVersion": "v1", "items": items, "kind": "List", "metadata": { "resourceVersion": "" } }),
            )
        })
        .collect()
}
