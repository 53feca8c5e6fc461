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
//! Bytes read are capped, since the deadlines never run out while bytes
//! keep coming (break-it 34 H5, H6): an error answer is read up to
//! [`ERROR_BODY_LIMIT`] characters (×4, plus what redaction needs to see
//! past the cut) and its message cut there; a list page past
//! [`MAX_PAGE_BYTES`] is a [`ClusterError::Decode`] naming the cap.

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

/// One whole list (every page) may take at most this many request
/// timeouts ([`Deadlines::list`]): 30, so a 60 s request timeout bounds a
/// list at 30 min. A real list of 50,000 pods takes well under a minute; a
/// server handing out a new continue token forever otherwise kept a list
/// going for the 100,000 pages of [`super::list::MAX_PAGES`], ~80 min
/// (break-it 34 H3, `pages.py endless`).
pub const LIST_BOUND_FACTOR: u32 = 30;

/// Most characters of an error answer's body kept for its message: 4096
/// (as the VictoriaLogs source keeps); about 4 × this plus
/// [`crate::Redactor::reach`] bytes are read, the rest is not.
pub const ERROR_BODY_LIMIT: usize = 4096;

/// Most bytes of one list page read into memory: 256 MiB, far above a page
/// of 500 objects (a few MiB). A page that goes on past it (`{"items":[` and
/// endless blanks) kept growing until memory ran out (break-it 34 H6).
pub const MAX_PAGE_BYTES: usize = 256 << 20;

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

    /// The longest time one whole list may take:
    /// [`LIST_BOUND_FACTOR`] × [`Deadlines::idle`]. Checked before each
    /// page is asked for.
    pub fn list(&self) -> Duration {
        self.idle.saturating_mul(LIST_BOUND_FACTOR)
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
    let redactor = crate::redact::held();
    let wanted = ERROR_BODY_LIMIT * 4 + redactor.reach();
    let mut body = Vec::new();
    let read = read_into(response, resource, path, deadlines, "the rest of an error answer", wanted, &mut body).await;
    let complete = match read {
        Ok(()) => true,
        Err(ClusterError::Decode { .. }) => false,
        Err(e) => return Err(e),
    };
    let text = String::from_utf8_lossy(&body);
    let parsed = if complete { serde_json::from_str::<kube::core::Status>(&text).ok() } else { None };
    let code = status.as_u16();
    let mut status = parsed
        .unwrap_or_else(|| kube::core::Status::failure(text.trim(), "Failed to parse error data").with_code(code));
    // A Status without its `code` (or 0): the answer's, which callers
    // classify by (a 5xx is asked again, a 403 is a warning).
    if status.code == 0 {
        status.code = code;
    }
    // Redacted before the cut: a credential straddling it is masked whole.
    status.message = redactor.cut(&status.message, complete, ERROR_BODY_LIMIT);
    status.reason = redactor.cut(&status.reason, true, ERROR_BODY_LIMIT);
    if !complete {
        status.message = format!(
            "{} [the answer went on past {wanted} bytes: only its first {ERROR_BODY_LIMIT} characters are shown, \
             the rest is not read]",
            status.message
        );
    }
    Err(ClusterError::status(resource, path, &status))
}

/// Makes room in `out` for `more` bytes, doubling but never past `cap`
/// (a `Vec` left to itself reaches twice the cap); `out.len() + more` is
/// at most `cap`.
fn grow(out: &mut Vec<u8>, more: usize, cap: usize) {
    let need = out.len() + more;
    if need > out.capacity() {
        out.reserve_exact(need.saturating_mul(2).clamp(need, cap) - out.len());
    }
}

/// The whole body of `response` into `out`, waiting at most
/// `deadlines.idle` for each piece and reading at most `cap` bytes; `out`
/// keeps what arrived when reading fails (a list page cut mid-body keeps
/// its complete items, break-it 32 N5). `out` never holds room for more
/// than `cap` bytes: reserved once from `Content-Length` when it is within
/// the cap, else grown by doubling up to the cap ([`grow`]).
///
/// # Errors
/// [`ClusterError::Timeout`], [`ClusterError::Transport`] when the
/// connection breaks, or [`ClusterError::Decode`] naming `cap` when the
/// body goes on past it (`out` then holds its first `cap` bytes; the rest
/// is not read).
pub(crate) async fn read_into(
    response: http::Response<Body>,
    resource: &str,
    path: &str,
    deadlines: &Deadlines,
    waiting_for: &'static str,
    cap: usize,
    out: &mut Vec<u8>,
) -> Result<(), ClusterError> {
    let announced = response
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.trim().parse::<usize>().ok());
    if let Some(n) = announced.filter(|n| *n <= cap) {
        out.reserve_exact(n.saturating_sub(out.len()));
    }
    let mut data = response.into_body().into_data_stream();
    loop {
        match tokio::time::timeout(deadlines.idle, data.next()).await {
            Err(_) => return Err(deadlines.timeout(resource, path, deadlines.idle, waiting_for)),
            Ok(None) => return Ok(()),
            Ok(Some(Ok(chunk))) => {
                let room = cap.saturating_sub(out.len());
                if chunk.len() > room {
                    out.extend_from_slice(&chunk[..room]);
                    return Err(ClusterError::Decode {
                        resource: resource.to_string(),
                        path: path.to_string(),
                        problem: format!(
                            "the answer goes on past {cap} bytes ({}), the most kdrift reads of one answer: the \
                             rest is not read",
                            crate::model::quantity::format_bytes(i64::try_from(cap).unwrap_or(i64::MAX))
                        ),
                    });
                }
                grow(out, chunk.len(), cap);
                out.extend_from_slice(&chunk);
            }
            Ok(Some(Err(e))) => return Err(ClusterError::from_kube(resource, path, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--max-page-bytes`: the room a page is read into never passes the
    /// cap (plus one piece), however it arrives.
    #[test]
    fn the_room_held_never_passes_the_cap() {
        let (cap, piece) = ((16 << 20) + 5, 64 << 10);
        let (mut out, mut peak) = (Vec::new(), 0);
        while out.len() + piece <= cap {
            grow(&mut out, piece, cap);
            out.resize(out.len() + piece, b' ');
            peak = peak.max(out.capacity());
        }
        assert!(peak <= cap + piece, "{peak} > {cap} + one piece");
        assert_eq!(out.capacity(), cap);
    }

    /// A page announcing its length is read into exactly that room (it
    /// doubled to 2,000,000 bytes for a 1,000,000-byte page).
    #[tokio::test]
    async fn a_page_is_read_into_the_room_its_content_length_announces() {
        let response = http::Response::builder()
            .header("content-length", "1000000")
            .body(Body::from(vec![b' '; 1_000_000]))
            .expect("response");
        let mut out = Vec::new();
        read_into(response, "pods", "/api/v1/pods", &Deadlines::default(), "the page", 4 << 20, &mut out)
            .await
            .expect("read");
        assert_eq!((out.len(), out.capacity()), (1_000_000, 1_000_000));
    }
}
