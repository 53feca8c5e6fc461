//! One resource's list-then-watch loop, run as its own task. It keeps only
//! (namespace, name) → (resourceVersion, uid) of the objects it believes
//! alive, and sends what it sees to the recorder's batching loop:
//!
//! - a (re-)list sends the objects that are new or changed (unchanged ones
//!   are not re-stored), and reports those no longer listed (or listed with
//!   a new uid: deleted and re-created) as vanished: deleted during a gap;
//! - a watch from the list's resourceVersion sends ADDED / MODIFIED /
//!   DELETED as they come and follows BOOKMARKs;
//! - 410 Gone → list again and reconcile; a watch that ends (server
//!   timeout, dropped connection) resumes from the last resourceVersion,
//!   after an exponential backoff when it delivered nothing;
//! - 403 / 404 → the resource is reported unavailable and the task ends.

use std::collections::HashSet;
use std::time::Duration;

use futures::StreamExt;
use kdrift_rebalance::{watch, ClusterError, ListPager, ResourceKind, Scope, WatchItem, WatchOptions};
use kube::Client;
use serde_json::Value;
use tokio::sync::mpsc;

use super::known::Known;
use crate::record::Change;

/// What a watcher tells the recorder.
#[derive(Debug)]
pub enum Msg {
    /// An object version to store.
    Observed {
        /// Its resource.
        resource: ResourceKind,
        /// LISTED (from a list), ADDED, MODIFIED or DELETED (from a watch).
        change: Change,
        /// The object.
        object: Value,
    },
    /// An object gone while nobody watched: record its last version as DELETED.
    Vanished {
        /// Its resource.
        resource: ResourceKind,
        /// Namespace (`""` for cluster-scoped).
        namespace: String,
        /// Name.
        name: String,
        /// Uid (may be `""`).
        uid: String,
    },
    /// A (re-)list finished: the watcher is in sync at `resource_version`.
    Synced {
        /// The resource.
        resource: ResourceKind,
        /// The list's resourceVersion.
        resource_version: String,
        /// `false` for the first list, `true` after a 410 or a failure.
        relist: bool,
    },
    /// A listed object that is an input error (a key twice in it,
    /// [`kdrift_rebalance::RefusedItem`]): not stored, reported.
    Refused {
        /// Its resource.
        resource: ResourceKind,
        /// `namespace/name: what is wrong`.
        message: String,
    },
    /// Something went wrong; `fatal`: the watcher gave up (403 / 404).
    Problem {
        /// The resource.
        resource: ResourceKind,
        /// The error.
        error: ClusterError,
        /// The watcher ended.
        fatal: bool,
    },
}

/// Backoff and request settings of a watcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchSettings {
    /// Items per list page.
    pub page_size: u32,
    /// `timeoutSeconds` of each watch request.
    pub watch_timeout_seconds: u32,
    /// First wait after a failure.
    pub backoff_initial: Duration,
    /// Longest wait.
    pub backoff_max: Duration,
}

/// How a watch request ended.
enum WatchEnd {
    /// 410 Gone: list again.
    Gone,
    /// The stream ended; `delivered`: it brought at least one event or bookmark.
    Closed { delivered: bool },
    /// It could not start or broke.
    Failed(ClusterError),
    /// The recorder stopped listening.
    Stopped,
}

/// One resource's watcher.
pub struct Watcher {
    /// The client.
    pub client: Client,
    /// The resource.
    pub resource: ResourceKind,
    /// The namespaces.
    pub scope: Scope,
    /// Settings.
    pub settings: WatchSettings,
    /// Objects believed alive.
    pub known: Known,
    /// Where to send.
    pub tx: mpsc::Sender<Msg>,
}

fn key_of(o: &Value) -> (String, String) {
    let s = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
    (s("/metadata/namespace"), s("/metadata/name"))
}

fn rv_uid(o: &Value) -> (String, String) {
    let s = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
    (s("/metadata/resourceVersion"), s("/metadata/uid"))
}

impl Watcher {
    async fn send(&self, msg: Msg) -> bool {
        self.tx.send(msg).await.is_ok()
    }

    /// Runs until the resource is unavailable or the recorder stops.
    pub async fn run(mut self) {
        let mut backoff = self.settings.backoff_initial;
        let mut relist = false;
        'list: loop {
            let mut rv = match self.list(relist).await {
                Ok(Some(rv)) => rv,
                Ok(None) => return,
                Err(error) => {
                    let fatal = error.is_unavailable_resource();
                    if !self.send(Msg::Problem { resource: self.resource, error, fatal }).await || fatal {
                        return;
                    }
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(self.settings.backoff_max);
                    relist = true;
                    continue;
                }
            };
            relist = true;
            loop {
                match self.watch_once(&mut rv).await {
                    WatchEnd::Gone => continue 'list,
                    WatchEnd::Stopped => return,
                    WatchEnd::Closed { delivered: true } => backoff = self.settings.backoff_initial,
                    WatchEnd::Closed { delivered: false } => {
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(self.settings.backoff_max);
                    }
                    WatchEnd::Failed(error) => {
                        let fatal = error.is_unavailable_resource();
                        if !self.send(Msg::Problem { resource: self.resource, error, fatal }).await || fatal {
                            return;
                        }
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(self.settings.backoff_max);
                    }
                }
            }
        }
    }

    /// Lists and reconciles; returns the list's resourceVersion (`None`:
    /// the recorder stopped). A 410 on a continue token restarts the list.
    async fn list(&mut self, relist: bool) -> Result<Option<String>, ClusterError> {
        'again: loop {
            let mut pager = ListPager::new(self.client.clone(), &self.resource, &self.scope, self.settings.page_size);
            let mut seen: HashSet<(String, String)> = HashSet::new();
            let mut list_rv = String::new();
            loop {
                let page = match pager.next_page().await {
                    Ok(Some(page)) => page,
                    Ok(None) => break,
                    Err(e) if e.is_gone() => continue 'again,
                    Err(e) => return Err(e),
                };
                list_rv = page.resource_version;
                let mut refused = page.refused.into_iter().peekable();
                for (i, object) in page.items.into_iter().enumerate() {
                    let key = key_of(&object);
                    let (rv, uid) = rv_uid(&object);
                    seen.insert(key.clone());
                    // Listed (not deleted), but not stored: a key twice in it (issue 34).
                    if let Some(r) = refused.next_if(|r| r.index == i) {
                        let message = format!("{}/{}: {}", key.0, key.1, r.message);
                        if !self.send(Msg::Refused { resource: self.resource, message }).await {
                            return Ok(None);
                        }
                        continue;
                    }
                    match self.known.get(&key) {
                        Some((known_rv, _)) if *known_rv == rv => continue,
                        Some((_, known_uid)) if !known_uid.is_empty() && !uid.is_empty() && *known_uid != uid => {
                            // Deleted and created again while nobody watched.
                            let (namespace, name) = key.clone();
                            let uid = known_uid.clone();
                            if !self.send(Msg::Vanished { resource: self.resource, namespace, name, uid }).await {
                                return Ok(None);
                            }
                        }
                        _ => {}
                    }
                    self.known.insert(key, (rv, uid));
                    let msg = Msg::Observed { resource: self.resource, change: Change::Listed, object };
                    if !self.send(msg).await {
                        return Ok(None);
                    }
                }
            }
            let gone: Vec<(String, String)> = self.known.keys().filter(|k| !seen.contains(*k)).cloned().collect();
            for key in gone {
                let uid = self.known.remove(&key).map(|(_, uid)| uid).unwrap_or_default();
                let (namespace, name) = key;
                if !self.send(Msg::Vanished { resource: self.resource, namespace, name, uid }).await {
                    return Ok(None);
                }
            }
            let synced = Msg::Synced { resource: self.resource, resource_version: list_rv.clone(), relist };
            if !self.send(synced).await {
                return Ok(None);
            }
            return Ok(Some(list_rv));
        }
    }

    /// One watch request from `rv`, which follows what it delivers.
    async fn watch_once(&mut self, rv: &mut String) -> WatchEnd {
        let options = WatchOptions {
            resource_version: rv.clone(),
            timeout_seconds: Some(self.settings.watch_timeout_seconds),
            bookmarks: true,
        };
        let mut stream = match watch(&self.client, &self.resource, &self.scope, &options).await {
            Ok(s) => s,
            Err(e) if e.is_gone() => return WatchEnd::Gone,
            Err(e) => return WatchEnd::Failed(e),
        };
        let mut delivered = false;
        while let Some(item) = stream.next().await {
            let (change, object) = match item {
                Ok(WatchItem::Bookmark { resource_version }) => {
                    *rv = resource_version;
                    delivered = true;
                    continue;
                }
                Ok(WatchItem::Refused { resource_version, message }) => {
                    // A version holding a key twice: its error, then read on after it.
                    if !resource_version.is_empty() {
                        *rv = resource_version;
                    }
                    delivered = true;
                    if !self.send(Msg::Refused { resource: self.resource, message }).await {
                        return WatchEnd::Stopped;
                    }
                    continue;
                }
                Ok(WatchItem::Added(o)) => (Change::Added, o),
                Ok(WatchItem::Modified(o)) => (Change::Modified, o),
                Ok(WatchItem::Deleted(o)) => (Change::Deleted, o),
                Err(e) if e.is_gone() => return WatchEnd::Gone,
                Err(e @ ClusterError::Decode { .. }) => {
                    // One bad line: report it and keep reading.
                    if !self.send(Msg::Problem { resource: self.resource, error: e, fatal: false }).await {
                        return WatchEnd::Stopped;
                    }
                    continue;
                }
                Err(e) => return WatchEnd::Failed(e),
            };
            delivered = true;
            let key = key_of(&object);
            let (object_rv, uid) = rv_uid(&object);
            if change == Change::Deleted {
                self.known.remove(&key);
            } else {
                self.known.insert(key, (object_rv.clone(), uid));
            }
            if !object_rv.is_empty() {
                *rv = object_rv;
            }
            if !self.send(Msg::Observed { resource: self.resource, change, object }).await {
                return WatchEnd::Stopped;
            }
        }
        WatchEnd::Closed { delivered }
    }
}
