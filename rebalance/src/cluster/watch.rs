//! One watch request (`?watch=1`) on any [`ResourceKind`] as a stream of
//! [`WatchItem`]s with raw `serde_json::Value` objects. It ends when the
//! server closes the response (timeout, dropped connection): the caller
//! resumes from the last resourceVersion it saw, and lists again when the
//! server answers 410 Gone ([`ClusterError::is_gone`]). Shared by
//! `kdrift record` and the rebalance executor (which watches evicted pods go).

use futures::stream::{BoxStream, StreamExt};
use kube::api::WatchParams;
use kube::core::WatchEvent;
use kube::Client;
use serde_json::Value;

use super::error::ClusterError;
use super::resource::{ResourceKind, Scope};
use crate::strict_json::{duplicate_message, NotedValue};

/// Where and how long to watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchOptions {
    /// Start after this resourceVersion (a list's, or the last event's).
    pub resource_version: String,
    /// Ask the server to end the watch after this many seconds (the server
    /// may end it earlier); `None`: the server's default.
    pub timeout_seconds: Option<u32>,
    /// Ask for BOOKMARK events (`allowWatchBookmarks=true`).
    pub bookmarks: bool,
}

/// One event of a watch, objects completed with `kind` and `apiVersion`.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchItem {
    /// ADDED: a new object (or one the watch had not seen).
    Added(Value),
    /// MODIFIED: a new version.
    Modified(Value),
    /// DELETED: the object's last state before it was removed.
    Deleted(Value),
    /// ADDED, MODIFIED or DELETED of an object holding a key twice at any
    /// depth (issue 34): an input error, not to be stored.
    Refused {
        /// The object's resourceVersion (to resume from).
        resource_version: String,
        /// `namespace/name: the key … appears twice … (at path; …)`.
        message: String,
    },
    /// BOOKMARK: nothing changed up to this resourceVersion.
    Bookmark {
        /// The resourceVersion to resume from.
        resource_version: String,
    },
}

impl WatchItem {
    /// The object's `metadata.resourceVersion`, or the bookmark's.
    pub fn resource_version(&self) -> Option<&str> {
        match self {
            WatchItem::Added(o) | WatchItem::Modified(o) | WatchItem::Deleted(o) => {
                o.pointer("/metadata/resourceVersion").and_then(Value::as_str)
            }
            WatchItem::Bookmark { resource_version } | WatchItem::Refused { resource_version, .. } => {
                Some(resource_version)
            }
        }
    }
}

/// Starts a watch of `resource` in `scope`.
///
/// # Errors
/// Starting: [`ClusterError::Api`] (410 Gone when the resourceVersion is too
/// old, 403, 404), [`ClusterError::Transport`]. In the stream: an ERROR
/// event becomes [`ClusterError::Api`] (the real apiserver reports a too old
/// resourceVersion this way, as 410 `Expired`), a line that is not a watch
/// event [`ClusterError::Decode`]; the stream may go on after either.
pub async fn watch(
    client: &Client,
    resource: &ResourceKind,
    scope: &Scope,
    options: &WatchOptions,
) -> Result<BoxStream<'static, Result<WatchItem, ClusterError>>, ClusterError> {
    let name = resource.name();
    let path = resource.collection_path(scope);
    let mut params = WatchParams { bookmarks: options.bookmarks, ..WatchParams::default() };
    if let Some(t) = options.timeout_seconds {
        params = params.timeout(t);
    }
    let request = kube::core::Request::new(path.clone())
        .watch(&params, &options.resource_version)
        .map_err(|source| ClusterError::Request { resource: name.clone(), path: path.clone(), source })?;
    let events =
        client.request_events::<NotedValue>(request).await.map_err(|e| ClusterError::from_kube(&name, &path, e))?;
    let api_version = resource.api_version();
    let kind = resource.kind;
    let stream = events.map(move |event| {
        let complete = |mut o: Value| {
            if let Value::Object(m) = &mut o {
                m.entry("kind").or_insert_with(|| Value::String(kind.to_string()));
                m.entry("apiVersion").or_insert_with(|| Value::String(api_version.clone()));
            }
            o
        };
        match event {
            Ok(WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o)) if !o.duplicates.is_empty() => {
                Ok(refused(o))
            }
            Ok(WatchEvent::Added(o)) => Ok(WatchItem::Added(complete(o.value))),
            Ok(WatchEvent::Modified(o)) => Ok(WatchItem::Modified(complete(o.value))),
            Ok(WatchEvent::Deleted(o)) => Ok(WatchItem::Deleted(complete(o.value))),
            Ok(WatchEvent::Bookmark(b)) => Ok(WatchItem::Bookmark { resource_version: b.metadata.resource_version }),
            Ok(WatchEvent::Error(status)) => Err(ClusterError::status(&name, &path, &status)),
            Err(e) => Err(ClusterError::from_kube(&name, &path, e)),
        }
    });
    Ok(stream.boxed())
}
/// The [`WatchItem::Refused`] of an object holding a key twice.
fn refused(o: NotedValue) -> WatchItem {
    let text = |pointer: &str| o.value.pointer(pointer).and_then(Value::as_str).unwrap_or("").to_string();
    let (namespace, name) = (text("/metadata/namespace"), text("/metadata/name"));
    let first = &o.duplicates[0];
    WatchItem::Refused {
        resource_version: text("/metadata/resourceVersion"),
        message: format!(
            "{namespace}/{name}: {}; this version is not stored",
            duplicate_message(&first.key, &first.path)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 34 C: a key twice in a watch event's object is found whichever
    /// of the event's keys comes first (`object` before `type` is buffered).
    #[test]
    fn a_key_twice_in_a_watch_events_object_refuses_that_version() {
        for line in [
            r#"{"type":"MODIFIED","object":{"metadata":{"name":"web-1","namespace":"media","resourceVersion":"42","labels":{"app":"a","app":"b"}}}}"#,
            r#"{"object":{"metadata":{"name":"web-1","namespace":"media","resourceVersion":"42","labels":{"app":"a","app":"b"}}},"type":"MODIFIED"}"#,
        ] {
            let event: WatchEvent<NotedValue> = serde_json::from_str(line).expect("event");
            let WatchEvent::Modified(o) = event else { panic!("{line}") };
            assert_eq!(
                refused(o),
                WatchItem::Refused {
                    resource_version: "42".into(),
                    message: "media/web-1: the key \"app\" appears twice in one object (at metadata.labels.app; which \
                              value is meant is unknown); this version is not stored"
                        .into()
                }
            );
        }
        let event: WatchEvent<NotedValue> =
            serde_json::from_str(r#"{"type":"ADDED","object":{"metadata":{"name":"ok"}}}"#).expect("event");
        assert!(matches!(event, WatchEvent::Added(o) if o.duplicates.is_empty()));
    }
}
