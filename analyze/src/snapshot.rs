//! The rebalance planner's input from the store: a [`Snapshot`] of the
//! cluster at one instant (by default the store's newest observation).
//!
//! Nodes and pods come from [`ClusterAt::load`]; Namespaces (for
//! `namespaceLabelSelector`), PodDisruptionBudgets (for `PodsWithoutPDB`),
//! PriorityClasses (for a `priorityThreshold` given by name) and
//! PersistentVolumeClaims (for `protectedStorageClasses`) from the
//! `objects_at` query. Dumps often lack those kinds; the planner then acts as
//! if the cluster had none, and [`LoadedSnapshot::notes`] says what that
//! changes. Objects that cannot be read are noted and left out, never fatal.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use kdrift_ingest::store::sql;
use kdrift_ingest::Store;
use kdrift_rebalance::planner::{Namespace, Pdb, Pvc};
use kdrift_rebalance::pod::{LabelSelector, Requirement, SelectorOperator};
use kdrift_rebalance::Snapshot;
use serde_json::Value;

use crate::state::ClusterAt;
use crate::AnalyzeError;

/// A snapshot read from the store, with what the reader noticed.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSnapshot {
    /// The cluster at `at` (`snapshot.now` is `at`).
    pub snapshot: Snapshot,
    /// The instant (UTC).
    pub at: DateTime<Utc>,
    /// What the snapshot lacks or had to estimate, in words.
    pub notes: Vec<String>,
}

/// One stored object of some kind at the instant.
struct Stored {
    namespace: String,
    name: String,
    estimated: bool,
    object: Result<Value, String>,
}

/// Loads the cluster at `at` (default: the store's newest observation).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn load_snapshot(store: &Store, at: Option<DateTime<Utc>>) -> Result<LoadedSnapshot, AnalyzeError> {
    let mut notes = Vec::new();
    let at = match at {
        Some(at) => at,
        None => match store.query_one(&sql::LATEST_OBSERVATION, [], |r| r.get::<_, Option<DateTime<Utc>>>(0))? {
            Some(latest) => latest,
            None => {
                notes.push("the store holds no observation: planning on an empty cluster".to_string());
                Utc::now()
            }
        },
    };
    let cluster = ClusterAt::load(store, at)?;
    if cluster.nodes.is_empty() {
        notes.push(format!("no Node objects at {}: nothing to plan", at.to_rfc3339()));
    }
    if !cluster.estimated_nodes.is_empty() || !cluster.estimated_pods.is_empty() {
        notes.push(format!(
            "{} node(s) and {} pod(s) are known only from versions observed after {} (estimated from the nearest later version)",
            cluster.estimated_nodes.len(),
            cluster.estimated_pods.len(),
            at.to_rfc3339()
        ));
    }
    notes.extend(cluster.unreadable.iter().map(|u| format!("left out, unreadable: {u}")));
    let mut snapshot = Snapshot::new(cluster.nodes, cluster.pods, at);

    let namespaces = objects(store, "Namespace", at)?;
    for o in &namespaces {
        match o.object.as_ref().map_err(Clone::clone).and_then(|v| string_map(v, "/metadata/labels")) {
            Ok(labels) => snapshot.namespaces.push(Namespace { name: o.name.clone(), labels }),
            Err(e) => notes.push(format!("left out, unreadable: Namespace {}: {e}", o.name)),
        }
    }
    let pdbs = objects(store, "PodDisruptionBudget", at)?;
    for o in &pdbs {
        match o.object.as_ref().map_err(Clone::clone).and_then(read_pdb) {
            Ok((selector, disruptions_allowed)) => snapshot.pdbs.push(Pdb {
                namespace: o.namespace.clone(),
                name: o.name.clone(),
                selector,
                disruptions_allowed,
            }),
            Err(e) => notes.push(format!("left out, unreadable: PodDisruptionBudget {}/{}: {e}", o.namespace, o.name)),
        }
    }
    let classes = objects(store, "PriorityClass", at)?;
    for o in &classes {
        match o.object.as_ref().map_err(Clone::clone).and_then(read_priority_class) {
            Ok(value) => snapshot.priority_classes.push((o.name.clone(), value)),
            Err(e) => notes.push(format!("left out, unreadable: PriorityClass {}: {e}", o.name)),
        }
    }
    let pvcs = objects(store, "PersistentVolumeClaim", at)?;
    for o in &pvcs {
        match &o.object {
            Ok(v) => snapshot.pvcs.push(Pvc {
                namespace: o.namespace.clone(),
                name: o.name.clone(),
                storage_class: v.pointer("/spec/storageClassName").and_then(Value::as_str).map(str::to_string),
            }),
            Err(e) => {
                notes.push(format!("left out, unreadable: PersistentVolumeClaim {}/{}: {e}", o.namespace, o.name))
            }
        }
    }

    for (kind, found, consequence) in [
        ("Namespace", &namespaces, "namespaceLabelSelector matches nothing"),
        ("PodDisruptionBudget", &pdbs, "PodsWithoutPDB, when enabled, protects every pod"),
        ("PriorityClass", &classes, "a priorityThreshold given by name cannot be resolved"),
        (
            "PersistentVolumeClaim",
            &pvcs,
            "with protectedStorageClasses, PodsWithPVC protects every pod with a claim (not found)",
        ),
    ] {
        if found.is_empty() {
            notes.push(format!("no {kind} objects: {consequence}"));
        }
        let estimated = found.iter().filter(|o| o.estimated).count();
        if estimated > 0 {
            notes.push(format!(
                "{estimated} {kind} object(s) are known only from versions observed after {}",
                at.to_rfc3339()
            ));
        }
    }
    Ok(LoadedSnapshot { snapshot, at, notes })
}

/// Every object of `kind` at `at`.
fn objects(store: &Store, kind: &str, at: DateTime<Utc>) -> Result<Vec<Stored>, AnalyzeError> {
    let rows = store.query_map(&sql::OBJECTS_AT, duckdb::params![kind, at.timestamp_micros()], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, bool>(4)?, r.get::<_, String>(5)?))
    })?;
    Ok(rows
        .into_iter()
        .map(|(namespace, name, estimated, json)| Stored {
            namespace,
            name,
            estimated,
            object: serde_json::from_str(&json).map_err(|e| e.to_string()),
        })
        .collect())
}

/// A string-to-string map at `pointer` (absent or null: empty).
fn string_map(v: &Value, pointer: &str) -> Result<BTreeMap<String, String>, String> {
    match v.pointer(pointer) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, x)| match x {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(format!("{pointer}/{k}: expected a string, got {other}")),
            })
            .collect(),
        Some(other) => Err(format!("{pointer}: expected an object, got {other}")),
    }
}

/// `spec.selector` and `status.disruptionsAllowed` of a PodDisruptionBudget.
fn read_pdb(v: &Value) -> Result<(Option<LabelSelector>, Option<i64>), String> {
    let selector = match v.pointer("/spec/selector") {
        None | Some(Value::Null) => None,
        Some(s) => Some(label_selector(s)?),
    };
    let allowed = match v.pointer("/status/disruptionsAllowed") {
        None | Some(Value::Null) => None,
        Some(n) => Some(n.as_i64().ok_or_else(|| format!("status.disruptionsAllowed: expected an integer, got {n}"))?),
    };
    Ok((selector, allowed))
}

/// A `metav1.LabelSelector` (`matchLabels`, `matchExpressions`).
fn label_selector(v: &Value) -> Result<LabelSelector, String> {
    if !v.is_object() {
        return Err(format!("spec.selector: expected an object, got {v}"));
    }
    let match_labels = string_map(v, "/matchLabels")?;
    let mut match_expressions = Vec::new();
    match v.get("matchExpressions") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, e) in items.iter().enumerate() {
                let text = |field: &str| e.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
                let values = match e.get("values") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(vs)) => vs
                        .iter()
                        .map(|x| {
                            x.as_str().map(str::to_string).ok_or_else(|| {
                                format!("spec.selector.matchExpressions[{i}].values: expected strings, got {x}")
                            })
                        })
                        .collect::<Result<_, _>>()?,
                    Some(other) => {
                        return Err(format!("spec.selector.matchExpressions[{i}].values: expected a list, got {other}"))
                    }
                };
                match_expressions.push(Requirement {
                    key: text("key"),
                    operator: SelectorOperator::parse(&text("operator")),
                    values,
                });
            }
        }
        Some(other) => return Err(format!("spec.selector.matchExpressions: expected a list, got {other}")),
    }
    Ok(LabelSelector { match_labels, match_expressions })
}

/// A PriorityClass's `value`.
fn read_priority_class(v: &Value) -> Result<i32, String> {
    let value = v.get("value").ok_or("value: missing")?;
    value
        .as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| format!("value: expected a 32-bit integer, got {value}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pdb_selector_and_disruptions_allowed() {
        let pdb = json!({
            "spec": {"selector": {"matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}},
            "status": {"disruptionsAllowed": 1}
        });
        let (sel, allowed) = read_pdb(&pdb).expect("reads");
        let sel = sel.expect("selector");
        assert_eq!(allowed, Some(1));
        let labels = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert!(sel.matches(&labels(&[("app", "web"), ("tier", "a")])));
        assert!(!sel.matches(&labels(&[("app", "web"), ("tier", "c")])));
        assert_eq!(read_pdb(&json!({"spec": {}})), Ok((None, None)));
        assert!(read_pdb(&json!({"spec": {"selector": {"matchExpressions": {}}}})).is_err());
    }

    #[test]
    fn priority_class_value() {
        assert_eq!(read_priority_class(&json!({"value": 1000})), Ok(1000));
        assert!(read_priority_class(&json!({"value": 3_000_000_000_i64})).is_err());
        assert!(read_priority_class(&json!({})).is_err());
    }

    #[test]
    fn namespace_labels() {
        let ns = json!({"metadata": {"labels": {"team": "a"}}});
        assert_eq!(string_map(&ns, "/metadata/labels").expect("labels").get("team").map(String::as_str), Some("a"));
        assert!(string_map(&json!({}), "/metadata/labels").expect("empty").is_empty());
        assert!(string_map(&json!({"metadata": {"labels": {"x": 1}}}), "/metadata/labels").is_err());
    }
}
