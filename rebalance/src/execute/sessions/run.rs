//! One round of `kdrift sessions annotate`: list the pods, ask the probes
//! about those they select, [`decide`], PATCH, and record one core/v1
//! Event per change made (reason [`REASON_ACTIVE`] or [`REASON_ENDED`],
//! involvedObject the pod, `reportingComponent: kdrift`) in the
//! [`EventSink`]. A PATCH that fails is reported and the round goes on with
//! the other pods.

use std::collections::BTreeMap;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{json, Value};

use super::{decide, patch_body, Action, Change, SessionPod, Sessions, REASON_ACTIVE, REASON_ENDED};
use super::{PREFER_NO_EVICTION, SESSIONS_ANNOTATED};
use crate::execute::client::{kinds, ClientError, ClusterClient, PodPatcher};
use crate::execute::probe::{self, Probe, ProbeAnswer};
use crate::execute::record::{EventSink, REPORTING_COMPONENT};

/// One change and how it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeResult {
    /// `NAMESPACE/NAME`.
    pub pod: String,
    /// Set or removed.
    pub action: Action,
    /// The probes' answer.
    pub why: String,
    /// The PATCH's error; `None`: done.
    pub error: Option<String>,
}

/// What one round did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AnnotateReport {
    /// When the round started.
    pub at: String,
    /// Pods listed.
    pub pods: usize,
    /// Running pods a probe selected (each asked).
    pub probed: usize,
    /// Pods left alone because the user set their prefer-no-eviction.
    pub users_own: Vec<String>,
    /// Every change attempted, in pod order.
    pub changes: Vec<ChangeResult>,
    /// Events the sink refused (the change was made, not recorded).
    pub record_errors: Vec<String>,
}

impl AnnotateReport {
    /// True when a PATCH failed or a record is missing.
    pub fn failed(&self) -> bool {
        !self.record_errors.is_empty() || self.changes.iter().any(|c| c.error.is_some())
    }
}

/// Every matching probe asked; idle only when all say idle.
async fn sessions_of(http: Option<&reqwest::Client>, probes: &[Probe], pod: &SessionPod) -> Option<Sessions> {
    let mut matched = false;
    for p in probes.iter().filter(|p| p.selector.matches(&pod.labels)) {
        matched = true;
        let answer = match http {
            Some(http) => probe::ask(http, p, &pod.namespace, &pod.name).await,
            None => ProbeAnswer::Unknown("no HTTP client".to_string()),
        };
        let url = p.shown_target(&pod.namespace, &pod.name);
        match answer {
            ProbeAnswer::Idle => {}
            ProbeAnswer::InUse(what) => return Some(Sessions::Active(format!("in use according to {url} ({what})"))),
            ProbeAnswer::Unknown(why) => {
                return Some(Sessions::Active(format!(
                    "{url} cannot tell whether the pod is in use ({why}); treated as in use"
                )))
            }
        }
    }
    matched.then_some(Sessions::Idle)
}

/// The Event recording a change made at `at` (`n`: its place in the round).
pub fn change_event(change: &Change, at: DateTime<Utc>, n: usize) -> Value {
    let (reason, message) = match change.action {
        Action::Annotate => {
            (REASON_ACTIVE, format!("{}: annotated {PREFER_NO_EVICTION} and {SESSIONS_ANNOTATED}", change.why))
        }
        Action::Remove => (
            REASON_ENDED,
            format!("{}: removed {PREFER_NO_EVICTION} and {SESSIONS_ANNOTATED} (kdrift had set them)", change.why),
        ),
    };
    let time = at.to_rfc3339_opts(SecondsFormat::Secs, true);
    let instance = format!("sessions-{}", at.format("%Y%m%d-%H%M%S-%6f"));
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": format!("{}.{instance}-{n}", change.pod.name),
            "namespace": change.pod.namespace,
            "creationTimestamp": time,
        },
        "involvedObject": {
            "apiVersion": "v1",
            "kind": "Pod",
            "namespace": change.pod.namespace,
            "name": change.pod.name,
            "uid": change.pod.uid,
        },
        "type": "Normal",
        "reason": reason,
        "message": message,
        "action": "Annotate",
        "source": {"component": REPORTING_COMPONENT},
        "reportingComponent": REPORTING_COMPONENT,
        "reportingInstance": instance,
        "firstTimestamp": time,
        "lastTimestamp": time,
        "eventTime": at.to_rfc3339_opts(SecondsFormat::Micros, true),
        "count": 1,
    })
}

/// One round (see the module doc).
///
/// # Errors
/// The pods could not be listed (nothing changed).
pub async fn annotate_once<C, S>(
    client: &C,
    probes: &[Probe],
    sink: &mut S,
    at: DateTime<Utc>,
) -> Result<AnnotateReport, ClientError>
where
    C: ClusterClient + PodPatcher,
    S: EventSink,
{
    let listed = client.list(kinds::POD, None).await?;
    let mut pods: Vec<SessionPod> = listed.iter().filter_map(SessionPod::from_json).collect();
    pods.sort_by_key(SessionPod::key);
    // No probe asked through a proxy misread (break-it 43 N2): an error of
    // the round, before any pod is changed.
    let http = if probes.is_empty() {
        None
    } else {
        Some(probe::http_client().map_err(|e| ClientError::Config(format!("the probes' HTTP client: {e}")))?)
    };
    let mut sessions = BTreeMap::new();
    let mut report = AnnotateReport {
        at: at.to_rfc3339_opts(SecondsFormat::Secs, true),
        pods: pods.len(),
        ..AnnotateReport::default()
    };
    for pod in pods.iter().filter(|p| p.running) {
        if let Some(said) = sessions_of(http.as_ref(), probes, pod).await {
            report.probed += 1;
            if pod.prefer_no_eviction && !pod.annotated_by_kdrift {
                report.users_own.push(pod.key());
            }
            sessions.insert(pod.key(), said);
        }
    }
    for (n, change) in decide(&pods, &sessions).into_iter().enumerate() {
        let result = client.patch_pod(&change.pod.namespace, &change.pod.name, &patch_body(&change)).await;
        let error = result.err().map(|e| crate::redact::held().redact(&e.to_string()));
        if error.is_none() {
            if let Err(e) = sink.record(&change_event(&change, at, n)) {
                report.record_errors.push(format!("{}: {e}", change.pod.key()));
            }
        }
        report.changes.push(ChangeResult { pod: change.pod.key(), action: change.action, why: change.why, error });
    }
    Ok(report)
}
