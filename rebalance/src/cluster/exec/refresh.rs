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
//! Chosen over rebuilding the client on expiry (every holder of a client
//! would have to) and over kube's `token_file` (it needs a file holding
//! the token). A client certificate issued by a plugin is not renewed:
//! it is part of the TLS connector built once.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use chrono::{DateTime, Utc};
use http::{header::AUTHORIZATION, HeaderValue, Request};
use kube::Config;
use serde_json::Value;
use tower::{BoxError, Layer, Service};

use super::{run, Plugin};
use crate::cluster::ClusterError;

/// The field of kube's `AuthInfo` (its map of fields it does not model)
/// where [`super::apply`] leaves the plugin of an expiring token.
pub const KEY: &str = "kdrift.exec-refresh";

/// How long before its expiry a token is renewed, seconds (kube-rs's
/// margin for exec tokens: a request never leaves with a token about to expire).
pub const REFRESH_MARGIN: i64 = 60;

/// The value left at [`KEY`]: the plugin and when the token expires.
pub fn marker(plugin: &Plugin, expires: DateTime<Utc>) -> Value {
    serde_json::json!({ "plugin": serde_json::to_value(plugin).unwrap_or_default(), "expires": expires.to_rfc3339() })
}

/// The current token and how to renew it.
struct Current {
    plugin: Plugin,
    token: String,
    expires: DateTime<Utc>,
}

/// Sets each request's `Authorization` from a renewed exec token.
#[derive(Clone)]
pub struct RefreshLayer {
    current: Arc<Mutex<Current>>,
}

/// Removes the plugin left by [`super::apply`] (and the token, which the
/// layer then sends) from `config`; `None` when there is none.
pub fn take(config: &mut Config) -> Option<RefreshLayer> {
    let marker = config.auth_info.other.remove(KEY)?;
    let plugin: Plugin = serde_json::from_value(marker.get("plugin")?.clone()).ok()?;
    let expires = DateTime::parse_from_rfc3339(marker.get("expires")?.as_str()?).ok()?.with_timezone(&Utc);
    let mut auth = serde_json::to_value(&config.auth_info).ok()?;
    let token = auth.as_object_mut()?.remove("token")?.as_str()?.to_string();
    config.auth_info = serde_json::from_value(auth).ok()?;
    Some(RefreshLayer { current: Arc::new(Mutex::new(Current { plugin, token, expires })) })
}

impl RefreshLayer {
    /// The `Authorization` value to send now, renewing the token first
    /// when it expires within [`REFRESH_MARGIN`].
    ///
    /// # Errors
    /// [`ClusterError::ExecPlugin`] when the renewal fails.
    pub fn header(&self) -> Result<HeaderValue, ClusterError> {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if current.expires - chrono::Duration::seconds(REFRESH_MARGIN) <= Utc::now() {
            let issued = blocking(|| run(&current.plugin))?;
            let Some(token) = issued.token else {
                return Err(current.plugin.error("renewed the credential without status.token"));
            };
            current.token = token.trim().to_string();
            // Without an expiry now: valid until the server says otherwise.
            current.expires = issued.expires.unwrap_or(DateTime::<Utc>::MAX_UTC);
        }
        let mut value = HeaderValue::try_from(format!("Bearer {}", current.token))
            .map_err(|_| current.plugin.error("issued a token that is not valid in an HTTP header"))?;
        value.set_sensitive(true);
        Ok(value)
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
