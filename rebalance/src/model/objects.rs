//! The other kinds the planner reads, from API JSON (as stored, or as listed
//! from a cluster): Namespace (for `namespaceLabelSelector`),
//! PodDisruptionBudget (for `PodsWithoutPDB`), PriorityClass (for a
//! `priorityThreshold` given by name) and PersistentVolumeClaim (for
//! `protectedStorageClasses`).
//!
//! One reader per kind, shared by the store's snapshot (`kdrift-analyze`)
//! and the live one ([`crate::execute::read_snapshot`]), so both read the
//! same objects the same way. Missing and `null` fields read as unset; a
//! field of the wrong type is a [`ModelError`] naming the object and the
//! field (the caller notes it and leaves that object out).

use serde_json::Value;

use crate::error::ModelError;
use crate::model::extract::{get, Reader};
use crate::model::pod::read_label_selector;
use crate::planner::{IntOrPercent, Namespace, Pdb, Pvc};

/// `metadata.namespace` and `metadata.name` (each `""` when missing).
fn identity(r: &Reader, v: &Value) -> Result<(String, String), ModelError> {
    let meta = get(v, "metadata");
    let namespace = r.opt_str(meta.and_then(|m| get(m, "namespace")), "metadata.namespace")?.unwrap_or_default();
    let name = r.opt_str(meta.and_then(|m| get(m, "name")), "metadata.name")?.unwrap_or_default();
    Ok((namespace, name))
}

/// A reader named after the object (`namespace media`, `poddisruptionbudget media/web`).
fn reader_for(kind: &str, v: &Value) -> Reader {
    let meta = get(v, "metadata");
    let s = |k: &str| meta.and_then(|m| get(m, k)).and_then(Value::as_str).unwrap_or("?").to_string();
    let ns = meta.and_then(|m| get(m, "namespace")).and_then(Value::as_str);
    match ns {
        Some(ns) if !ns.is_empty() => Reader::new(format!("{kind} {ns}/{}", s("name"))),
        _ => Reader::new(format!("{kind} {}", s("name"))),
    }
}

/// Checks that `v` is an object with a name.
fn object(kind: &'static str, v: &Value) -> Result<(Reader, String, String), ModelError> {
    if !v.is_object() {
        return Err(ModelError::NotAnObject { expected: kind, found: crate::model::extract::describe(v) });
    }
    let r = reader_for(&kind.to_lowercase(), v);
    let (namespace, name) = identity(&r, v)?;
    if name.is_empty() {
        return Err(ModelError::MissingField { object: r.object.clone(), field: "metadata.name".to_string() });
    }
    Ok((r, namespace, name))
}

/// A Namespace: its name and `metadata.labels`.
///
/// # Errors
/// [`ModelError`] when it is not an object, has no name, or has labels that are not strings.
pub fn namespace_from_json(v: &Value) -> Result<Namespace, ModelError> {
    let (r, _, name) = object("Namespace", v)?;
    let labels = r.string_map(get(v, "metadata").and_then(|m| get(m, "labels")), "metadata.labels")?;
    Ok(Namespace { name, labels })
}

/// A PodDisruptionBudget: `spec.selector`, `status.disruptionsAllowed`,
/// `spec.minAvailable` and `spec.maxUnavailable`.
///
/// # Errors
/// [`ModelError`] naming the field (a selector that is not a mapping,
/// values that are not strings, a count that is not an integer).
pub fn pdb_from_json(v: &Value) -> Result<Pdb, ModelError> {
    let (r, namespace, name) = object("PodDisruptionBudget", v)?;
    let selector = read_label_selector(&r, get(v, "spec").and_then(|s| get(s, "selector")), "spec.selector")?;
    let disruptions_allowed =
        r.opt_i64(get(v, "status").and_then(|s| get(s, "disruptionsAllowed")), "status.disruptionsAllowed")?;
    let spec = get(v, "spec");
    let min_available = int_or_percent(&r, spec.and_then(|s| get(s, "minAvailable")), "spec.minAvailable")?;
    let max_unavailable = int_or_percent(&r, spec.and_then(|s| get(s, "maxUnavailable")), "spec.maxUnavailable")?;
    Ok(Pdb { namespace, name, selector, disruptions_allowed, min_available, max_unavailable })
}

/// An `IntOrString` pod count: an integer, or a string `"N%"` (or a
/// string holding an integer).
fn int_or_percent(r: &Reader, v: Option<&Value>, field: &str) -> Result<Option<IntOrPercent>, ModelError> {
    if let Some(Value::String(s)) = v {
        if let Some(p) = s.trim().strip_suffix('%') {
            return p
                .trim()
                .parse::<i64>()
                .map(|p| Some(IntOrPercent::Percent(p)))
                .map_err(|_| r.bad(field, format!("expected an integer or a percentage, got string {s:?}")));
        }
    }
    Ok(r.opt_i64(v, field)?.map(IntOrPercent::Int))
}

/// A PriorityClass as `(name, value)`.
///
/// # Errors
/// [`ModelError`] when `value` is missing or not a 32-bit integer.
pub fn priority_class_from_json(v: &Value) -> Result<(String, i32), ModelError> {
    let (r, _, name) = object("PriorityClass", v)?;
    let value = r
        .opt_i32(get(v, "value"), "value")?
        .ok_or_else(|| ModelError::MissingField { object: r.object.clone(), field: "value".to_string() })?;
    Ok((name, value))
}

/// A PersistentVolumeClaim and its `spec.storageClassName`.
///
/// # Errors
/// [`ModelError`] when the storage class is not a string.
pub fn pvc_from_json(v: &Value) -> Result<Pvc, ModelError> {
    let (r, namespace, name) = object("PersistentVolumeClaim", v)?;
    let storage_class = r.opt_str(get(v, "spec").and_then(|s| get(s, "storageClassName")), "spec.storageClassName")?;
    Ok(Pvc { namespace, name, storage_class })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pdb_selector_and_disruptions_allowed() {
        let pdb = json!({
            "metadata": {"namespace": "media", "name": "web"},
            "spec": {"selector": {"matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}},
            "status": {"disruptionsAllowed": 1}
        });
        let p = pdb_from_json(&pdb).expect("reads");
        assert_eq!((p.namespace.as_str(), p.name.as_str(), p.disruptions_allowed), ("media", "web", Some(1)));
        let sel = p.selector.expect("selector");
        let labels = |pairs: &[(&str, &str)]| -> std::collections::BTreeMap<String, String> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        assert!(sel.matches(&labels(&[("app", "web"), ("tier", "a")])));
        assert!(!sel.matches(&labels(&[("app", "web"), ("tier", "c")])));
        assert_eq!((p.min_available, p.max_unavailable), (None, None));
        let counts = pdb_from_json(&json!({"metadata": {"namespace": "m", "name": "x"},
            "spec": {"minAvailable": "50%", "maxUnavailable": 1}}))
        .expect("reads");
        assert_eq!(
            (counts.min_available, counts.max_unavailable),
            (Some(IntOrPercent::Percent(50)), Some(IntOrPercent::Int(1)))
        );
        let err =
            pdb_from_json(&json!({"metadata": {"namespace": "m", "name": "x"}, "spec": {"minAvailable": "half"}}))
                .expect_err("bad count");
        assert!(err.to_string().starts_with("poddisruptionbudget m/x: spec.minAvailable"), "{err}");
        let bare = pdb_from_json(&json!({"metadata": {"name": "x"}, "spec": {}})).expect("reads");
        assert_eq!((bare.selector, bare.disruptions_allowed), (None, None));
        let err = pdb_from_json(&json!({"metadata": {"namespace": "m", "name": "x"},
            "spec": {"selector": {"matchExpressions": {}}}}))
        .expect_err("bad selector");
        assert!(err.to_string().starts_with("poddisruptionbudget m/x: spec.selector.matchExpressions"), "{err}");
    }

    #[test]
    fn priority_class_value() {
        assert_eq!(
            priority_class_from_json(&json!({"metadata": {"name": "high"}, "value": 1000})),
            Ok(("high".to_string(), 1000))
        );
        assert!(priority_class_from_json(&json!({"metadata": {"name": "x"}, "value": 3_000_000_000_i64})).is_err());
        let missing = priority_class_from_json(&json!({"metadata": {"name": "x"}})).expect_err("no value");
        assert_eq!(missing.to_string(), "priorityclass x: value is missing");
        assert!(priority_class_from_json(&json!({"value": 1})).is_err(), "no name");
    }

    #[test]
    fn namespace_labels_and_pvc_class() {
        let ns = namespace_from_json(&json!({"metadata": {"name": "media", "labels": {"team": "a"}}})).expect("ns");
        assert_eq!(ns.labels.get("team").map(String::as_str), Some("a"));
        assert!(namespace_from_json(&json!({"metadata": {"name": "x"}})).expect("ns").labels.is_empty());
        assert!(namespace_from_json(&json!({"metadata": {"name": "x", "labels": {"x": 1}}})).is_err());
        let pvc = pvc_from_json(&json!({"metadata": {"namespace": "db", "name": "data"},
            "spec": {"storageClassName": "local-path"}}))
        .expect("pvc");
        assert_eq!(pvc.storage_class.as_deref(), Some("local-path"));
        assert!(pvc_from_json(&json!([1])).is_err());
    }
}
