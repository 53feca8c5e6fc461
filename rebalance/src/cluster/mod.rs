//! The Kubernetes API edge of kdrift, shared by every command that talks to a
//! live cluster: `kdrift ingest api` (one-shot snapshot), `kdrift record`
//! (list + watch recorder), and the rebalance executor / live
//! `kdrift rebalance plan`. It is the only I/O in this crate; the rest of
//! `kdrift-rebalance` stays pure.
//!
//! - [`connect`]: [`ClusterOptions`] → [`kube::Client`], the way kubectl picks
//!   a cluster (`--kubeconfig`, `KUBECONFIG`, `~/.kube/config`, `--context`,
//!   in-cluster service account);
//! - [`resource`]: the API resources kdrift reads ([`ResourceKind`],
//!   [`HISTORY_RESOURCES`]) and their URL paths;
//! - [`answer`]: the server's answers read under [`Deadlines`] (a server
//!   that does not answer is a [`ClusterError::Timeout`]);
//! - [`page`]: a list page decoded item by item (a bad item is a
//!   [`BadItem`], the others are kept);
//! - [`list`]: paginated lists (`limit`/`continue`) of any resource as raw
//!   `serde_json::Value` items plus the list's `resourceVersion`;
//! - [`watch`]: one raw watch request as a stream of [`WatchItem`]s;
//! - [`error`]: [`ClusterError`], naming the resource, the URL and the
//!   server's message (redacted);
//! - [`redirect`]: every client's 3xx answers refused as [`ClusterError::Redirected`]
//!   naming the status and the `Location`'s origin (never followed);
//! - [`exec`]: kubeconfig `exec` credential plugins, run by kdrift so that
//!   the token they issue is held for redaction, renewed before it expires;
//! - [`url_check`]: server and proxy URLs refused before any request (a
//!   port that is no port, a `/` before the `@`), shown with the password masked;
//! - [`credentials`]: the resolved configuration's credentials, held for
//!   redaction ([`crate::redact::held`]).

pub mod answer;
pub mod capped_file;
pub mod connect;
pub mod credentials;
pub mod error;
pub mod exec;
pub mod list;
pub mod page;
pub mod redirect;
pub mod resource;
pub mod url_check;
pub mod watch;

#[cfg(test)]
mod tls_tests;

pub use answer::{
    Deadlines, DEFAULT_REQUEST_TIMEOUT, ERROR_BODY_LIMIT, LIST_BOUND_FACTOR, MAX_PAGE_BYTES, PAGE_BOUND_FACTOR,
};
pub use connect::{ClusterOptions, Connected};
pub use error::{BadEventKind, ClusterError};
pub use list::{
    collect, list_all, BadItem, ListPager, ObjectList, Page, DEFAULT_PAGE_SIZE, MAX_EMPTY_PAGES, MAX_PAGES,
};
pub use resource::{ResourceKind, Scope, HISTORY_RESOURCES, NODE_METRICS, POD_METRICS};
pub use watch::{parsed_event_limit, MAX_WATCH_EVENT_BYTES, PARSED_BYTES_PER_EVENT_BYTE};
pub use watch::{watch, WatchItem, WatchOptions};
