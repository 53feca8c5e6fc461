//! An exec plugin's expiring token, renewed for long-running commands
//! (`kdrift record`, the rebalance executor): [`super::apply`] leaves the
//! plugin and the token's expiry in the configuration ([`KEY`]);
//! [`take`] removes them, with the token, so that kube adds no
//! `Authorization` of its own, and returns a [`RefreshLayer`] that
//! [`super::super::redirect::client`] puts in front of kube's stack. It
//! sets `Authorization: Bearer <token>` (marked sensitive) on every
//! request, first re-running the plugin ([`super::run`], which holds the
//! new token for redaction) when the token expires within
//! [`REFRESH_MARGIN`].
//!
//! A kubeconfig's `tokenFile` (and the in-cluster service account's
//! `/var/run/secrets/kubernetes.io/serviceaccount/token`, which kube's
//! in-cluster configuration names as one) goes through the same layer:
//! [`take`] removes it from the configuration, so that kube does not
//! re-read the file and send a new token kdrift has not held, and the
//! layer re-reads the file itself when it changed (its modification time
//! or size) or [`TOKEN_FILE_REREAD`] after the last read (the kubelet
//! rotates projected tokens; client-go re-reads every minute), holding
//! each new token before it is sent (break-it, issue 34: a rotated token
//! echoed by the API server was stored in the clear).
//!
//! Chosen over rebuilding the client on expiry (every holder of a client
//! would have to) and over kube's `token_file` (it needs a file holding
//! the token, and holds nothing). A client certificate issued by a
//! plugin is not renewed: it is part of the TLS connector built once.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use chrono::{DateTime, Utc};
use http::{header::AUTHORIZATION, HeaderValue, Request};
use kube::Config;
use serde_json::Value;
use tower::{BoxError, Layer, Service};

use super::{run, Plugin};
use crate::cluster::connect::token_problem;
use crate::cluster::ClusterError;

/// The field of kube's `AuthInfo` (its map of fields it does not model)
/// where [`super::apply`] leaves the plugin of an expiring token.
pub const KEY: &str = "kdrift.exec-refresh";

/// How long before its expiry a token is renewed, seconds (kube-rs's
/// margin for exec tokens: a request never leaves with a token about to expire).
pub const REFRESH_MARGIN: i64 = 60;

/// At most this long between two reads of a token file, seconds
/// (client-go's `cachingTokenSource` period), besides the re-read when
/// its modification time or size changes.
pub const TOKEN_FILE_REREAD: Duration = Duration::from_secs(60);

/// The value left at [`KEY`]: the plugin and when the token expires.
pub fn marker(plugin: &Plugin, expires: DateTime<Utc>) -> Value {
    serde_json::json!({ "plugin": serde_json::to_value(plugin).unwrap_or_default(), "expires": expires.to_rfc3339() })
}

/// Where the token comes from.
enum Source {
    /// An exec plugin, re-run when the token expires.
    Exec { plugin: Plugin, expires: DateTime<Utc> },
    /// A token file, re-read when it changes or [`TOKEN_FILE_REREAD`] after the last read.
    File { path: PathBuf, read: Instant, stamp: Option<(SystemTime, u64)> },
}

/// The current token and how to renew it.
struct Current {
    source: Source,
    token: String,
}

/// Sets each request's `Authorization` from a renewed exec token or a
/// re-read token file.
#[derive(Clone)]
pub struct RefreshLayer {
    current: Arc<Mutex<Current>>,
}

/// Removes the plugin left by [`super::apply`] (and the token, which the
/// layer then sends), or the `tokenFile` when kube would use it (no
/// auth-provider, Basic pair or `token`), from `config`; `None` when
/// there is neither.
pub fn take(config: &mut Config) -> Option<RefreshLayer> {
    let mut auth = serde_json::to_value(&config.auth_info).ok()?;
    let map = auth.as_object_mut()?;
    let (source, token) = match map.remove(KEY) {
        Some(marker) => {
            let plugin: Plugin = serde_json::from_value(marker.get("plugin")?.clone()).ok()?;
            let expires = DateTime::parse_from_rfc3339(marker.get("expires")?.as_str()?).ok()?.with_timezone(&Utc);
            let token = map.remove("token")?.as_str()?.to_string();
            (Source::Exec { plugin, expires }, token)
        }
        None if token_file_is_used(map) => {
            let path = PathBuf::from(map.remove("tokenFile")?.as_str()?);
            // Unreadable now: refused before (`check_token_file`); the layer says so at a request.
            let (token, stamp) = read_token(&path).unwrap_or_default();
            (Source::File { path, read: Instant::now(), stamp }, token)
        }
        None => return None,
    };
    config.auth_info = serde_json::from_value(auth).ok()?;
    Some(RefreshLayer { current: Arc::new(Mutex::new(Current { source, token })) })
}

/// Whether kube would send the token of the `tokenFile` of `auth` (a
/// kubeconfig user's fields): kube's precedence is an auth-provider, then
/// Basic, then `token`, then `tokenFile`.
fn token_file_is_used(auth: &serde_json::Map<String, Value>) -> bool {
    ["auth-provider", "token"].iter().all(|k| auth.get(*k).is_none_or(Value::is_null))
        && !(auth.get("username").is_some_and(|u| !u.is_null()) && auth.get("password").is_some_and(|p| !p.is_null()))
        && auth.get("tokenFile").and_then(Value::as_str).is_some()
}

/// Reads the `tokenFile` `config` sends a token from (not an exec
/// plugin's), once, before any request: a file that cannot be read, is
/// empty or holds a token no HTTP header can carry is one error here.
/// Found at the first request instead, it failed every resource's list,
/// each printing the same error (break-it 40 F11: 13 lines for `ingest api`).
///
/// # Errors
/// [`ClusterError::TokenFile`] naming the file and what is wrong (never the token).
pub fn check_token_file(config: &Config) -> Result<(), ClusterError> {
    let Ok(Value::Object(auth)) = serde_json::to_value(&config.auth_info) else { return Ok(()) };
    if auth.contains_key(KEY) || !token_file_is_used(&auth) {
        return Ok(());
    }
    let Some(path) = auth.get("tokenFile").and_then(Value::as_str).map(PathBuf::from) else { return Ok(()) };
    let error = |cause: String| ClusterError::TokenFile { path: path.display().to_string(), cause };
    let (token, _) = read_token(&path).map_err(|e| error(e.to_string()))?;
    if token.is_empty() {
        return Err(error("it is empty; expected the token alone, printable characters on one line".into()));
    }
    match token_problem(&token) {
        Some(problem) => {
            Err(error(format!("its token {problem}; expected the token alone, printable characters on one line")))
        }
        None => Ok(()),
    }
}

/// The token in `path` (trimmed, held for redaction before any use) and
/// the file's modification time and size.
fn read_token(path: &std::path::Path) -> std::io::Result<(String, Option<(SystemTime, u64)>)> {
    let token = crate::cluster::capped_file::read_capped_text(
        path,
        crate::cluster::capped_file::MAX_SECRET_FILE_BYTES,
        "token file",
    )?
    .trim()
    .to_string();
    if !token.is_empty() {
        crate::redact::hold([format!("Bearer {token}"), token.clone()]);
    }
    Ok((token, stamp_of(path)))
}

fn stamp_of(path: &std::path::Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

impl RefreshLayer {
    /// The `Authorization` value to send now: for an exec plugin, renewing
    /// the token first when it expires within [`REFRESH_MARGIN`]; for a
    /// token file, re-reading it when it changed or [`TOKEN_FILE_REREAD`]
    /// passed (a file that cannot be read keeps the last token, as
    /// client-go does).
    ///
    /// # Errors
    /// [`ClusterError::ExecPlugin`] when the renewal fails;
    /// [`ClusterError::BadToken`] when the renewed token holds a control
    /// character (named with its position, never the token);
    /// [`ClusterError::TokenFile`] when the token file has never been read
    /// or its token is not valid in an HTTP header.
    pub fn header(&self) -> Result<HeaderValue, ClusterError> {
        let mut guard = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        let current = &mut *guard;
        match &mut current.source {
            Source::Exec { plugin, expires } => {
                if *expires - chrono::Duration::seconds(REFRESH_MARGIN) <= Utc::now() {
                    let issued = blocking(|| run(plugin))?;
                    let Some(token) = issued.token else {
                        return Err(plugin.error("renewed the credential without status.token"));
                    };
                    // Refused as the first token is (`connect`), before any
                    // request: named by its position, never shown.
                    let token = token.trim();
                    if let Some(problem) = token_problem(token) {
                        return Err(ClusterError::BadToken {
                            user: plugin.user.clone(),
                            problem: format!("renewed by the exec plugin {} {problem}", plugin.command),
                        });
                    }
                    current.token = token.to_string();
                    // Without an expiry now: valid until the server says otherwise.
                    *expires = issued.expires.unwrap_or(DateTime::<Utc>::MAX_UTC);
                }
                let mut value = HeaderValue::try_from(format!("Bearer {}", current.token))
                    .map_err(|_| plugin.error("issued a token that is not valid in an HTTP header"))?;
                value.set_sensitive(true);
                Ok(value)
            }
            Source::File { path, read, stamp } => {
                if current.token.is_empty() || read.elapsed() >= TOKEN_FILE_REREAD || stamp_of(path) != *stamp {
                    match read_token(path) {
                        Ok((token, new_stamp)) if !token.is_empty() => {
                            if let Some(problem) = token_problem(&token) {
                                return Err(ClusterError::TokenFile {
                                    path: path.display().to_string(),
                                    cause: format!("its token {problem}"),
                                });
                            }
                            current.token = token;
                            *stamp = new_stamp;
                            *read = Instant::now();
                        }
                        Ok(_) if current.token.is_empty() => {
                            return Err(ClusterError::TokenFile {
                                path: path.display().to_string(),
                                cause: "it is empty".into(),
                            })
                        }
                        Err(e) if current.token.is_empty() => {
                            return Err(ClusterError::TokenFile {
                                path: path.display().to_string(),
                                cause: e.to_string(),
                            })
                        }
                        // Being rewritten or gone for a moment: the last token still serves.
                        _ => {}
                    }
                }
                let mut value = HeaderValue::try_from(format!("Bearer {}", current.token)).map_err(|_| {
                    // Which character, where, and what was expected; never the token.
                    let problem = crate::cluster::connect::token_problem(&current.token)
                        .unwrap_or_else(|| "is not valid in an HTTP header".to_string());
                    ClusterError::TokenFile {
                        path: path.display().to_string(),
                        cause: format!(
                            "its token {problem}; expected the token alone, printable characters on one line"
                        ),
                    }
                })?;
                value.set_sensitive(true);
                Ok(value)
            }
        }
    }
}

/// Runs `f` (a child process) without stalling a Tokio worker's other tasks.
fn blocking<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

impl<S> Layer<S> for RefreshLayer {
    type Service = Refresh<S>;

    fn layer(&self, inner: S) -> Refresh<S> {
        Refresh { inner, layer: self.clone() }
    }
}

/// The service of [`RefreshLayer`].
pub struct Refresh<S> {
    inner: S,
    layer: RefreshLayer,
}

type Answer<R> = Pin<Box<dyn Future<Output = Result<R, BoxError>> + Send>>;

impl<S, B> Service<Request<B>> for Refresh<S>
where
    S: Service<Request<B>, Error = BoxError>,
    S::Response: Send + 'static,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = Answer<S::Response>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        match self.layer.header() {
            Ok(value) => {
                request.headers_mut().insert(AUTHORIZATION, value);
                Box::pin(self.inner.call(request))
            }
            Err(e) => Box::pin(std::future::ready(Err(Box::new(e) as BoxError))),
        }
    }
}
