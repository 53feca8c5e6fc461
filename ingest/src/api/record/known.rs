//! What the store already knows of a resource, for a recorder that starts
//! (or restarts after a crash): the objects the API sources last saw alive
//! with their resourceVersion and uid, and the last stored version of an
//! object that vanished while nobody watched.

use std::collections::HashMap;

use kdrift_rebalance::{ResourceKind, Scope};
use serde_json::{json, Value};

use crate::store::{sql, Store, StoreError};

/// (namespace, name) → (resourceVersion, uid) of the objects believed alive.
pub type Known = HashMap<(String, String), (String, String)>;

/// The objects of `resource` in `scope` the API sources last saw alive.
///
/// # Errors
/// [`StoreError`].
pub fn load(store: &Store, resource: &ResourceKind, scope: &Scope) -> Result<Known, StoreError> {
    let namespace = match scope {
        Scope::Namespace(ns) if resource.namespaced => ns.clone(),
        _ => String::new(),
    };
    let rows = store.query_map(
        &sql::KNOWN_OBJECTS,
        kdrift_store::params![resource.api_version(), resource.kind, namespace],
        |r| Ok(((r.get::<_, String>(0)?, r.get::<_, String>(1)?), (r.get::<_, String>(2)?, r.get::<_, String>(3)?))),
    )?;
    Ok(rows.into_iter().collect())
}

/// The newest stored version of an object, or (never stored: cannot
/// happen for a known object, but a store can be edited) a stub with its
/// identity.
///
/// # Errors
/// [`StoreError`].
pub fn last_version(
    store: &Store,
    resource: &ResourceKind,
    namespace: &str,
    name: &str,
    uid: &str,
) -> Result<Value, StoreError> {
    let rows = store.query_map(
        &sql::LAST_VERSION,
        kdrift_store::params![resource.api_version(), resource.kind, namespace, name],
        |r| r.get::<_, String>(0),
    )?;
    let parsed = rows.first().and_then(|text| serde_json::from_str::<Value>(text).ok());
    Ok(parsed.unwrap_or_else(|| {
        let mut meta = json!({"name": name, "uid": uid});
        if !namespace.is_empty() {
            meta["namespace"] = json!(namespace);
        }
        json!({"apiVersion": resource.api_version(), "kind": resource.kind, "metadata": meta})
    }))
}
