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
//! - 403 / 404 → the resource is reported unavailable and the task ends;
//! - a bad list item or watch line (issue 34) is an item error
//!   ([`Msg::ItemError`]): the list keeps the page's other items (a bad
//!   item whose name is readable counts as listed; when one is not, the
//!   re-list records no deletion), the watch goes on with the next line;
//!   a listed item missing `metadata.name` (or `metadata.namespace`, of a
//!   namespaced kind) is such a bad item, not stored, and the known object
//!   of its uid counts as listed (break-it 43 N6: it was recorded DELETED);
//! - a server silent for longer than [`WatchSettings::request_timeout`]
//!   (a list, a watch's answer) or the watch's timeoutSeconds plus it (a
//!   watch's next event) is a problem, retried with backoff; the first
//!   event (or normal end) of a watch after a failure says it is watched
//!   again ([`Msg::Resumed`]);
//! - each page of the first list is said ([`Msg::Listing`], progress), and
//!   watch restarts and 410s are counted in the recorder's
//!   [`RecorderStats`] as they happen.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use kdrift_rebalance::{
    watch, BadEventKind, ClusterError, Deadlines, ListPager, ResourceKind, Scope, WatchItem, WatchOptions,
};
use kube::Client;
use serde_json::Value;
use tokio::sync::mpsc;

use super::budget::{Budget, Held};
use super::known::Known;
use super::stats::RecorderStats;
use crate::store::Change;

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
        /// Its share of the bytes in flight, given back once it is staged.
        held: Held,
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
    /// A page of the resource's first list was read (progress).
    Listing {
        /// The resource.
        resource: ResourceKind,
        /// Items listed so far (skipped ones included).
        items: u64,
        /// Pages read so far.
        pages: u32,
        /// The list ended.
        done: bool,
    },
    /// A list item or watch line that was skipped: an error of the run.
    ItemError {
        /// The resource.
        resource: ResourceKind,
        /// The kind of bad watch line; `None`: a list item.
        kind: Option<BadEventKind>,
        /// The error, naming the resource, the URL and the item or line.
        message: String,
    },
    /// A watch delivers again (an event, or its normal end) after a failure.
    Resumed {
        /// The resource.
        resource: ResourceKind,
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

/// How many 410s in a row, each before the watch delivered an event, the
/// recorder meets before it says so (a warning on stderr).
pub const GONE_AT_ONCE_SAID: u32 = 3;

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
    /// The longest wait for a list's (or a watch's) answer and between two
    /// pieces of a list; a watch waits its timeoutSeconds plus this for
    /// its next bytes.
    pub request_timeout: Duration,
    /// Most bytes of one list page read (`--max-page-bytes`;
    /// [`kdrift_rebalance::MAX_PAGE_BYTES`], 256 MiB).
    pub max_page_bytes: usize,
    /// Most bytes of one watch event read
    /// ([`kdrift_rebalance::MAX_WATCH_EVENT_BYTES`], 64 MiB, the NDJSON line
    /// cap): a longer event is an error of the run naming the resource and
    /// the limit, and the watch goes on.
    pub max_event_bytes: usize,
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
    /// The server as messages name it (the cluster URL).
    pub server: String,
    /// The last list or watch failed, and no watch has delivered since.
    pub failing: bool,
    /// Where watch restarts and 410s are counted.
    pub stats: Arc<RecorderStats>,
    /// The bytes of objects in flight to the recorder, shared by every watcher.
    pub budget: Budget,
}

fn key_of(o: &Value) -> (String, String) {
    let s = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
    (s("/metadata/namespace"), s("/metadata/name"))
}

/// What an object of `resource` keyed `key` (namespace, name) lacks to
/// be told apart: `metadata.name`, or `metadata.namespace` for a
/// namespaced kind; `None` when it has both.
fn unidentified(resource: &ResourceKind, key: &(String, String)) -> Option<&'static str> {
    if key.1.is_empty() {
        Some("metadata.name")
    } else if resource.namespaced && key.0.is_empty() {
        Some("metadata.namespace")
    } else {
        None
    }
}

fn rv_uid(o: &Value) -> (String, String) {
    let s = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
    (s("/metadata/resourceVersion"), s("/metadata/uid"))
}

impl Watcher {
    async fn send(&self, msg: Msg) -> bool {
        self.tx.send(msg).await.is_ok()
    }

    /// Sends an object version once its bytes fit in the [`Budget`].
    async fn observed(&self, change: Change, object: Value) -> bool {
        let held = self.budget.hold(&object).await;
        self.send(Msg::Observed { resource: self.resource, change, object, held }).await
    }

    fn deadlines(&self) -> Deadlines {
        Deadlines::new(&self.server, self.settings.request_timeout)
    }

    /// Runs until the resource is unavailable or the recorder stops. A
    /// watch answered 410 Gone before any event (the list's own snapshot
    /// already too old, again and again: a broken server or proxy) is
    /// listed again after the backoff, said once at the
    /// [`GONE_AT_ONCE_SAID`]th in a row; one that moved on first lists
    /// again at once (client-go's reflector).
    pub async fn run(mut self) {
        let mut backoff = self.settings.backoff_initial;
        let mut relist = false;
        // 410s in a row that came before the watch delivered anything.
        let mut gone_at_once = 0u32;
        'list: loop {
            let mut rv = match self.list(relist).await {
                Ok(Some(rv)) => rv,
                Ok(None) => return,
                Err(error) => {
                    let fatal = error.is_unavailable_resource();
                    self.failing = true;
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
                let listed_rv = rv.clone();
                let end = self.watch_once(&mut rv).await;
                match &end {
                    WatchEnd::Gone => self.stats.resource(&self.resource, |r| r.gone += 1),
                    WatchEnd::Closed { .. } | WatchEnd::Failed(_) => {
                        self.stats.resource(&self.resource, |r| r.watch_restarts += 1);
                    }
                    WatchEnd::Stopped => {}
                }
                match end {
                    // A 410 before any event moved the watch on: the list's
                    // own snapshot is already too old (a server or proxy
                    // answering 410 to every watch: break-it 44 R1, 2,848
                    // lists in 10 s). Listed again after the backoff, said.
                    WatchEnd::Gone if rv == listed_rv => {
                        gone_at_once += 1;
                        if gone_at_once == GONE_AT_ONCE_SAID {
                            tracing::warn!(
                                resource = %self.resource.name(),
                                "every watch since the last {GONE_AT_ONCE_SAID} lists was answered 410 Gone before \
                                 any event: listing again with backoff (up to {} s) until a watch holds",
                                self.settings.backoff_max.as_secs()
                            );
                        }
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(self.settings.backoff_max);
                        continue 'list;
                    }
                    WatchEnd::Gone => {
                        gone_at_once = 0;
                        continue 'list;
                    }
                    WatchEnd::Stopped => return,
                    WatchEnd::Closed { delivered: true } => {
                        backoff = self.settings.backoff_initial;
                        gone_at_once = 0;
                    }
                    WatchEnd::Closed { delivered: false } => {
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(self.settings.backoff_max);
                    }
                    WatchEnd::Failed(error) => {
                        let fatal = error.is_unavailable_resource();
                        self.failing = true;
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
    /// the recorder stopped). A 410 on a continue token restarts the list
    /// whole in one request (no `limit`), as client-go's pager does; a 410
    /// then is an error.
    async fn list(&mut self, relist: bool) -> Result<Option<String>, ClusterError> {
        let mut page_size = self.settings.page_size;
        'again: loop {
            let mut pager = ListPager::new(self.client.clone(), &self.resource, &self.scope, page_size)
                .with_deadlines(self.deadlines())
                .with_max_page_bytes(self.settings.max_page_bytes);
            let mut seen: HashSet<(String, String)> = HashSet::new();
            // A bad item whose name cannot be read may be any known object.
            let mut unnamed_bad = false;
            // The uids of listed items missing their name (break-it 43 N6):
            // the known objects of these uids are listed, not deleted.
            let mut uids_seen: HashSet<String> = HashSet::new();
            let mut list_rv = String::new();
            let (mut items, mut pages) = (0u64, 0u32);
            loop {
                let page = match pager.next_page().await {
                    Ok(Some(page)) => page,
                    Ok(None) => break,
                    Err(e) if e.is_gone() && page_size != 0 => {
                        self.stats.resource(&self.resource, |r| r.gone += 1);
                        page_size = 0;
                        continue 'again;
                    }
                    Err(e) => return Err(e),
                };
                list_rv = page.resource_version;
                items += (page.items.len() + page.bad.len()) as u64;
                pages = page.number;
                if !relist && !self.send(Msg::Listing { resource: self.resource, items, pages, done: false }).await {
                    return Ok(None);
                }
                for bad in &page.bad {
                    match &bad.key {
                        // No namespace read (break-it 31 F10): it may be any
                        // known object of that name; none is taken for deleted.
                        Some((namespace, name)) if namespace.is_empty() => {
                            seen.extend(self.known.keys().filter(|k| k.1 == *name).cloned());
                            seen.insert((String::new(), name.clone()));
                        }
                        Some(key) => _ = seen.insert(key.clone()),
                        None => unnamed_bad = true,
                    }
                }
                // Each skipped item, then what was odd about the page.
                let problems = page.bad.iter().map(ToString::to_string).chain(page.odd);
                for problem in problems {
                    let message = format!(
                        "{}: page {} of {}{}, {problem}",
                        self.resource.name(),
                        page.number,
                        self.server,
                        self.resource.collection_path(&self.scope)
                    );
                    if !self.send(Msg::ItemError { resource: self.resource, kind: None, message }).await {
                        return Ok(None);
                    }
                }
                let number = page.number;
                for object in page.items {
                    let key = key_of(&object);
                    let (rv, uid) = rv_uid(&object);
                    if let Some(missing) = unidentified(&self.resource, &key) {
                        // Break-it 43 N6: stored under no name, the known
                        // object was taken for deleted. Like a bad item: said,
                        // not stored, and whichever object it is stays alive.
                        let (namespace, name) = &key;
                        if !uid.is_empty() {
                            uids_seen.insert(uid.clone());
                        } else if !name.is_empty() {
                            seen.extend(self.known.keys().filter(|k| k.1 == *name).cloned());
                        } else {
                            unnamed_bad = true;
                        }
                        let which = match (namespace.is_empty(), name.is_empty(), uid.is_empty()) {
                            (_, false, _) => format!("the item named {name:?}"),
                            (false, true, false) => format!("the item of uid {uid} in namespace {namespace}"),
                            (true, true, false) => format!("the item of uid {uid}"),
                            (false, true, true) => format!("an item in namespace {namespace} without uid"),
                            (true, true, true) => "an item without uid".to_string(),
                        };
                        let message = format!(
                            "{}: page {number} of {}{}, {which}: {missing} is missing, so the object it is cannot \
                             be told; the item is skipped (not stored), the page's other items are kept, and no \
                             object is taken for deleted for want of it",
                            self.resource.name(),
                            self.server,
                            self.resource.collection_path(&self.scope)
                        );
                        if !self.send(Msg::ItemError { resource: self.resource, kind: None, message }).await {
                            return Ok(None);
                        }
                        continue;
                    }
                    seen.insert(key.clone());
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
                    if !self.observed(Change::Listed, object).await {
                        return Ok(None);
                    }
                }
            }
            let gone: Vec<(String, String)> = if unnamed_bad {
                tracing::info!(
                    resource = %self.resource.name(),
                    "a skipped list item has no readable name: no deletion is recorded from this list"
                );
                Vec::new()
            } else {
                let listed = |k: &(String, String)| {
                    seen.contains(k) || self.known.get(k).is_some_and(|(_, uid)| uids_seen.contains(uid))
                };
                self.known.keys().filter(|k| !listed(k)).cloned().collect()
            };
            for key in gone {
                let uid = self.known.remove(&key).map(|(_, uid)| uid).unwrap_or_default();
                let (namespace, name) = key;
                if !self.send(Msg::Vanished { resource: self.resource, namespace, name, uid }).await {
                    return Ok(None);
                }
            }
            if !relist && !self.send(Msg::Listing { resource: self.resource, items, pages, done: true }).await {
                return Ok(None);
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
            deadlines: self.deadlines(),
            max_event_bytes: self.settings.max_event_bytes,
        };
        let mut stream = match watch(&self.client, &self.resource, &self.scope, &options).await {
            Ok(s) => s,
            Err(e) if e.is_gone() => return WatchEnd::Gone,
            Err(e) => return WatchEnd::Failed(e),
        };
        let mut delivered = false;
        while let Some(item) = stream.next().await {
            // Watching again: the first event after a failure says so (a
            // server that answers the headers and then nothing has not).
            if item.is_ok() && !self.resumed().await {
                return WatchEnd::Stopped;
            }
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
                    let message = format!(
                        "{}: watch of {}{}, {message}",
                        self.resource.name(),
                        self.server,
                        self.resource.collection_path(&self.scope)
                    );
                    if !self.send(Msg::ItemError { resource: self.resource, kind: None, message }).await {
                        return WatchEnd::Stopped;
                    }
                    continue;
                }
                Ok(WatchItem::Added(o)) => (Change::Added, o),
                Ok(WatchItem::Modified(o)) => (Change::Modified, o),
                Ok(WatchItem::Deleted(o)) => (Change::Deleted, o),
                Err(e) if e.is_gone() => return WatchEnd::Gone,
                Err(e @ ClusterError::BadEvent { kind, .. }) => {
                    // One bad line: an error of the run; read on.
                    let msg = Msg::ItemError { resource: self.resource, kind: Some(kind), message: e.to_string() };
                    if !self.send(msg).await {
                        return WatchEnd::Stopped;
                    }
                    continue;
                }
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
            if unidentified(&self.resource, &key).is_some() {
                // Not known under no name: a relist would take it for deleted.
            } else if change == Change::Deleted {
                self.known.remove(&key);
            } else {
                self.known.insert(key, (object_rv.clone(), uid));
            }
            if !object_rv.is_empty() {
                *rv = object_rv;
            }
            if !self.observed(change, object).await {
                return WatchEnd::Stopped;
            }
        }
        // A watch that ends as the server meant it: no longer failing.
        if !self.resumed().await {
            return WatchEnd::Stopped;
        }
        WatchEnd::Closed { delivered }
    }

    /// Sends [`Msg::Resumed`] when the last list or watch failed; false
    /// when the recorder stopped listening.
    async fn resumed(&mut self) -> bool {
        !std::mem::take(&mut self.failing) || self.send(Msg::Resumed { resource: self.resource }).await
    }
}
