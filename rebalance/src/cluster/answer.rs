//! Reading the API server's answers with deadlines (issue 34): a server
//! that accepts the connection and then says nothing must not hold a list
//! or a watch forever. [`Deadlines`] bound the wait for an answer's headers
//! and between two pieces of its body; a wait that runs out is a
//! [`ClusterError::Timeout`] naming the server (as `shown_url` shows it),
//! the resource and what was awaited. Connecting is bounded by kube's own
//! connect timeout (30 s) and, with the headers, by [`Deadlines::idle`].
//! One whole list page is also bounded, by [`Deadlines::page`]
//! ([`PAGE_BOUND_FACTOR`] × the request timeout): a server sending one
//! byte a second never lets the idle bound run out (break-it, issue 34),
//! and is a [`ClusterError::TooSlow`].
//!
//! Error answers (4xx / 5xx) become [`ClusterError::Api`] as kube's client
//! makes them: the body's `Status`, or the body's text as the message.

use std::time::Duration;

use futures::StreamExt;
use http_body_util::BodyExt;
use kube::client::Body;
use kube::Client;

use super::error::ClusterError;

/// The wait kdrift gives a server when the caller says nothing: 60 s.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// One list page (request, headers and whole body) may take at most this
/// many request timeouts ([`Deadlines::page`]): 10, so a 60 s request
/// timeout bounds a page at 10 min, far above what a healthy API server
/// needs for a page of 500 objects.
pub const PAGE_BOUND_FACTOR: u32 = 10;

/// How long to wait for a server, and how to name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deadlines {
    /// The server as messages show it (`credentials::shown_url`, e.g.
    /// `https://10.0.0.1:6443`); `""`: "the server".
    pub server: String,
    /// The longest wait for an answer's headers and, in a list's body,
    /// between two pieces of it (kubectl's `--request-timeout`). A watch
    /// waits `timeoutSeconds` plus this for its next bytes.
    pub idle: Duration,
}

impl Default for Deadlines {
    fn default() -> Deadlines {
        Deadlines { server: String::new(), idle: DEFAULT_REQUEST_TIMEOUT }
    }
}

impl Deadlines {
    /// `idle` for `server`.
    pub fn new(server: &str, idle: Duration) -> Deadlines {
        Deadlines { server: server.to_string(), idle }
    }

    /// The longest time one whole list page may take:
    /// [`PAGE_BOUND_FACTOR`] × [`Deadlines::idle`].
    pub fn page(&self) -> Duration {
        self.idle.saturating_mul(PAGE_BOUND_FACTOR)
    }

    /// The [`ClusterError::TooSlow`] of a list page not read within [`Deadlines::page`].
    pub(crate) fn too_slow(&self, resource: &str, path: &str) -> ClusterError {
        ClusterError::TooSlow {
            resource: resource.to_string(),
            server: if self.server.is_empty() { "the server".to_string() } else { self.server.clone() },
            path: path.to_string(),
            waited_seconds: self.page().as_secs_f64(),
            factor: PAGE_BOUND_FACTOR,
        }
    }

    /// The [`ClusterError::Timeout`] of waiting `waited` for `waiting_for`.
    pub(crate) fn timeout(
        &self,
        resource: &str,
        path: &str,
        waited: Duration,
        waiting_for: &'static str,
    ) -> ClusterError {
        ClusterError::Timeout {
            resource: resource.to_string(),
            server: if self.server.is_empty() { "the server".to_string() } else { self.server.clone() },
            path: path.to_string(),
            waited_seconds: waited.as_secs_f64(),
            waiting_for,
        }
    }
}

/// Sends `request` and waits at most `deadlines.idle` for the answer's
/// headers; a 4xx / 5xx answer is read (same bound) into its
/// [`ClusterError::Api`].
///
/// # Errors
/// [`ClusterError::Timeout`], [`ClusterError::Api`], and what
/// [`ClusterError::from_kube`] makes of kube's errors.
pub(crate) async fn send(
    client: &Client,
    request: http::Request<Vec<u8>>,
    resource: &str,
    path: &str,
    deadlines: &Deadlines,
    waiting_for: &'static str,
) -> Result<http::Response<Body>, ClusterError> {
    let sent = tokio::time::timeout(deadlines.idle, client.send(request.map(Body::from)));
    let response = match sent.await {
        Ok(r) => r.map_err(|e| ClusterError::from_kube(resource, path, e))?,
        Err(_) => return Err(deadlines.timeout(resource, path, deadlines.idle, waiting_for)),
    };
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return Ok(response);
    }
    let body = read_all(response.into_body(), resource, path, deadlines, "the rest of an error answer").await?;
    let text = String::from_utf8_lossy(&body);
    let status = serde_json::from_str::<kube::core::Status>(&text).unwrap_or_else(|_| {
        kube::core::Status::failure(text.trim(), "Failed to parse error data").with_code(status.as_u16())
    });
    Err(ClusterError::status(resource, path, &status))
}

/// The whole body, waiting at most `deadlines.idle` for each piece.
///
/// # Errors
/// [`ClusterError::Timeout`], or [`ClusterError::Transport`] when the
/// connection breaks.
pub(crate) async fn read_all(
    body: Body,
    resource: &str,
    path: &str,
    deadlines: &Deadlines,
    waiting_for: &'static str,
) -> Result<Vec<u8>, ClusterError> {
    let mut out = Vec::new();
    read_into(body, resource, path, deadlines, waiting_for, &mut out).await?;
    Ok(out)
}

/// [`read_all`] into `out`, which keeps what arrived when reading fails
/// (a list page cut mid-body keeps its complete items, break-it 32 N5).
///
/// # Errors
/// As [`read_all`].
pub(crate) async fn read_into(
    body: Body,
    resource: &str,
    path: &str,
    deadlines: &Deadlines,
    waiting_for: &'static str,
    out: &mut Vec<u8>,
) -> Result<(), ClusterError> {
    let mut data = body.into_data_stream();
    loop {
        match tokio::time::timeout(deadlines.idle, data.next()).await {
            Err(_) => return Err(deadlines.timeout(resource, path, deadlines.idle, waiting_for)),
            Ok(None) => return Ok(()),
            Ok(Some(Ok(chunk))) => out.extend_from_slice(&chunk),
            Ok(Some(Err(e))) => return Err(ClusterError::from_kube(resource, path, e)),
        }
    }
}
