//! `kdrift sessions annotate`: let descheduler itself respect live sessions.
//!
//! A cluster that keeps descheduler as its executor cannot ask kdrift's
//! probes before an eviction. It can honour an annotation: with the
//! DefaultEvictor's `noEvictionPolicy: Mandatory` (descheduler v0.36,
//! `pkg/framework/plugins/defaultevictor/defaultevictor.go`), a pod carrying
//! `descheduler.alpha.kubernetes.io/prefer-no-eviction` is not evictable.
//! This module keeps that annotation in step with the session probes
//! (`--probe SELECTOR=URL`, the executor's contract):
//!
//! - a Running pod (not terminating) that a probe selects and that is
//!   **in use** — or that a probe cannot tell about, treated as in use as by
//!   the executor — gets [`PREFER_NO_EVICTION`] plus the marker
//!   [`SESSIONS_ANNOTATED`] (`"true"`), which says kdrift set it;
//! - a pod that kdrift annotated (marker present) and whose every matching
//!   probe now says **idle** loses both;
//! - a pod whose prefer-no-eviction the user set (no marker) is never
//!   touched, whatever the probes say; pods no probe selects are not looked
//!   at (another `sessions annotate` with other probes may own them).
//!
//! [`decide`] is pure; [`run::annotate_once`] lists the pods, asks the
//! probes, PATCHes the annotations (JSON merge patch on
//! `metadata.annotations`, with the `resourceVersion` read, so a pod changed
//! meanwhile is a 409 and left for the next round) and records one Event per
//! change ([`REASON_ACTIVE`], [`REASON_ENDED`]).

pub mod run;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

pub use crate::planner::PREFER_NO_EVICTION;

/// The marker annotation: kdrift set the pod's prefer-no-eviction (and may
/// remove it); a prefer-no-eviction without it is the user's.
pub const SESSIONS_ANNOTATED: &str = "kdrift.io/sessions-annotated";
/// Event reason: sessions are active, the annotation was set.
pub const REASON_ACTIVE: &str = "SessionsActive";
/// Event reason: the sessions ended, the annotation was removed.
pub const REASON_ENDED: &str = "SessionsEnded";

/// What [`decide`] reads of one pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionPod {
    /// The namespace.
    pub namespace: String,
    /// The name.
    pub name: String,
    /// `metadata.uid`.
    pub uid: String,
    /// `metadata.resourceVersion` (sent back in the patch).
    pub resource_version: String,
    /// `metadata.labels`.
    #[serde(skip)]
    pub labels: BTreeMap<String, String>,
    /// Has `descheduler.alpha.kubernetes.io/prefer-no-eviction`.
    pub prefer_no_eviction: bool,
    /// Has `kdrift.io/sessions-annotated: "true"`.
    pub annotated_by_kdrift: bool,
    /// `status.phase` is Running and no `metadata.deletionTimestamp`.
    #[serde(skip)]
    pub running: bool,
}

impl SessionPod {
    /// Reads a pod's API JSON; `None` when it has no name.
    pub fn from_json(pod: &Value) -> Option<SessionPod> {
        let meta = pod.get("metadata")?;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
        let name = text(meta.get("name"));
        if name.is_empty() {
            return None;
        }
        let labels = meta
            .get("labels")
            .and_then(Value::as_object)
            .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
            .unwrap_or_default();
        let annotations = meta.get("annotations").and_then(Value::as_object);
        let has = |k: &str| annotations.is_some_and(|a| a.contains_key(k));
        Some(SessionPod {
            namespace: text(meta.get("namespace")),
            name,
            uid: text(meta.get("uid")),
            resource_version: text(meta.get("resourceVersion")),
            labels,
            prefer_no_eviction: has(PREFER_NO_EVICTION),
            annotated_by_kdrift: annotations
                .and_then(|a| a.get(SESSIONS_ANNOTATED))
                .and_then(Value::as_str)
                .is_some_and(|v| v == "true"),
            running: pod.pointer("/status/phase").and_then(Value::as_str) == Some("Running")
                && meta.get("deletionTimestamp").is_none_or(Value::is_null),
        })
    }

    /// `NAMESPACE/NAME`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

/// What the probes said about one pod (all matching probes together).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sessions {
    /// Every matching probe said idle.
    Idle,
    /// A probe said in use, or could not tell (treated as in use): why.
    Active(String),
}

/// One annotation change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// Set prefer-no-eviction and the marker.
    Annotate,
    /// Remove both (kdrift had set them).
    Remove,
}

/// A change [`decide`] asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The pod.
    pub pod: SessionPod,
    /// Set or remove.
    pub action: Action,
    /// Why: the probe's answer (`in use according to URL (sessions: 2)`).
    pub why: String,
}

/// Which pods get the annotations and which lose them. Pure. `sessions`
/// holds the probes' answer for each probed pod (by [`SessionPod::key`]);
/// pods absent from it (no probe selects them) or not running are left
/// alone, and so is every pod whose prefer-no-eviction the user set.
pub fn decide(pods: &[SessionPod], sessions: &BTreeMap<String, Sessions>) -> Vec<Change> {
    let mut changes = Vec::new();
    for pod in pods.iter().filter(|p| p.running) {
        let Some(said) = sessions.get(&pod.key()) else { continue };
        let users_own = pod.prefer_no_eviction && !pod.annotated_by_kdrift;
        if users_own {
            continue;
        }
        match said {
            Sessions::Active(why) if !(pod.prefer_no_eviction && pod.annotated_by_kdrift) => {
                changes.push(Change { pod: pod.clone(), action: Action::Annotate, why: why.clone() });
            }
            Sessions::Idle if pod.annotated_by_kdrift => changes.push(Change {
                pod: pod.clone(),
                action: Action::Remove,
                why: "every probe says idle".to_string(),
            }),
            _ => {}
        }
    }
    changes
}

/// The JSON merge patch for a change: both annotations set (`"true"`) or
/// removed (`null`), with the `resourceVersion` read (a 409 when the pod
/// changed since).
pub fn patch_body(change: &Change) -> Value {
    let value = match change.action {
        Action::Annotate => Value::String("true".to_string()),
        Action::Remove => Value::Null,
    };
    let mut meta = serde_json::json!({
        "annotations": { PREFER_NO_EVICTION: value.clone(), SESSIONS_ANNOTATED: value },
    });
    if !change.pod.resource_version.is_empty() {
        meta["resourceVersion"] = Value::String(change.pod.resource_version.clone());
    }
    serde_json::json!({ "metadata": meta })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, prefer: bool, ours: bool) -> SessionPod {
        SessionPod {
            namespace: "media".into(),
            name: name.into(),
            uid: format!("u-{name}"),
            resource_version: "7".into(),
            labels: BTreeMap::new(),
            prefer_no_eviction: prefer,
            annotated_by_kdrift: ours,
            running: true,
        }
    }

    #[test]
    fn decisions() {
        let active = || Sessions::Active("in use according to http://x/busy (active: true)".into());
        let pods = vec![
            pod("busy-new", false, false),
            pod("busy-already", true, true),
            pod("idle-ours", true, true),
            pod("idle-plain", false, false),
            pod("users-own-busy", true, false),
            pod("users-own-idle", true, false),
            pod("unprobed-ours", true, true),
            SessionPod { running: false, ..pod("pending-busy", false, false) },
        ];
        let sessions: BTreeMap<String, Sessions> = [
            ("busy-new", active()),
            ("busy-already", active()),
            ("idle-ours", Sessions::Idle),
            ("idle-plain", Sessions::Idle),
            ("users-own-busy", active()),
            ("users-own-idle", Sessions::Idle),
            ("pending-busy", active()),
        ]
        .into_iter()
        .map(|(n, s)| (format!("media/{n}"), s))
        .collect();
        let changes = decide(&pods, &sessions);
        let got: Vec<(&str, &Action)> = changes.iter().map(|c| (c.pod.name.as_str(), &c.action)).collect();
        assert_eq!(got, vec![("busy-new", &Action::Annotate), ("idle-ours", &Action::Remove)]);
        assert_eq!(
            patch_body(&changes[0]),
            serde_json::json!({"metadata": {"resourceVersion": "7", "annotations": {
                "descheduler.alpha.kubernetes.io/prefer-no-eviction": "true", "kdrift.io/sessions-annotated": "true"}}})
        );
        assert_eq!(
            patch_body(&changes[1]),
            serde_json::json!({"metadata": {"resourceVersion": "7", "annotations": {
                "descheduler.alpha.kubernetes.io/prefer-no-eviction": null, "kdrift.io/sessions-annotated": null}}})
        );
    }

    #[test]
    fn reading_a_pod() {
        let p = SessionPod::from_json(&serde_json::json!({
            "metadata": {"namespace": "media", "name": "plex-0", "uid": "u1", "resourceVersion": "9",
                "labels": {"app": "plex"},
                "annotations": {"descheduler.alpha.kubernetes.io/prefer-no-eviction": "", "kdrift.io/sessions-annotated": "true"}},
            "status": {"phase": "Running"}}))
        .expect("pod");
        assert!(p.prefer_no_eviction && p.annotated_by_kdrift && p.running);
        assert_eq!(p.labels.get("app").map(String::as_str), Some("plex"));
        let t = SessionPod::from_json(&serde_json::json!({
            "metadata": {"namespace": "media", "name": "plex-1", "deletionTimestamp": "2026-12-06T00:00:00Z"},
            "status": {"phase": "Running"}}))
        .expect("pod");
        assert!(!t.running && !t.prefer_no_eviction && !t.annotated_by_kdrift);
    }
}
