//! What a Kubernetes API run reports, per resource and in total; shared by
//! the snapshot (`kdrift ingest api`) and the recorder (`kdrift record`).
//!
//! A problem's message carries the server's words (a `Status` message, or
//! the whole body of an answer that is not one: a proxy's page echoing the
//! request's headers). Every form of every credential of the kubeconfig or
//! in-cluster configuration is redacted ([`held`], filled by
//! `kdrift_rebalance`'s `cluster/credentials.rs`); an exec plugin's token is
//! obtained inside kube and never seen by kdrift, so what looks like one is
//! masked as well: the word after `Bearer` or `Basic` and every JWT
//! (`eyJ….…`, a service account token) become `***` ([`mask_credentials`]).

use kdrift_rebalance::held;
use kdrift_rebalance::ClusterError;

use crate::store::{RunCounts, RunStatus};

/// How bad a resource's problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The resource cannot be read here (403 Forbidden, 404 not served):
    /// the others are still stored.
    Warning,
    /// The resource could not be read for another reason (server error,
    /// connection).
    Error,
}

/// A resource that could not be (completely) read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ResourceProblem {
    /// Warning or error.
    pub severity: Severity,
    /// The message, naming the resource, the URL path and the server's words.
    pub message: String,
}

impl ResourceProblem {
    /// Classifies a cluster error: 403 / 404 are warnings.
    pub fn from_error(e: &ClusterError) -> ResourceProblem {
        let severity = if e.is_unavailable_resource() { Severity::Warning } else { Severity::Error };
        ResourceProblem { severity, message: mask_credentials(&held().redact(&e.to_string())) }
    }
}

/// `text` with the credentials a server may echo masked by their shape
/// ([`kdrift_rebalance::mask_patterns`]: the token after `Bearer` or
/// `Basic`, every JWT, a URL's password, `password=…`).
pub fn mask_credentials(text: &str) -> String {
    kdrift_rebalance::mask_patterns(text)
}

/// One resource of a run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ResourceReport {
    /// kubectl's `resource.group` name: `pods`, `deployments.apps`, `events.events.k8s.io`.
    pub resource: String,
    /// The collection URL (the observations' location).
    pub location: String,
    /// Object versions received (listed or watched).
    pub received: u64,
    /// New versions the store did not have.
    pub added: u64,
    /// Versions the store already had.
    pub duplicates: u64,
    /// The resourceVersion last listed or watched.
    pub resource_version: Option<String>,
    /// Why the resource was not (completely) read.
    pub problem: Option<ResourceProblem>,
    /// Items that could not be stored (or that analyses cannot read), with
    /// why: the first 100, then one saying how
    /// many more were counted.
    pub item_errors: Vec<String>,
    /// Item errors past the first 100: counted,
    /// not kept.
    pub item_errors_not_kept: u64,
}

impl ResourceReport {
    /// An empty report for `resource` at `location`.
    pub fn new(resource: String, location: String) -> ResourceReport {
        ResourceReport {
            resource,
            location,
            received: 0,
            added: 0,
            duplicates: 0,
            resource_version: None,
            problem: None,
            item_errors: Vec::new(),
            item_errors_not_kept: 0,
        }
    }

    /// Item errors, counted ones included (the "… more" line itself not).
    pub fn item_error_total(&self) -> u64 {
        let said = u64::from(
            self.item_errors_not_kept > 0 && self.item_errors.len() > crate::kept_errors::KEPT_ERRORS_PER_FILE,
        );
        self.item_errors.len() as u64 - said + self.item_errors_not_kept
    }
}

/// The outcome of `kdrift ingest api` or `kdrift record`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ApiReport {
    /// The run's id in `ingest_runs`.
    pub run_id: i64,
    /// ok / partial / failed.
    pub status: RunStatus,
    /// The cluster URL.
    pub cluster: String,
    /// `all namespaces` or `namespace <ns>`.
    pub scope: String,
    /// Per resource, in listing order.
    pub resources: Vec<ResourceReport>,
    /// Run totals.
    pub counts: RunCounts,
    /// The `metrics.k8s.io` usage samples taken (`None`: not asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<super::metrics::MetricsReport>,
}

impl ApiReport {
    /// Resources with a warning (403/404).
    pub fn warnings(&self) -> usize {
        self.problems(Severity::Warning)
    }

    /// Resources with an error, plus items that could not be stored, plus
    /// the errors of the usage samples.
    pub fn errors(&self) -> usize {
        let usage = self.usage.as_ref().map_or(0, |u| u.errors.len());
        let items: u64 = self.resources.iter().map(ResourceReport::item_error_total).sum();
        self.problems(Severity::Error) + usize::try_from(items).unwrap_or(usize::MAX) + usage
    }

    fn problems(&self, severity: Severity) -> usize {
        self.resources.iter().filter(|r| r.problem.as_ref().is_some_and(|p| p.severity == severity)).count()
    }
}

/// The run status: ok when everything was read; failed when no resource
/// could be; partial otherwise.
pub fn run_status(resources: &[ResourceReport]) -> RunStatus {
    let troubled = resources.iter().filter(|r| r.problem.is_some() || !r.item_errors.is_empty()).count();
    let unread = resources.iter().filter(|r| r.problem.is_some() && r.received == 0).count();
    match (troubled, unread) {
        (0, _) => RunStatus::Ok,
        (_, u) if u == resources.len() => RunStatus::Failed,
        _ => RunStatus::Partial,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_page_echoing_the_request_headers_is_stored_masked() {
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJl";
        let message = format!(
            "<pre>Authorization: Bearer {jwt}\nx: basic a2RyaWZ0OnNlY3JldC1wdw==\nforwarded: Bearer%20abc%2Bdef123\n\
             raw {jwt}</pre> Bearer token expired; basic auth"
        );
        let e = ClusterError::Api {
            resource: "pods".into(),
            path: "/api/v1/pods".into(),
            code: 502,
            reason: String::new(),
            message,
        };
        let problem = ResourceProblem::from_error(&e);
        assert_eq!(
            problem.message,
            "pods: the server answered 502 : <pre>Authorization: Bearer ***\nx: basic ***\nforwarded: Bearer%20***\nraw \
             ***</pre> Bearer token expired; basic auth (/api/v1/pods)"
        );
        assert_eq!(problem.severity, Severity::Error);
    }
}
