//! Watches (`?watch=1`): chunked JSON lines, one event each. From
//! `resourceVersion` N the history after N is replayed, then live changes
//! follow; without one (or "0", or with `sendInitialEvents=true`) every
//! current object comes first as ADDED (then, for `sendInitialEvents`, a
//! BOOKMARK annotated `k8s.io/initial-events-end`). A resourceVersion older
//! than the compaction point gets one ERROR event with a 410 `Expired`
//! Status (HTTP 200, as the apiserver's watch cache answers). BOOKMARKs come
//! every bookmark interval and at the end of `timeoutSeconds`. `drop_watches`
//! aborts the connection mid-stream.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};

use super::http::{error, Shared};
use super::resources::{ResourceId, SERVED};
use super::selectors::Selector;
use super::state::view;
use super::status::ApiError;

type Chunk = Result<Vec<u8>, std::io::Error>;

fn line(event: &str, object: &Value) -> Vec<u8> {
    let mut bytes = json!({"type": event, "object": object}).to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

fn bookmark(rid: ResourceId, rv: u64, initial_end: bool) -> Vec<u8> {
    let r = &SERVED[rid];
    let mut metadata = json!({"resourceVersion": rv.to_string(), "creationTimestamp": null});
    if initial_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    line("BOOKMARK", &json!({"kind": r.kind, "apiVersion": r.api_version(), "metadata": metadata}))
}

/// The response streaming `rx`'s chunks (each line with `rewrites` done).
fn streaming(rx: mpsc::Receiver<Chunk>, rewrites: Vec<(String, String)>) -> Response {
    let rewrite = move |chunk: Chunk| {
        chunk.map(|bytes| match std::str::from_utf8(&bytes) {
            Ok(text) if !rewrites.is_empty() => {
                rewrites.iter().fold(text.to_string(), |text, (from, to)| text.replace(from, to)).into_bytes()
            }
            _ => bytes,
        })
    };
    let stream = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|c| (c, rx)) });
    let stream = futures::StreamExt::map(stream, rewrite);
    Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .body(Body::from_stream(stream))
        .unwrap_or_default()
}

/// Starts a watch of `rid` in `namespace`.
pub fn watch(
    shared: Arc<Shared>,
    rid: ResourceId,
    namespace: Option<String>,
    query: &HashMap<String, String>,
) -> Response {
    let selector = match Selector::parse(
        query.get("labelSelector").map(String::as_str),
        query.get("fieldSelector").map(String::as_str),
    ) {
        Ok(s) => s,
        Err(e) => return error(&e),
    };
    let bookmarks = query.get("allowWatchBookmarks").is_some_and(|b| b == "true" || b == "1");
    let initial_events = query.get("sendInitialEvents").is_some_and(|b| b == "true");
    let timeout = query.get("timeoutSeconds").and_then(|t| t.parse::<u64>().ok()).map(Duration::from_secs);
    let requested = query.get("resourceVersion").cloned().unwrap_or_default();
    let storage = SERVED[rid].storage;
    let ns_matches = move |ns: &str| namespace.as_deref().is_none_or(|n| n == ns);

    let (tx, rx) = mpsc::channel::<Chunk>(1024);
    let mut backlog: Vec<Vec<u8>> = Vec::new();
    let (changes, start_rv, interval) = {
        let mut st = shared.lock();
        let expired = if st.faults.expire_watches > 0 {
            st.faults.expire_watches -= 1;
            Some(ApiError::too_old(requested.parse().unwrap_or(0), st.rv))
        } else {
            None
        };
        let from = match requested.as_str() {
            "" | "0" => None,
            rv => match rv.parse::<u64>() {
                Ok(v) => Some(v),
                Err(_) => return error(&ApiError::bad_request(format!("invalid resource version: {rv:?}"))),
            },
        };
        let expired =
            expired.or_else(|| from.filter(|v| *v < st.oldest_rv).map(|v| ApiError::too_old(v, st.oldest_rv)));
        if let Some(e) = expired {
            let _ = tx.try_send(Ok(line("ERROR", &e.status())));
            return streaming(rx, Vec::new());
        }
        let current = |st: &super::state::State| -> Vec<Vec<u8>> {
            st.list(rid, None)
                .into_iter()
                .filter(|o| ns_matches(o.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("")))
                .filter(|o| selector.matches(o))
                .map(|o| line("ADDED", &o))
                .collect()
        };
        match from {
            Some(v) if !initial_events => {
                for e in st.history.iter().filter(|e| e.rv > v && e.storage == storage && ns_matches(&e.namespace)) {
                    let o = view(rid, &e.object);
                    if selector.matches(&o) {
                        backlog.push(line(e.event.as_str(), &o));
                    }
                }
            }
            _ => backlog.extend(current(&st)),
        }
        if initial_events {
            backlog.push(bookmark(rid, st.rv, true));
        }
        (st.changes.subscribe(), st.rv, st.faults.bookmark_interval)
    };
    shared.open_watches.fetch_add(1, Ordering::SeqCst);
    let rewrites = shared.lock().faults.list_rewrites.clone();
    let drops = shared.drops.subscribe();
    tokio::spawn(run(
        shared,
        rid,
        tx,
        backlog,
        changes,
        drops,
        start_rv,
        interval,
        bookmarks,
        timeout,
        selector,
        Box::new(ns_matches),
    ));
    streaming(rx, rewrites)
}

#[allow(clippy::too_many_arguments)]
async fn run(
    shared: Arc<Shared>,
    rid: ResourceId,
    tx: mpsc::Sender<Chunk>,
    backlog: Vec<Vec<u8>>,
    mut changes: broadcast::Receiver<Arc<super::state::HistoryEntry>>,
    mut drops: tokio::sync::watch::Receiver<u64>,
    start_rv: u64,
    interval: Duration,
    bookmarks: bool,
    timeout: Option<Duration>,
    selector: Selector,
    ns_matches: Box<dyn Fn(&str) -> bool + Send>,
) {
    let storage = SERVED[rid].storage;
    let mut progress = start_rv;
    let deadline = tokio::time::sleep(timeout.unwrap_or(Duration::from_secs(3600)));
    tokio::pin!(deadline);
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
    let mut alive = true;
    for chunk in backlog {
        if tx.send(Ok(chunk)).await.is_err() {
            alive = false;
            break;
        }
    }
    while alive {
        tokio::select! {
            change = changes.recv() => match change {
                Ok(e) => {
                    progress = progress.max(e.rv);
                    if e.storage == storage && ns_matches(&e.namespace) {
                        let o = view(rid, &e.object);
                        if selector.matches(&o) {
                            alive = tx.send(Ok(line(e.event.as_str(), &o))).await.is_ok();
                        }
                    }
                }
                // Too slow a reader: end the watch, the client resumes.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let _ = tx.send(Err(std::io::Error::other("watch lagged"))).await;
                    alive = false;
                }
                Err(broadcast::error::RecvError::Closed) => alive = false,
            },
            _ = ticker.tick(), if bookmarks => {
                alive = tx.send(Ok(bookmark(rid, progress, false))).await.is_ok();
            }
            _ = &mut deadline => {
                if bookmarks {
                    let _ = tx.send(Ok(bookmark(rid, progress, false))).await;
                }
                alive = false;
            }
            _ = drops.changed() => {
                let _ = tx.send(Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "watch dropped by fault injection"))).await;
                alive = false;
            }
            _ = tx.closed() => alive = false,
        }
    }
    shared.open_watches.fetch_sub(1, Ordering::SeqCst);
}
