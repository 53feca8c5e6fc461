//! What the executor needs from a Kubernetes API server, as a trait: list
//! objects as API JSON, get one, post a `policy/v1` Eviction.
//!
//! [`ClusterClient`] is implemented for the kube client of
//! [`crate::cluster`] (connected like kubectl) and, in tests, for in-memory
//! fakes. Both `rebalance plan --live` and `rebalance apply` read the cluster
//! only through [`super::read_snapshot`], which only uses this trait: the
//! plan that is printed and the plan that is executed come from the same
//! calls (dry-run parity).

use std::future::Future;

use serde_json::Value;

use crate::cluster::ClusterError;

pub use crate::cluster::ResourceKind;

/// The resources the executor reads (the same definitions as
/// [`crate::cluster::HISTORY_RESOURCES`], plus PersistentVolumeClaims).
pub mod kinds {
    use super::ResourceKind;

    const fn rk(group: &'static str, kind: &'static str, plural: &'static str, namespaced: bool) -> ResourceKind {
        ResourceKind { group, version: "v1", kind, plural, namespaced }
    }

    /// core/v1 Node.
    pub const NODE: ResourceKind = rk("", "Node", "nodes", false);
    /// core/v1 Pod.
    pub const POD: ResourceKind = rk("", "Pod", "pods", true);
    /// core/v1 Namespace.
    pub const NAMESPACE: ResourceKind = rk("", "Namespace", "namespaces", false);
    /// policy/v1 PodDisruptionBudget.
    pub const POD_DISRUPTION_BUDGET: ResourceKind = rk("policy", "PodDisruptionBudget", "poddisruptionbudgets", true);
    /// scheduling.k8s.io/v1 PriorityClass.
    pub const PRIORITY_CLASS: ResourceKind = rk("scheduling.k8s.io", "PriorityClass", "priorityclasses", false);
    /// core/v1 PersistentVolumeClaim.
    pub const PERSISTENT_VOLUME_CLAIM: ResourceKind = rk("", "PersistentVolumeClaim", "persistentvolumeclaims", true);
    /// batch/v1 CronJob (for `kdrift check --cronjob`).
    pub const CRON_JOB: ResourceKind = rk("batch", "CronJob", "cronjobs", true);
}

/// A failed API call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The API server answered with an error status.
    #[error("HTTP {code}: {message}")]
    Status {
        /// The HTTP status code (429, 404, 500, …).
        code: u16,
        /// The `Status` message.
        message: String,
    },
    /// No answer: connection refused or reset, TLS, DNS.
    #[error("no answer from the API server: {0}")]
    Transport(String),
    /// The call took longer than the executor's request timeout.
    #[error("no answer within {0:?}")]
    Timeout(std::time::Duration),
    /// An answer that is not what the API promises (not JSON, wrong shape).
    #[error("unexpected answer: {0}")]
    Decode(String),
    /// The client could not be set up (kubeconfig, credentials).
    #[error("cannot connect: {0}")]
    Config(String),
}

impl From<ClusterError> for ClientError {
    fn from(e: ClusterError) -> Self {
        match e {
            ClusterError::Api { code, message, .. } => ClientError::Status { code, message },
            ClusterError::Redirected { redirect, .. } => {
                ClientError::Status { code: redirect.status, message: redirect.to_string() }
            }
            ClusterError::Transport { .. } => ClientError::Transport(crate::cluster::error::with_causes(&e)),
            ClusterError::Timeout { waited_seconds, .. } | ClusterError::TooSlow { waited_seconds, .. } => {
                ClientError::Timeout(std::time::Duration::from_secs_f64(waited_seconds))
            }
            ClusterError::Decode { .. } | ClusterError::Request { .. } | ClusterError::BadEvent { .. } => {
                ClientError::Decode(e.to_string())
            }
            ClusterError::Kubeconfig { .. }
            | ClusterError::NoConfiguration { .. }
            | ClusterError::Client { .. }
            | ClusterError::ExecPlugin { .. }
            | ClusterError::BadToken { .. }
            | ClusterError::GcpCommand { .. }
            | ClusterError::SocksCredentials { .. }
            | ClusterError::BadUrl { .. }
            | ClusterError::TokenFile { .. } => ClientError::Config(e.to_string()),
        }
    }
}

impl ClientError {
    /// Worth retrying: 5xx, a 429 that is not a PodDisruptionBudget refusal
    /// (API priority and fairness), no answer, a timeout.
    pub fn is_transient(&self) -> bool {
        match self {
            ClientError::Status { code, message } => *code >= 500 || (*code == 429 && !is_pdb_refusal(message)),
            ClientError::Transport(_) | ClientError::Timeout(_) => true,
            ClientError::Decode(_) | ClientError::Config(_) => false,
        }
    }
}

/// True when a 429 message is the Eviction API's PodDisruptionBudget
/// refusal (`Cannot evict pod as it would violate the pod's disruption budget.`).
pub fn is_pdb_refusal(message: &str) -> bool {
    message.contains("disruption budget")
}

/// One `POST /api/v1/namespaces/{namespace}/pods/{name}/eviction`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvictionRequest {
    /// The pod's namespace.
    pub namespace: String,
    /// The pod's name.
    pub name: String,
    /// `deleteOptions.preconditions.uid`: evict only this incarnation of the pod.
    pub uid: Option<String>,
    /// `deleteOptions.gracePeriodSeconds` (the policy's `gracePeriodSeconds`).
    pub grace_period_seconds: Option<i64>,
}

impl EvictionRequest {
    /// The `policy/v1` Eviction body.
    pub fn body(&self) -> Value {
        let mut delete_options = serde_json::Map::new();
        if let Some(uid) = &self.uid {
            delete_options.insert("preconditions".into(), serde_json::json!({ "uid": uid }));
        }
        if let Some(g) = self.grace_period_seconds {
            delete_options.insert("gracePeriodSeconds".into(), g.into());
        }
        let mut body = serde_json::json!({
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": {"namespace": self.namespace, "name": self.name},
        });
        if !delete_options.is_empty() {
            body["deleteOptions"] = Value::Object(delete_options);
        }
        body
    }
}

/// The API calls the executor makes. Futures are `Send` so a caller may
/// spawn them; the executor itself runs them on one task.
pub trait ClusterClient {
    /// Every object of `kind`, in every namespace (`namespace: None`) or in
    /// one, as API JSON (each with `kind` and `apiVersion`), all pages.
    fn list(
        &self,
        kind: ResourceKind,
        namespace: Option<&str>,
    ) -> impl Future<Output = Result<Vec<Value>, ClientError>> + Send;

    /// One object; `Ok(None)` when it does not exist (404).
    fn get(
        &self,
        kind: ResourceKind,
        namespace: Option<&str>,
        name: &str,
    ) -> impl Future<Output = Result<Option<Value>, ClientError>> + Send;

    /// Posts the Eviction. `Ok(())` for 200/201; every other answer is a
    /// [`ClientError::Status`] with the server's code and message.
    fn evict(&self, request: &EvictionRequest) -> impl Future<Output = Result<(), ClientError>> + Send;
}

/// Changing a pod's metadata (`kdrift sessions annotate`), apart from
/// [`ClusterClient`]: the executor never patches.
pub trait PodPatcher {
    /// `PATCH /api/v1/namespaces/{namespace}/pods/{name}` with a JSON merge
    /// patch (`application/merge-patch+json`, RFC 7386). `Ok(())` for 200;
    /// every other answer is a [`ClientError::Status`] (404 gone, 409 the
    /// pod changed since the `resourceVersion` the patch carries).
    fn patch_pod(
        &self,
        namespace: &str,
        name: &str,
        patch: &Value,
    ) -> impl Future<Output = Result<(), ClientError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_errors() {
        let status = |code: u16, message: &str| ClientError::Status { code, message: message.into() };
        assert!(status(500, "etcdserver: request timed out").is_transient());
        assert!(status(503, "").is_transient());
        assert!(status(429, "Too many requests, please try again later.").is_transient());
        assert!(!status(429, "Cannot evict pod as it would violate the pod's disruption budget.").is_transient());
        assert!(!status(404, "pods \"x\" not found").is_transient());
        assert!(!status(403, "forbidden").is_transient());
        assert!(ClientError::Timeout(std::time::Duration::from_secs(30)).is_transient());
        assert!(ClientError::Transport("connection refused".into()).is_transient());
        assert!(!ClientError::Decode("not JSON".into()).is_transient());
    }

    #[test]
    fn eviction_body() {
        let r = EvictionRequest {
            namespace: "media".into(),
            name: "web-1".into(),
            uid: Some("u-1".into()),
            grace_period_seconds: Some(30),
        };
        let b = r.body();
        assert_eq!(b["apiVersion"], "policy/v1");
        assert_eq!(b["metadata"]["name"], "web-1");
        assert_eq!(b["deleteOptions"]["preconditions"]["uid"], "u-1");
        assert_eq!(b["deleteOptions"]["gracePeriodSeconds"], 30);
        let bare = EvictionRequest { uid: None, grace_period_seconds: None, ..r }.body();
        assert!(bare.get("deleteOptions").is_none());
    }
}
