//! Pre-flight probes: before evicting a pod, ask the application whether it
//! is in use (a Plex stream, a game session) and leave it alone if so.
//!
//! A probe is `SELECTOR=URL` (`--probe 'app=plex=http://plex.media:32400/status/sessions#/MediaContainer/size'`):
//! every planned pod whose labels match the label selector (`app=plex`,
//! `app in (plex,jellyfin),tier!=test`) is probed right before its eviction.
//! In the URL, `{namespace}` and `{name}` are replaced by the pod's.
//!
//! The contract (HTTP GET, `Accept: application/json`, 5 s timeout):
//! - the answer must be 2xx with a JSON body;
//! - the value looked at is the URL's fragment as a JSON pointer
//!   (`#/MediaContainer/size`; the fragment is not sent), else the body's
//!   `active`, else `sessions`, else `count` field, else the body itself;
//! - `true`, a number > 0, a non-empty list or a non-empty object means
//!   **in use** (skip the pod); `false`, `0`, `[]`, `{}` or `null` means idle
//!   (evict);
//! - anything else — another status, not JSON, no such field, a string, no
//!   answer — means kdrift cannot tell, and the pod is treated as in use
//!   (skipped, with the reason): a probe never causes an eviction it cannot
//!   justify.
//!
//! - [`target`]: the URL filled for one pod: a pod whose name is not a
//!   Kubernetes name (RFC 1123) is not probed; `{name}` and `{namespace}`
//!   are percent-encoded in the path and query (break-it 31 F4);
//! - [`http`]: the probes' HTTP client and [`ask`]: no `Referer`, redirects
//!   followed to the same origin only, one to another origin is the
//!   probe's answer, not followed (break-it 31 F3).

pub mod http;
pub mod target;

use std::time::Duration;

use serde_json::Value;

pub use http::{ask, http_client};

use crate::policy::StringSelector;

/// The probe request timeout.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// A bad `--probe` value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// No `=http://` or `=https://` separating the selector from the URL.
    #[error("expected SELECTOR=URL with an http:// or https:// URL (e.g. app=plex=http://plex.media:32400/status/sessions), got {0:?}")]
    Shape(String),
    /// The selector does not parse.
    #[error("probe selector {selector:?}: {message}")]
    Selector {
        /// The selector text.
        selector: String,
        /// The parser's message.
        message: String,
    },
}

/// One probe: a label selector and the URL asked for the pods it selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The selector.
    pub selector: StringSelector,
    /// The URL (may contain `{namespace}` and `{name}`), fragment included.
    pub url: String,
}

impl Probe {
    /// Parses `SELECTOR=URL`.
    ///
    /// # Errors
    /// [`ProbeError`] naming what is wrong.
    pub fn parse(spec: &str) -> Result<Probe, ProbeError> {
        let at = ["=http://", "=https://"]
            .iter()
            .filter_map(|sep| spec.find(sep))
            .min()
            .ok_or_else(|| ProbeError::Shape(spec.to_string()))?;
        let (selector, url) = (&spec[..at], &spec[at + 1..]);
        if selector.trim().is_empty() {
            return Err(ProbeError::Shape(spec.to_string()));
        }
        let selector = StringSelector::parse(selector, "probe")
            .map_err(|e| ProbeError::Selector { selector: selector.to_string(), message: e.to_string() })?;
        // A token in the URL (`?X-Plex-Token=…`, `user:password@`) is held:
        // masked in every report, record and log line that names the probe.
        let mut secrets = Vec::new();
        crate::cluster::credentials::url_secrets(url, &mut secrets);
        crate::redact::hold(secrets);
        Ok(Probe { selector, url: url.to_string() })
    }

    /// The text as given, with the credentials its URL carries masked.
    pub fn spec(&self) -> String {
        crate::redact::held().redact(&format!("{}={}", self.selector.text, self.url))
    }

    /// The URL asked for one pod, as reports show it (credentials masked);
    /// the URL as given (placeholders unfilled) when the pod's name or
    /// namespace cannot be put in it ([`Probe::target`]).
    pub fn shown_target(&self, namespace: &str, name: &str) -> String {
        let url = match self.target(namespace, name) {
            Ok((url, _)) => url,
            Err(_) => self.url.split_once('#').map_or(self.url.as_str(), |(u, _)| u).to_string(),
        };
        crate::redact::held().redact(&url)
    }

    /// The URL for one pod: placeholders filled (`target::fill`),
    /// fragment split off as the JSON pointer.
    ///
    /// # Errors
    /// Why the pod is not probed (its name or namespace is no Kubernetes
    /// name: a hostile server's `127.0.0.1:9/?` would move the host),
    /// credentials masked.
    pub fn target(&self, namespace: &str, name: &str) -> Result<(String, Option<String>), String> {
        let url = target::fill(&self.url, namespace, name)?;
        Ok(match url.split_once('#') {
            Some((u, pointer)) => (u.to_string(), Some(pointer.to_string())),
            None => (url, None),
        })
    }
}

/// What a probe said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeAnswer {
    /// Nobody is using the pod: it may be evicted.
    Idle,
    /// In use, with the value seen (`active: true`, `sessions: 2`).
    InUse(String),
    /// Cannot tell (treated as in use), with why.
    Unknown(String),
}

/// Interprets an answer per the module's contract. Pure.
pub fn interpret(status: u16, body: &str, pointer: Option<&str>) -> ProbeAnswer {
    if !(200..300).contains(&status) {
        return ProbeAnswer::Unknown(format!("HTTP {status}"));
    }
    let doc: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => return ProbeAnswer::Unknown(format!("the answer is not JSON ({e})")),
    };
    let (what, value) = match pointer {
        Some(p) => match doc.pointer(p) {
            Some(v) => (p.to_string(), v),
            None => return ProbeAnswer::Unknown(format!("the answer has nothing at {p}")),
        },
        None => match ["active", "sessions", "count"].iter().find_map(|k| doc.get(*k).map(|v| (*k, v))) {
            Some((k, v)) => (k.to_string(), v),
            None => ("the answer".to_string(), &doc),
        },
    };
    match value {
        Value::Null | Value::Bool(false) => ProbeAnswer::Idle,
        Value::Bool(true) => ProbeAnswer::InUse(format!("{what}: true")),
        Value::Number(n) => match n.as_f64() {
            Some(x) if x > 0.0 => ProbeAnswer::InUse(format!("{what}: {n}")),
            Some(_) => ProbeAnswer::Idle,
            None => ProbeAnswer::Unknown(format!("{what}: {n} is not a count")),
        },
        Value::Array(a) if a.is_empty() => ProbeAnswer::Idle,
        Value::Array(a) => ProbeAnswer::InUse(format!("{what}: {} item(s)", a.len())),
        Value::Object(m) if m.is_empty() => ProbeAnswer::Idle,
        Value::Object(_) if what == "the answer" => {
            ProbeAnswer::Unknown("the answer has no active, sessions or count field".to_string())
        }
        Value::Object(m) => ProbeAnswer::InUse(format!("{what}: {} field(s)", m.len())),
        Value::String(s) => ProbeAnswer::Unknown(format!("{what}: {s:?} is neither a boolean nor a count")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_in_a_probe_url_is_held_shown_masked_and_still_sent() {
        let p = Probe::parse(
            "app=plex=http://127.0.0.1:32400/status/sessions?X-Plex-Token=PrObEtOkEn4321#/MediaContainer/size",
        )
        .expect("probe");
        assert_eq!(p.spec(), "app=plex=http://127.0.0.1:32400/status/sessions?X-Plex-Token=***#/MediaContainer/size");
        assert_eq!(p.shown_target("media", "plex-0"), "http://127.0.0.1:32400/status/sessions?X-Plex-Token=***");
        assert_eq!(
            p.target("media", "plex-0").expect("valid").0,
            "http://127.0.0.1:32400/status/sessions?X-Plex-Token=PrObEtOkEn4321"
        );
        assert!(!crate::redact::held().redact("sent PrObEtOkEn4321").contains("PrObEtOkEn4321"));
    }

    /// Break-it 32 N3: a bare token in the query (`?TOKEN`, no `=`) was
    /// shown in the skip messages and stored in the EvictionSkipped events.
    #[test]
    fn a_bare_query_token_in_a_probe_url_is_held_and_shown_masked() {
        let p = Probe::parse("app=web=http://127.0.0.1:50307/s?ProbeBareTok7Qz8Lp4Wm#/active").expect("probe");
        assert_eq!(p.spec(), "app=web=http://127.0.0.1:50307/s?***#/active");
        assert_eq!(p.shown_target("web", "web-0"), "http://127.0.0.1:50307/s?***");
        assert_eq!(p.target("web", "web-0").expect("valid").0, "http://127.0.0.1:50307/s?ProbeBareTok7Qz8Lp4Wm");
        assert_eq!(
            crate::redact::held().redact("skipped: probe ProbeBareTok7Qz8Lp4Wm said 500"),
            "skipped: probe *** said 500"
        );
    }

    /// Break-it 34 L4: a token in the probe URL's path (Telegram's
    /// `bot<id>:<secret>`) was printed whole in `sessions annotate`'s WHY column.
    #[test]
    fn a_token_in_a_probe_urls_path_is_held_and_shown_masked() {
        let url = "http://127.0.0.1:9/bot123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe";
        let p = Probe::parse(&format!("app=web={url}")).expect("probe");
        // Only the segment holding it is masked: the host, port and the
        // rest of the path are not secret (the run of token characters
        // around a match stops at a URL's `/`).
        assert_eq!(p.spec(), "app=web=http://127.0.0.1:9/***/getMe");
        assert_eq!(p.shown_target("web", "web-0"), "http://127.0.0.1:9/***/getMe");
        assert_eq!(
            crate::redact::held().redact(&format!("no answer from {url}: error sending request for url ({url})")),
            "no answer from http://127.0.0.1:9/***/getMe: error sending request for url (http://127.0.0.1:9/***/getMe)"
        );
        assert_eq!(p.target("web", "web-0").expect("valid").0, url);
        assert_eq!(
            crate::redact::held().redact("no answer from AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"),
            "no answer from ***"
        );
        let p = Probe::parse("app=web=http://127.0.0.1:9/api/v1/PathTokQ7h3k9q2w8e5x1/status?n=1").expect("probe");
        assert_eq!(p.shown_target("web", "web-0"), "http://127.0.0.1:9/api/v1/***/status?n=1");
    }

    #[test]
    fn parsing() {
        let p = Probe::parse("app=plex=http://plex.media:32400/status/sessions#/MediaContainer/size").expect("valid");
        assert_eq!(p.selector.text, "app=plex");
        assert_eq!(p.url, "http://plex.media:32400/status/sessions#/MediaContainer/size");
        let labels = |v: &str| -> crate::Labels { [("app".to_string(), v.to_string())].into_iter().collect() };
        assert!(p.selector.matches(&labels("plex")));
        assert!(!p.selector.matches(&labels("web")));
        assert_eq!(
            p.target("media", "plex-0"),
            Ok(("http://plex.media:32400/status/sessions".to_string(), Some("/MediaContainer/size".to_string())))
        );
        let q = Probe::parse("app in (a,b),tier!=x=https://{name}.{namespace}.svc/busy").expect("valid");
        assert_eq!(q.target("ns", "a-1").expect("valid").0, "https://a-1.ns.svc/busy");
        assert!(matches!(Probe::parse("app=plex"), Err(ProbeError::Shape(_))));
        assert!(matches!(Probe::parse("=http://x"), Err(ProbeError::Shape(_))));
        assert!(matches!(Probe::parse("app in (a=http://x"), Err(ProbeError::Selector { .. })));
    }

    #[test]
    fn the_contract() {
        use ProbeAnswer::*;
        assert_eq!(interpret(200, r#"{"active": false}"#, None), Idle);
        assert_eq!(interpret(200, r#"{"active": true}"#, None), InUse("active: true".into()));
        assert_eq!(interpret(200, r#"{"sessions": 2}"#, None), InUse("sessions: 2".into()));
        assert_eq!(interpret(200, r#"{"count": 0, "active": null}"#, None), Idle, "active wins, null is idle");
        assert_eq!(interpret(200, "3", None), InUse("the answer: 3".into()));
        assert_eq!(interpret(200, "[]", None), Idle);
        assert_eq!(interpret(200, r#"[{"user": "a"}]"#, None), InUse("the answer: 1 item(s)".into()));
        assert_eq!(
            interpret(200, r#"{"MediaContainer": {"size": 1}}"#, Some("/MediaContainer/size")),
            InUse("/MediaContainer/size: 1".into())
        );
        assert_eq!(interpret(200, r#"{"MediaContainer": {"size": 0}}"#, Some("/MediaContainer/size")), Idle);
        // Cannot tell: treated as in use by the executor.
        assert!(matches!(interpret(503, r#"{"active": false}"#, None), Unknown(m) if m == "HTTP 503"));
        assert!(matches!(interpret(200, "<xml/>", None), Unknown(_)));
        assert!(matches!(interpret(200, r#"{"status": "ok"}"#, None), Unknown(_)));
        assert!(matches!(interpret(200, r#"{"active": "yes"}"#, None), Unknown(_)));
        assert!(matches!(interpret(200, "{}", Some("/x")), Unknown(_)));
    }
}
