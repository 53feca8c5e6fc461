//! The fake apiserver's storage: current objects, a global resourceVersion
//! counter (strictly increasing over every write, like etcd's revision), and
//! the change history watches replay from. Writes broadcast each change to
//! open watches; `compact` forgets history so older resourceVersions get
//! 410 Gone, as etcd compaction does.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::broadcast;

use super::event_views;
use super::faults::Faults;
use super::resources::{ResourceId, SERVED};
use super::status::ApiError;

/// A watch event type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// ADDED
    Added,
    /// MODIFIED
    Modified,
    /// DELETED
    Deleted,
}

impl EventType {
    /// `ADDED`, `MODIFIED`, `DELETED`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One change, kept for watches (objects as written; each watcher converts
/// to its API's view).
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    /// The change's resourceVersion.
    pub rv: u64,
    /// Storage it belongs to (see `resources::Served::storage`).
    pub storage: &'static str,
    /// Namespace (`""` for cluster-scoped).
    pub namespace: String,
    /// ADDED / MODIFIED / DELETED.
    pub event: EventType,
    /// The object after the change (DELETED: its last state).
    pub object: Value,
}

/// How a write gets its resourceVersion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stamp {
    /// The next global resourceVersion (what an apiserver does).
    Next,
    /// Keep the object's own resourceVersion when it is newer than every
    /// earlier write (replaying a recorded history), else the next one.
    KeepIfNewer,
}

/// One request the server received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRecord {
    /// HTTP method.
    pub method: String,
    /// URL path.
    pub path: String,
    /// Raw query string (`""` when none).
    pub query: String,
    /// The `Authorization` header (`""` when none).
    pub authorization: String,
}

/// One `pods/eviction` request and its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct EvictionRecord {
    /// The pod's namespace.
    pub namespace: String,
    /// The pod's name.
    pub name: String,
    /// The Eviction body as sent.
    pub body: Value,
    /// HTTP status answered (201, 404, 429, 500).
    pub code: u16,
    /// `dryRun=All` was asked: nothing was deleted.
    pub dry_run: bool,
}

/// A list snapshot served page by page through continue tokens.
#[derive(Debug, Clone)]
pub struct ListSnapshot {
    /// The list's resourceVersion.
    pub rv: u64,
    /// Remaining items.
    pub items: Vec<Value>,
}

/// Storage key: (storage, namespace, name).
pub type Key = (&'static str, String, String);

/// Everything behind the server's lock.
#[derive(Debug)]
pub struct State {
    /// The newest resourceVersion handed out.
    pub rv: u64,
    /// Current objects, as written.
    pub objects: BTreeMap<Key, Value>,
    /// Changes since `oldest_rv`.
    pub history: VecDeque<Arc<HistoryEntry>>,
    /// Watches and continue tokens older than this get 410 Gone.
    pub oldest_rv: u64,
    next_uid: u64,
    /// Injected faults.
    pub faults: Faults,
    /// Every request received.
    pub requests: Vec<RequestRecord>,
    /// Every eviction request.
    pub evictions: Vec<EvictionRecord>,
    /// Open list snapshots by id.
    pub snapshots: HashMap<u64, ListSnapshot>,
    /// Next snapshot id.
    pub next_snapshot: u64,
    /// Where changes are broadcast to open watches.
    pub changes: broadcast::Sender<Arc<HistoryEntry>>,
    /// What the fake's metrics-server says (`metrics.k8s.io`).
    pub metrics: super::metrics::Metrics,
}

/// The resourceVersion the server starts at (a cluster with a past).
pub const FIRST_RV: u64 = 1000;

fn meta(object: &Value, field: &str) -> String {
    object.pointer(&format!("/metadata/{field}")).and_then(Value::as_str).unwrap_or("").to_string()
}

fn set_meta(object: &mut Value, field: &str, value: Value) {
    if let Some(m) = object.as_object_mut() {
        let meta = m.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(field.to_string(), value);
        }
    }
}

/// A view of `object` (as written) through resource `rid`.
pub fn view(rid: ResourceId, object: &Value) -> Value {
    let r = &SERVED[rid];
    if r.storage == "events" {
        event_views::convert(object, &r.api_version())
    } else {
        object.clone()
    }
}

impl State {
    /// An empty cluster at [`FIRST_RV`].
    pub fn new() -> State {
        let (changes, _) = broadcast::channel(1 << 16);
        State {
            rv: FIRST_RV,
            objects: BTreeMap::new(),
            history: VecDeque::new(),
            oldest_rv: FIRST_RV,
            next_uid: 1,
            faults: Faults::default(),
            requests: Vec::new(),
            evictions: Vec::new(),
            snapshots: HashMap::new(),
            next_snapshot: 1,
            changes,
            metrics: super::metrics::Metrics::default(),
        }
    }

    fn stamp(&mut self, object: &Value, stamp: Stamp) -> u64 {
        let own = meta(object, "resourceVersion").parse::<u64>().ok();
        match (stamp, own) {
            (Stamp::KeepIfNewer, Some(v)) if v > self.rv => self.rv = v,
            _ => self.rv += 1,
        }
        self.rv
    }

    fn key_of(&self, rid: ResourceId, object: &Value) -> Result<Key, ApiError> {
        let r = &SERVED[rid];
        let name = meta(object, "name");
        if name.is_empty() {
            return Err(ApiError::bad_request(format!("{}: metadata.name: Required value", r.kind)));
        }
        let ns = if r.namespaced { meta(object, "namespace") } else { String::new() };
        if r.namespaced && ns.is_empty() {
            return Err(ApiError::bad_request(format!("{} {name}: metadata.namespace: Required value", r.kind)));
        }
        Ok((r.storage, ns, name))
    }

    fn record(&mut self, storage: &'static str, namespace: String, event: EventType, object: Value) {
        let entry = Arc::new(HistoryEntry { rv: self.rv, storage, namespace, event, object });
        self.history.push_back(entry.clone());
        // No receivers is fine: nobody is watching.
        let _ = self.changes.send(entry);
    }

    /// Creates an object written through `rid` (ADDED). Fills in uid and
    /// creationTimestamp when missing, and `kind` / `apiVersion`.
    ///
    /// # Errors
    /// 409 AlreadyExists; 400 without name or namespace.
    pub fn create(&mut self, rid: ResourceId, mut object: Value, stamp: Stamp) -> Result<Value, ApiError> {
        let r = &SERVED[rid];
        if let Some(m) = object.as_object_mut() {
            m.insert("kind".into(), Value::String(r.kind.into()));
            m.insert("apiVersion".into(), Value::String(r.api_version()));
        } else {
            return Err(ApiError::bad_request("the body is not an object"));
        }
        let key = self.key_of(rid, &object)?;
        if self.objects.contains_key(&key) {
            return Err(ApiError::already_exists(r.plural, r.group, &key.2));
        }
        if meta(&object, "uid").is_empty() {
            let uid = format!("00000000-0000-4000-8000-{:012x}", self.next_uid);
            self.next_uid += 1;
            set_meta(&mut object, "uid", Value::String(uid));
        }
        if meta(&object, "creationTimestamp").is_empty() {
            let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
            set_meta(&mut object, "creationTimestamp", Value::String(now));
        }
        let rv = self.stamp(&object, stamp);
        set_meta(&mut object, "resourceVersion", Value::String(rv.to_string()));
        self.objects.insert(key.clone(), object.clone());
        self.record(key.0, key.1, EventType::Added, object.clone());
        Ok(view(rid, &object))
    }

    /// Replaces an object (MODIFIED). With `check_rv`, a body whose
    /// resourceVersion is set and differs from the stored one is a conflict.
    ///
    /// # Errors
    /// 404 NotFound; 409 Conflict.
    pub fn update(
        &mut self,
        rid: ResourceId,
        mut object: Value,
        stamp: Stamp,
        check_rv: bool,
    ) -> Result<Value, ApiError> {
        let r = &SERVED[rid];
        if let Some(m) = object.as_object_mut() {
            m.insert("kind".into(), Value::String(r.kind.into()));
            m.insert("apiVersion".into(), Value::String(r.api_version()));
        } else {
            return Err(ApiError::bad_request("the body is not an object"));
        }
        let key = self.key_of(rid, &object)?;
        let Some(old) = self.objects.get(&key) else {
            return Err(ApiError::not_found(r.plural, r.group, &key.2));
        };
        let sent_rv = meta(&object, "resourceVersion");
        if check_rv && !sent_rv.is_empty() && sent_rv != meta(old, "resourceVersion") {
            return Err(ApiError::conflict(r.plural, r.group, &key.2));
        }
        for field in ["uid", "creationTimestamp"] {
            if meta(&object, field).is_empty() {
                let v = Value::String(meta(old, field));
                set_meta(&mut object, field, v);
            }
        }
        let rv = self.stamp(&object, stamp);
        set_meta(&mut object, "resourceVersion", Value::String(rv.to_string()));
        self.objects.insert(key.clone(), object.clone());
        self.record(key.0, key.1, EventType::Modified, object.clone());
        Ok(view(rid, &object))
    }

    /// Deletes an object (DELETED carrying its last state, stamped with the
    /// deletion's resourceVersion). `last_state` replaces the stored state
    /// when given (a recorded DELETED version).
    ///
    /// # Errors
    /// 404 NotFound.
    pub fn delete(
        &mut self,
        rid: ResourceId,
        namespace: &str,
        name: &str,
        last_state: Option<Value>,
        stamp: Stamp,
    ) -> Result<Value, ApiError> {
        let r = &SERVED[rid];
        let ns = if r.namespaced { namespace.to_string() } else { String::new() };
        let key: Key = (r.storage, ns, name.to_string());
        let Some(stored) = self.objects.remove(&key) else {
            return Err(ApiError::not_found(r.plural, r.group, name));
        };
        let mut object = match last_state {
            Some(mut o) => {
                if let Some(m) = o.as_object_mut() {
                    m.insert("kind".into(), Value::String(r.kind.into()));
                    m.insert("apiVersion".into(), Value::String(r.api_version()));
                }
                o
            }
            None => stored,
        };
        let rv = self.stamp(&object, stamp);
        set_meta(&mut object, "resourceVersion", Value::String(rv.to_string()));
        self.record(key.0, key.1, EventType::Deleted, object.clone());
        Ok(view(rid, &object))
    }

    /// One object through `rid`.
    pub fn get(&self, rid: ResourceId, namespace: &str, name: &str) -> Option<Value> {
        let r = &SERVED[rid];
        let ns = if r.namespaced { namespace.to_string() } else { String::new() };
        self.objects.get(&(r.storage, ns, name.to_string())).map(|o| view(rid, o))
    }

    /// Every object of `rid` (in `namespace` when given), in key order.
    pub fn list(&self, rid: ResourceId, namespace: Option<&str>) -> Vec<Value> {
        let storage = SERVED[rid].storage;
        self.objects
            .iter()
            .filter(|((s, ns, _), _)| *s == storage && namespace.is_none_or(|n| n == ns))
            .map(|(_, o)| view(rid, o))
            .collect()
    }

    /// Forgets every change up to now: watches and continue tokens from an
    /// older resourceVersion get 410 Gone.
    pub fn compact(&mut self) {
        self.oldest_rv = self.rv;
        self.history.clear();
        self.snapshots.retain(|_, s| s.rv >= self.rv);
    }
}

impl Default for State {
    fn default() -> Self {
        State::new()
    }
}
