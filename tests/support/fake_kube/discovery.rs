//! Discovery as kubectl and kube-rs read it: `/version`, `/api`, `/apis`,
//! `/apis/<group>`, `/api/v1` and `/apis/<group>/<version>` (legacy
//! discovery documents; a client asking for aggregated discovery gets them
//! as `application/json` and falls back, as with an older apiserver).
//! Hidden resources (and groups left empty) are left out. `metrics.k8s.io`
//! is listed when served (its own documents: `super::metrics`).

use axum::response::Response;
use serde_json::{json, Value};

use super::http::{error, json, Shared};
use super::resources::{groups as served_groups, SERVED};
use super::status::ApiError;

/// `/version`.
pub fn version() -> Value {
    json!({
        "major": "1", "minor": "33", "gitVersion": "v1.33.0-kdrift-fake",
        "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.24.2", "compiler": "gc", "platform": "linux/amd64"
    })
}

/// `/api`.
pub fn core_versions(address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}]
    })
}

fn visible_groups(shared: &Shared) -> Vec<(&'static str, &'static str)> {
    let hidden = shared.lock().faults.hidden.clone();
    served_groups()
        .into_iter()
        .filter(|(g, v)| SERVED.iter().any(|r| r.group == *g && r.version == *v && !hidden.contains(&r.name())))
        .collect()
}

fn group_doc(group: &str, version: &str) -> Value {
    let gv = json!({"groupVersion": format!("{group}/{version}"), "version": version});
    json!({"name": group, "versions": [gv.clone()], "preferredVersion": gv})
}

/// `/apis`.
pub fn groups(shared: &Shared) -> Value {
    let mut groups: Vec<Value> = visible_groups(shared).into_iter().map(|(g, v)| group_doc(g, v)).collect();
    groups.extend(super::metrics::group_entry(shared));
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/<group>`.
pub fn group(shared: &Shared, group: &str) -> Response {
    match visible_groups(shared).into_iter().find(|(g, _)| *g == group) {
        Some((g, v)) => {
            let mut doc = group_doc(g, v);
            if let Some(m) = doc.as_object_mut() {
                m.insert("kind".into(), json!("APIGroup"));
                m.insert("apiVersion".into(), json!("v1"));
            }
            json(200, &doc)
        }
        None => error(&ApiError::no_route()),
    }
}

const VERBS: &[&str] = &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const WORKLOADS: &[&str] = &["Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob"];

/// `/api/v1`, `/apis/<group>/<version>`.
pub fn resources(shared: &Shared, group: &str, version: &str) -> Response {
    let hidden = shared.lock().faults.hidden.clone();
    let mut out = Vec::new();
    for r in SERVED.iter().filter(|r| r.group == group && r.version == version && !hidden.contains(&r.name())) {
        let mut doc = json!({
            "name": r.plural, "singularName": r.singular, "namespaced": r.namespaced, "kind": r.kind, "verbs": VERBS,
        });
        if let Some(m) = doc.as_object_mut() {
            if !r.short_names.is_empty() {
                m.insert("shortNames".into(), json!(r.short_names));
            }
            if WORKLOADS.contains(&r.kind) {
                m.insert("categories".into(), json!(["all"]));
            }
        }
        out.push(doc);
        if r.kind == "Pod" {
            out.push(json!({"name": "pods/eviction", "singularName": "", "namespaced": true, "group": "policy",
                            "version": "v1", "kind": "Eviction", "verbs": ["create"]}));
            out.push(json!({"name": "pods/status", "singularName": "", "namespaced": true, "kind": "Pod",
                            "verbs": ["get", "patch", "update"]}));
        }
    }
    if out.is_empty() {
        return error(&ApiError::no_route());
    }
    let gv = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    json(200, &json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": out}))
}
