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
//!   ([`kdrift_rebalance::mask_patterns`]); in such a list, the item after
//!   a flag named like a secret is masked whole (`["--token", "***"]`) and
//!   the password of the item after `-u`/`--user` (`["-u", "bob:***"]`)
//!   ([`kdrift_rebalance::mask_flag_argument`]);
//! - every `env` entry: its whole `value` when its `name` is a secret's
//!   ([`secret_name`]: `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*PASSWD*`,
//!   `*KEY*`, `*CREDENTIAL*`, `*PASSPHRASE*`, `PASS`, `AUTH`, `DB_PWD`),
//!   else the shapes in it; a probe's `httpHeaders` entry likewise, by
//!   its header name (`Authorization`, `Cookie`, `X-Api-Key`…);
//! - every annotation value: the shapes in it, or, when it holds JSON (as
//!   `kubectl.kubernetes.io/last-applied-configuration` does), the same
//!   rules inside that JSON, plus every string there masked by shape and a
//!   secret-named key's value whole (rewritten only when something was
//!   masked);
//! - every other string field but the identity ones (`IDENTITY_FIELDS`:
//!   names, uids, resourceVersions, images, node names, timestamps): the
//!   shapes in it (a probe's `path: /x?token=…`, a status `reason`), or
//!   its whole value when the field is named like a secret
//!   ([`kdrift_rebalance::secret_named`]: `password`, `adminPassword`,
//!   `clientSecret`, `token`; not `secretName`, `tokenTTL`), unless it is
//!   empty, `true` or `false`, in any kind;
//! - every annotation or label value, whole, whose key (its name after the
//!   last `/`) is named like a secret ([`kdrift_rebalance::secret_named`]:
//!   `secret`, `db-password`, `api-key`, `example.com/token`; not
//!   `token-ttl`, `secret-name`), on any kind, unless it is empty, `true`
//!   or `false`;
//! - every string and key of the object, whatever its field: each
//!   credential kdrift holds (the kubeconfig's token or password,
//!   VictoriaLogs' header values: [`kdrift_rebalance::held_in_records`]) in
//!   every form the [`kdrift_rebalance::Redactor`] knows (raw, base64, hex,
//!   URL-encoded, JSON-escaped), as a server that echoes it in an Event's
//!   message, a label or an annotation would store it (issue 34). Nothing
//!   held (files only): this pass is skipped.
//!
//! Names, images, node names, uids, resourceVersions, labels, quantities
//! and every other field stay exactly as they were, unless they hold a
//! held credential (a server echoing the token into a name): the object is
//! masked before its identity is read ([`crate::prepare::prepare`]), so
//! the name is stored masked everywhere. A held value under 8 characters
//! is never looked for here, one under 16 only as a whole token
//! ([`kdrift_rebalance::Redactor::for_records`]): a password `2026` must
//! not mask every timestamp. Secrets themselves are
//! never stored at all (`kdrift_ingest`'s `parse::NOT_KEPT_KINDS`, and
//! [`crate::prepare::prepare`] refuses one whatever its source).

use kdrift_rebalance::{held_in_records, mask_flag_argument, mask_patterns, secret_named, MASK};
use serde_json::Value;

/// Whether an environment variable named `name` holds a secret (any case).
/// Words anywhere in the name: `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`,
/// `KEY` (`APIKEY`, `PRIVATE_KEY`), `CREDENTIAL`, `PASSPHRASE`; and as its
/// last `_`-separated word `PASS`, `AUTH` (`AUTH`, `BASIC_AUTH`; not
/// `AUTHOR`) or, after another word, `PWD` (`DB_PWD`; `PWD` alone is the
/// shell's working directory).
pub fn secret_name(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    if ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "PASSPHRASE"].iter().any(|w| name.contains(w)) {
        return true;
    }
    let words: Vec<&str> = name.split(['_', '-', '.']).filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        [.., last] if matches!(*last, "PASS" | "AUTH") => true,
        [_, .., last] => *last == "PWD",
        _ => false,
    }
}

/// HTTP header names whose value is a credential, lowercase (a probe's
/// `httpHeaders`).
const SECRET_HEADERS: [&str; 6] =
    ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token"];

/// Fields that name or identify (never free text): not pattern-masked, so
/// a name that happens to look like `key:value` stays exactly.
const IDENTITY_FIELDS: [&str; 11] = [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "image",
    "imageID",
    "nodeName",
    "generateName",
    "creationTimestamp",
    "kind",
    "apiVersion",
];

/// Masks the credentials in `object`'s free text (see the module doc);
/// true when anything changed.
pub fn mask_object(object: &mut Value) -> bool {
    // Held credentials first: they are known exactly, where a shape may
    // take only part of one (`token a/b+c=d` stops at `=`) and leave the
    // rest to be masked on its own (`******`).
    let held = held_in_records();
    let mut changed = !held.is_empty() && held.redact_json(object);
    changed |= walk(object, None);
    changed
}

fn walk(value: &mut Value, key: Option<&str>) -> bool {
    match (key, value) {
        (Some("message" | "note"), Value::String(s)) => mask_string(s),
        (Some("args" | "command"), Value::Array(items)) => {
            let mut changed = false;
            let mut flag: Option<String> = None;
            for item in items.iter_mut() {
                let Value::String(s) = item else {
                    flag = None;
                    continue;
                };
                let next_flag = s.starts_with('-').then(|| s.clone());
                match flag.as_deref().and_then(|f| mask_flag_argument(f, s)) {
                    Some(masked) => {
                        *s = masked;
                        changed = true;
                    }
                    None => changed |= mask_string(s),
                }
                flag = next_flag;
            }
            changed
        }
        (Some("labels"), Value::Object(map)) => {
            let mut changed = false;
            for (k, v) in map.iter_mut() {
                if let Value::String(s) = v {
                    changed |= mask_secret_named(k, s);
                }
            }
            changed
        }
        (Some("httpHeaders"), Value::Array(entries)) => {
            let mut changed = false;
            for entry in entries.iter_mut() {
                changed |= mask_header(entry);
            }
            changed
        }
        // A field named like a secret, in any kind (a CertificateSigningRequest's
        // `spec.password`, an operator's `adminPassword`): its value whole, as
        // inside an annotation's JSON (break-it 40 F6: only its shape was looked at).
        (Some(k), Value::String(s)) if !IDENTITY_FIELDS.contains(&k) && secret_named(k) => mask_secret_named_value(s),
        (Some(k), Value::String(s)) if !IDENTITY_FIELDS.contains(&k) => mask_string(s),
        (Some("env"), Value::Array(entries)) => {
            let mut changed = false;
            for entry in entries.iter_mut() {
                changed |= mask_env(entry);
            }
            changed
        }
        (Some("annotations"), Value::Object(map)) => {
            let mut changed = false;
            for (k, v) in map.iter_mut() {
                if let Value::String(s) = v {
                    changed |= mask_secret_named(k, s) || mask_annotation(s);
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

/// Masks the shapes in `s`; true when it changed.
fn mask_string(s: &mut String) -> bool {
    let masked = mask_patterns(s);
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

/// One probe header (`{"name": …, "value": …}`): its whole `value` when
/// its name is a credential header's ([`SECRET_HEADERS`]) or named like a
/// secret, else the shapes in it.
fn mask_header(entry: &mut Value) -> bool {
    let Some(map) = entry.as_object_mut() else { return false };
    let secret = map.get("name").and_then(Value::as_str).is_some_and(|n| {
        SECRET_HEADERS.contains(&n.to_ascii_lowercase().as_str()) || secret_named(n) || secret_name(n)
    });
    match map.get_mut("value") {
        Some(Value::String(s)) if secret && !s.is_empty() && s != MASK => {
            *s = MASK.to_string();
            true
        }
        Some(Value::String(s)) if !secret => mask_string(s),
        _ => false,
    }
}

/// Inside JSON held in a string: every string value masked whole when its
/// key is named like a secret, else its shapes masked.
fn mask_inner_json(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let mut changed = false;
            for (k, v) in map.iter_mut() {
                changed |= match v {
                    Value::String(s) if secret_named(k) || k.eq_ignore_ascii_case("auth") => mask_secret_named_value(s),
                    Value::String(_) if IDENTITY_FIELDS.contains(&k.as_str()) => false,
                    Value::String(s) => mask_string(s),
                    _ => mask_inner_json(v),
                };
            }
            changed
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| mask_inner_json(item) | changed),
        Value::String(s) => mask_string(s),
        _ => false,
    }
}

/// A value masked whole unless it is empty, `true` or `false`.
fn mask_secret_named_value(value: &mut String) -> bool {
    if matches!(value.as_str(), "" | "true" | "false" | MASK) {
        return false;
    }
    *value = MASK.to_string();
    true
}

/// An annotation or label value masked whole when its key is named like a
/// secret (see the module doc); true when it changed.
fn mask_secret_named(key: &str, value: &mut String) -> bool {
    let name = key.rsplit('/').next().unwrap_or(key);
    if !secret_named(name) || matches!(value.as_str(), "" | "true" | "false" | MASK) {
        return false;
    }
    *value = MASK.to_string();
    true
}

/// One annotation value: JSON inside it walked, else its shapes masked.
fn mask_annotation(s: &mut String) -> bool {
    let trimmed = s.trim();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(mut inner) = serde_json::from_str::<Value>(trimmed) {
            let walked = walk(&mut inner, None);
            if !(mask_inner_json(&mut inner) | walked) {
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

    /// Issue 34 A: a credential kdrift holds, echoed bare (no `Bearer`) by
    /// a server in any field, in any form, was stored as is.
    #[test]
    fn a_held_credential_is_masked_in_every_string_and_key_in_every_form() {
        use base64::Engine;
        const TOKEN: &str = "rm-held-7Qx2pL9vK3wZ8";
        kdrift_rebalance::hold([TOKEN]);
        let b64 = base64::engine::general_purpose::STANDARD.encode(TOKEN);
        let hex: String = TOKEN.bytes().map(|b| format!("{b:02x}")).collect();
        let url: String = TOKEN.bytes().map(|b| format!("%{b:02X}")).collect();
        let json_escaped: String = TOKEN.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
        let fs = "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available";
        let mut event = json!({"kind": "Event", "metadata": {"name": "web-0.17a", "uid": "5e1c-77d0",
                "labels": {"leak": TOKEN, TOKEN: "x"},
                "annotations": {"echo": format!("got {b64} back"), "hex": hex, "url": format!("t={url}"),
                    "json": format!("{{\"t\":\"{json_escaped}\"}}")}},
            "involvedObject": {"name": "web-0", "uid": "0b9f-4c"},
            "message": format!("webhook answered 401 for token {TOKEN} on node-1"),
            "reason": TOKEN, "related": [TOKEN, fs]});
        assert!(mask_object(&mut event));
        let text = event.to_string();
        for form in [TOKEN, &b64, &hex, &url, &json_escaped] {
            assert!(!text.contains(form), "{form} in {text}");
        }
        assert_eq!(event["message"], "webhook answered 401 for token *** on node-1");
        assert_eq!(event["metadata"]["labels"], json!({"leak": "***", "***": "x"}));
        assert_eq!(event["metadata"]["annotations"]["echo"], "got *** back");
        assert_eq!(event["metadata"]["annotations"]["url"], "t=***");
        assert_eq!(event["reason"], "***");
        assert_eq!(event["related"], json!(["***", fs]));
        // Neighbours kept.
        assert_eq!(event["metadata"]["name"], "web-0.17a");
        assert_eq!(event["metadata"]["uid"], "5e1c-77d0");
        assert_eq!(event["involvedObject"], json!({"name": "web-0", "uid": "0b9f-4c"}));
    }

    /// Break-it (issue 34) HIGH 2 and 3: a held `sha256~HELD…` masked first
    /// left the rest of a longer foreign token sharing its beginning; a
    /// short held value (a password `2026`, a header value `100m`) masked
    /// every timestamp and cpu request.
    #[test]
    fn a_held_value_masks_a_longer_token_whole_and_a_short_one_no_data() {
        const HELD: &str = "sha256~HELDt0kenQwErTy1234567";
        kdrift_rebalance::hold([HELD, "2026", "100m"]);
        let foreign = format!("{HELD}FOREIGNtok9xyz8765abcdefgh");
        let mut event = json!({"kind": "Event",
            "metadata": {"name": "e1", "namespace": "default", "creationTimestamp": "2026-11-27T10:00:00Z"},
            "message": format!("retry with Bearer {foreign} failed"),
            "related": [format!("token={foreign}"), format!("curl -H 'Authorization: Bearer {foreign}'")],
            "firstTimestamp": "2026-11-27T10:00:00Z", "count": 2026});
        assert!(mask_object(&mut event));
        assert_eq!(event["message"], "retry with Bearer *** failed");
        assert_eq!(event["related"], json!(["token=***", "curl -H 'Authorization: Bearer ***'"]));
        assert_eq!(event["firstTimestamp"], "2026-11-27T10:00:00Z");
        assert_eq!(event["metadata"]["creationTimestamp"], "2026-11-27T10:00:00Z");
        let mut pod = json!({"kind": "Pod", "metadata": {"name": "web-2026", "namespace": "default",
                "creationTimestamp": "2026-11-27T10:00:00Z", "labels": {"year": "2026"}},
            "spec": {"containers": [{"name": "c", "image": "img:2026",
                "resources": {"requests": {"cpu": "100m", "memory": "2026Mi"}}}]}});
        let before = pod.clone();
        assert!(!mask_object(&mut pod));
        assert_eq!(pod, before);
    }

    /// Issue 34 B: shapes in records that were stored as they came (each
    /// masked), next to near misses that must stay.
    #[test]
    fn secret_named_keys_flag_arguments_and_new_shapes_are_masked_in_records() {
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";
        let mut node = json!({"kind": "Node", "metadata": {"name": "node-1", "uid": "7d0e-11",
            "labels": {"kubernetes.io/hostname": "node-1", "example.com/token": "t0k3n", "app": "web"},
            "annotations": {"secret": "s3cr3t-value", "example.com/api-key": "k-123", "db-password": "pw",
                "example.com/token-ttl": "30s", "vault.hashicorp.com/agent-inject-token": "true",
                "example.com/secret-name": "db-creds", "example.com/tls": pem,
                "node.alpha.kubernetes.io/ttl": "0"}},
            "spec": {"containers": [{"name": "c", "image": "ghcr.io/o/a@sha256:0a1b2c3d",
                "command": ["mysql", "-uroot", "-pS3cret!", "-p3306"],
                "args": ["--token", "abc123", "--token-ttl", "30s", "-u", "bob:pw", "--port", "8080", "-p", "9090",
                    "--password", "--verbose", "--cookie-file=/x"]}]},
            "status": {"conditions": [{"type": "Ready",
                "message": "sent Authorization: Token 9f8e7d; webhook said Cookie: sid=abc; x=y"}]}});
        let before = node.clone();
        assert!(mask_object(&mut node));
        assert_eq!(
            node["metadata"]["labels"],
            json!({"kubernetes.io/hostname": "node-1", "example.com/token": "***", "app": "web"})
        );
        let a = &node["metadata"]["annotations"];
        for (key, want) in [
            ("secret", "***"),
            ("example.com/api-key", "***"),
            ("db-password", "***"),
            ("example.com/token-ttl", "30s"),
            ("vault.hashicorp.com/agent-inject-token", "true"),
            ("example.com/secret-name", "db-creds"),
            ("example.com/tls", "-----BEGIN PRIVATE KEY-----***-----END PRIVATE KEY-----\n"),
            ("node.alpha.kubernetes.io/ttl", "0"),
        ] {
            assert_eq!(a[key], want, "{key}");
        }
        let c = &node["spec"]["containers"][0];
        assert_eq!(c["command"], json!(["mysql", "-uroot", "-p***", "-p3306"]));
        assert_eq!(
            c["args"],
            json!([
                "--token",
                "***",
                "--token-ttl",
                "30s",
                "-u",
                "bob:***",
                "--port",
                "8080",
                "-p",
                "9090",
                "--password",
                "--verbose",
                "--cookie-file=/x"
            ])
        );
        assert_eq!(
            node["status"]["conditions"][0]["message"],
            "sent Authorization: Token ***; webhook said Cookie: ***"
        );
        for ptr in ["/metadata/name", "/metadata/uid", "/spec/containers/0/image", "/status/conditions/0/type"] {
            assert_eq!(node.pointer(ptr), before.pointer(ptr), "{ptr}");
        }
    }

    /// Issue 34 (break-it `mkmask.py`): env names, probe headers, JSON in
    /// an annotation and other string fields that stored credentials as
    /// they came; near misses kept.
    #[test]
    fn env_names_probe_headers_annotation_json_and_other_fields_are_masked() {
        for name in ["PASS", "AUTH", "DB_PWD", "BASIC_AUTH", "SSH_PASSPHRASE", "GPG_PRIVATE_KEY", "STRIPE_APIKEY"] {
            assert!(secret_name(name), "{name}");
        }
        for name in ["AUTHOR", "PWD", "PATH", "AUTH_URL", "PASSENGERS", "COMPASS", "LOG_LEVEL"] {
            assert!(!secret_name(name), "{name}");
        }
        let cfg = json!({"password": "Ann7qPw93a1", "url": "https://u:Ann7qPw93a2@h/x", "msg": "Bearer Ann7qPw93a3",
            "name": "web", "replicas": 3, "auth": "", "nested": [{"apiToken": "t-9f8e7d6c"}]});
        let mut pod = json!({"kind": "Pod", "metadata": {"name": "pp", "resourceVersion": "900",
                "annotations": {"cfg": cfg.to_string()}},
            "spec": {"containers": [{"name": "c", "image": "ghcr.io/o/a@sha256:0a1b",
                "readinessProbe": {"httpGet": {"path": "/x?token=Ann7qPw93b5", "httpHeaders": [
                    {"name": "Authorization", "value": "Bearer Ann7qPw93a9"},
                    {"name": "X-Api-Key", "value": "k"}, {"name": "Accept", "value": "application/json"}]}},
                "env": [{"name": "PASS", "value": "p"}, {"name": "AUTHOR", "value": "jane"}]}]},
            "status": {"phase": "Running", "reason": "password=Ann7qPw93b6", "startTime": "2026-11-27T10:00:00Z"}});
        assert!(mask_object(&mut pod));
        let inner: Value =
            serde_json::from_str(pod["metadata"]["annotations"]["cfg"].as_str().expect("cfg")).expect("json");
        assert_eq!(
            inner,
            json!({"password": "***", "url": "https://u:***@h/x", "msg": "Bearer ***", "name": "web", "replicas": 3,
                "auth": "", "nested": [{"apiToken": "***"}]})
        );
        let c = &pod["spec"]["containers"][0];
        assert_eq!(c["readinessProbe"]["httpGet"]["path"], "/x?token=***");
        assert_eq!(
            c["readinessProbe"]["httpGet"]["httpHeaders"],
            json!([{"name": "Authorization", "value": "***"}, {"name": "X-Api-Key", "value": "***"},
                {"name": "Accept", "value": "application/json"}])
        );
        assert_eq!(c["env"], json!([{"name": "PASS", "value": "***"}, {"name": "AUTHOR", "value": "jane"}]));
        assert_eq!(c["image"], "ghcr.io/o/a@sha256:0a1b");
        assert_eq!(
            pod["status"],
            json!({"phase": "Running", "reason": "password=***", "startTime": "2026-11-27T10:00:00Z"})
        );
        assert_eq!(pod["metadata"]["resourceVersion"], "900");
    }
}
