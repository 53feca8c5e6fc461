//! Credentials inside otherwise valid records, masked before the store:
//! an Event whose message quotes `Authorization: Bearer eyJ…`, an
//! annotation holding `https://user:pass@host`, a container's
//! `DB_PASSWORD`. kdrift reads none of them, and a store travels (attached
//! to a postmortem, copied to a laptop). [`mask_object`] rewrites, in
//! place, only the free text of an object:
//!
//! - every `message` and `note` string (an Event's; a condition's or a
//!   container state's message), and every string of an `args` or
//!   `command` list: credential shapes masked
//!   ([`kdrift_rebalance::mask_patterns`]), and every form of a credential
//!   kdrift itself holds ([`kdrift_rebalance::held`]: the kubeconfig's
//!   token, an exec plugin's token) — a server may echo it in a record;
//! - every `env` entry: its whole `value` when its `name` is a secret's
//!   ([`secret_name`]: `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*PASSWD*`,
//!   `*KEY*`, `*CREDENTIAL*`), else the shapes in it;
//! - every annotation value: the shapes in it, or, when it holds JSON (as
//!   `kubectl.kubernetes.io/last-applied-configuration` does), the same
//!   rules inside that JSON (rewritten only when something was masked).
//!
//! Names, images, node names, uids, resourceVersions, labels, quantities
//! and every other field stay exactly as they were. Secrets themselves are
//! never stored at all (`kdrift_ingest`'s `parse::NOT_KEPT_KINDS`, and
//! [`crate::prepare::prepare`] refuses one whatever its source).

use kdrift_rebalance::{mask_patterns, MASK};
use serde_json::Value;

/// Whether an environment variable named `name` holds a secret (any case).
pub fn secret_name(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL"].iter().any(|w| name.contains(w))
}

/// Masks the credentials in `object`'s free text (see the module doc);
/// true when anything changed.
pub fn mask_object(object: &mut Value) -> bool {
    walk(object, None)
}

fn walk(value: &mut Value, key: Option<&str>) -> bool {
    match (key, value) {
        (Some("message" | "note"), Value::String(s)) => mask_string(s),
        (Some("args" | "command"), Value::Array(items)) => {
            let mut changed = false;
            for item in items.iter_mut() {
                if let Value::String(s) = item {
                    changed |= mask_string(s);
                }
            }
            changed
        }
        (Some("env"), Value::Array(entries)) => {
            let mut changed = false;
            for entry in entries.iter_mut() {
                changed |= mask_env(entry);
            }
            changed
        }
        (Some("annotations"), Value::Object(map)) => {
            let mut changed = false;
            for v in map.values_mut() {
                if let Value::String(s) = v {
                    changed |= mask_annotation(s);
                }
            }
            changed
        }
        (_, Value::Object(map)) => {
            let mut changed = false;
            for (k, v) in map.iter_mut() {
                changed |= walk(v, Some(k.as_str()));
            }
            changed
        }
        (_, Value::Array(items)) => {
            let mut changed = false;
            for item in items.iter_mut() {
                changed |= walk(item, None);
            }
            changed
        }
        _ => false,
    }
}

/// Masks the held credentials and the shapes in `s`; true when it changed.
fn mask_string(s: &mut String) -> bool {
    let masked = mask_patterns(&kdrift_rebalance::held().redact(s));
    if masked == *s {
        return false;
    }
    *s = masked;
    true
}

/// One `env` entry (`{"name": …, "value": …}`).
fn mask_env(entry: &mut Value) -> bool {
    let Some(map) = entry.as_object_mut() else { return false };
    let secret = map.get("name").and_then(Value::as_str).is_some_and(secret_name);
    match map.get_mut("value") {
        Some(Value::String(s)) if secret && !s.is_empty() && s != MASK => {
            *s = MASK.to_string();
            true
        }
        Some(Value::String(s)) if !secret => mask_string(s),
        _ => false,
    }
}

/// One annotation value: JSON inside it walked, else its shapes masked.
fn mask_annotation(s: &mut String) -> bool {
    let trimmed = s.trim();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(mut inner) = serde_json::from_str::<Value>(trimmed) {
            if !walk(&mut inner, None) {
                return false;
            }
            let newline = if s.ends_with('\n') { "\n" } else { "" };
            *s = format!("{inner}{newline}");
            return true;
        }
    }
    mask_string(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn free_text_credentials_are_masked_and_every_other_value_is_kept() {
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJl";
        let applied = json!({"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": "app",
            "env": [{"name": "DB_PASSWORD", "value": "hunter2"}]}]}}}})
        .to_string()
            + "\n";
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-0", "namespace": "media", "uid": "0b9f-4c", "resourceVersion": "81234",
                "labels": {"app": "web"},
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": applied,
                    "example.com/webhook": "https://robot:hunter2pw@hooks.example.com/x", "example.com/team": "media"}},
            "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "ghcr.io/org/app:1.2@sha256:0a1b",
                "command": ["/run", "--password=hunter2"], "args": ["--listen=:8080"],
                "env": [{"name": "API_TOKEN", "value": "t0k-abc"}, {"name": "LOG_LEVEL", "value": "debug"},
                        {"name": "UPSTREAM", "value": "https://u:p4ss@up:8443"},
                        {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}],
                "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}]},
            "status": {"conditions": [{"type": "Ready", "status": "False",
                "message": format!("probe got 401 for Authorization: Bearer {jwt}")}]}});
        let before = pod.clone();
        assert!(mask_object(&mut pod));
        let annotations = &pod["metadata"]["annotations"];
        assert_eq!(
            annotations["kubectl.kubernetes.io/last-applied-configuration"],
            json!({"kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"name": "app",
                "env": [{"name": "DB_PASSWORD", "value": "***"}]}]}}}})
            .to_string()
                + "\n"
        );
        assert_eq!(annotations["example.com/webhook"], "https://robot:***@hooks.example.com/x");
        let c = &pod["spec"]["containers"][0];
        assert_eq!(c["command"], json!(["/run", "--password=***"]));
        assert_eq!(
            c["env"],
            json!([{"name": "API_TOKEN", "value": "***"}, {"name": "LOG_LEVEL", "value": "debug"},
                   {"name": "UPSTREAM", "value": "https://u:***@up:8443"},
                   {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}])
        );
        assert_eq!(pod["status"]["conditions"][0]["message"], "probe got 401 for Authorization: Bearer ***");
        // Everything else exactly as it was.
        for ptr in [
            "/metadata/name",
            "/metadata/namespace",
            "/metadata/uid",
            "/metadata/resourceVersion",
            "/metadata/labels",
            "/metadata/annotations/example.com~1team",
            "/spec/nodeName",
            "/spec/containers/0/image",
            "/spec/containers/0/args",
            "/spec/containers/0/resources",
            "/status/conditions/0/type",
        ] {
            assert_eq!(pod.pointer(ptr), before.pointer(ptr), "{ptr}");
        }
        // Nothing to mask: nothing changes, not even an annotation's JSON layout.
        let mut plain = json!({"kind": "Event", "message": "0/2 nodes are available: 2 Insufficient cpu.",
            "metadata": {"annotations": {"a": "{ \"x\" : 1 }"}}});
        let copy = plain.clone();
        assert!(!mask_object(&mut plain));
        assert_eq!(plain, copy);
    }
}
