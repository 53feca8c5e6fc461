//! [`ClusterError`]: what went wrong talking to a cluster, naming the
//! kubeconfig, the resource and URL path, and the server's own message.
//! The server's words are redacted when an error is built, with every
//! credential the process holds ([`crate::redact::held`], filled when the
//! configuration is resolved, [`super::credentials`]): an error `Status`
//! may echo the request's `Authorization` header.

use kube::config::{InClusterError, KubeconfigError};

use crate::redact::held;

/// kube's kubeconfig error with credential-shaped text masked, a path
/// unquoted (and left out when it is `location`, the file already named). A YAML
/// error is shown by its line, column and kind only: its source lines
/// (`token: …`, `client-key-data: …`, read before any credential could be
/// held) are left out, as no line masker knows every YAML form a
/// credential takes (a block scalar, the line after `token:`, `!!str`,
/// an anchor, a flow map, a complex key: break-it 31 F8).
fn masked(cause: &KubeconfigError, location: Option<&str>) -> String {
    let text = match cause {
        KubeconfigError::Parse(yaml) => {
            let kind = yaml.without_snippet().to_string();
            // Only its first line: nothing after it is the error's own words.
            format!("failed to parse kubeconfig YAML: {}", kind.lines().next().unwrap_or_default())
        }
        // kube writes the path as '{:?}' (`'"/root/.kube/config"'`): plainly,
        // and not again after `kubeconfig PATH: ` ([`ClusterError::Kubeconfig`]).
        KubeconfigError::ReadConfig(io, path) if location == Some(path.display().to_string().as_str()) => {
            format!("failed to read it: {io}")
        }
        KubeconfigError::ReadConfig(io, path) => format!("failed to read kubeconfig from {}: {io}", path.display()),
        // The name, from the kubeconfig, is never quoted (break-it 40 F7:
        // `current-context: <the token>` echoed it); `--context`'s, the
        // user's own flag, is (`super::connect`, `unquoted`).
        KubeconfigError::LoadContext(name) if name.is_empty() => "the context its current-context names is not \
            among its contexts (the name is not shown: a kubeconfig's values may be credentials)"
            .to_string(),
        KubeconfigError::LoadContext(name) => format!("it has no context named {name} (--context)"),
        KubeconfigError::LoadClusterOfContext(_) => "the cluster the context names is not among its clusters (the \
            name is not shown: a kubeconfig's values may be credentials)"
            .to_string(),
        other => other.to_string(),
    };
    crate::redact::mask_dumps(&crate::redact::mask_patterns(&text))
}

/// Failures of `super::connect`, `super::list` and [`super::watch()`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// The kubeconfig could not be read, or lacks the context / cluster.
    #[error("kubeconfig {location}: {}", masked(cause, Some(location)))]
    Kubeconfig {
        /// The file (or `KUBECONFIG=…` / `~/.kube/config`).
        location: String,
        /// kube's error, in the message (not a `source`: `{:#}` printed it twice).
        cause: KubeconfigError,
    },
    /// Neither a kubeconfig nor an in-cluster service account was found.
    #[error(
        "no cluster configuration: no kubeconfig ({}) and not running in a pod ({in_cluster}); \
         pass --kubeconfig or set KUBECONFIG",
        masked(kubeconfig, None)
    )]
    NoConfiguration {
        /// Why the kubeconfig could not be used.
        kubeconfig: KubeconfigError,
        /// Why the in-cluster configuration could not be used.
        in_cluster: Box<InClusterError>,
    },
    /// The kubeconfig user's `exec` credential plugin is missing, failed,
    /// or printed no usable `ExecCredential` (`super::exec`).
    #[error("kubeconfig user {user}: the exec credential plugin {command} {problem}")]
    ExecPlugin {
        /// The kubeconfig user (`users[].name`).
        user: String,
        /// Its `command` (never its arguments: they may hold a credential).
        command: String,
        /// What went wrong (a failing plugin's stderr redacted).
        problem: String,
    },
    /// The bearer token (the kubeconfig's `token`, or an exec plugin's)
    /// holds a character an HTTP header cannot carry (a stray line break):
    /// refused before any request (the HTTP stack would panic on it).
    #[error("kubeconfig user {user}: the bearer token {problem}")]
    BadToken {
        /// The kubeconfig user (`users[].name`).
        user: String,
        /// What is wrong, never the token.
        problem: String,
    },
    /// A kubeconfig user whose `auth-provider: gcp` runs a command
    /// (`cmd-path`, gcloud's form before gke-gcloud-auth-plugin): kube runs
    /// it out of kdrift's sight, so its token could not be held and masked
    /// (break-it 44 P1: a server's echo of it was printed and stored raw).
    /// kubectl 1.26+ refuses the gcp provider whatever its config.
    #[error(
        "kubeconfig user {user}: auth-provider gcp with cmd-path is not supported (kubectl removed the gcp auth \
         provider in 1.26): use the gke-gcloud-auth-plugin exec plugin (`gcloud components install \
         gke-gcloud-auth-plugin`, then `gcloud container clusters get-credentials`)"
    )]
    GcpCommand {
        /// The kubeconfig user (`users[].name`).
        user: String,
    },
    /// A kubeconfig cluster's `server:` or proxy URL refused before any
    /// request (`url_check::problem`: a port that is no port, which
    /// would send the credentials to port 80 of the host; a `/` before the
    /// `@`), shown with its password masked (break-it 43 N2, N4).
    #[error("{origin} is {url}: {problem}")]
    BadUrl {
        /// Where the URL was set (`the server of cluster c in kubeconfig FILE`, `HTTPS_PROXY`).
        origin: String,
        /// The URL, its password masked and its query left out.
        url: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A `socks5://` proxy (a kubeconfig cluster's `proxy-url`, or
    /// `HTTPS_PROXY` without one) with a user and password: kube's SOCKS5
    /// client greets the proxy with no authentication only, so they would
    /// be dropped silently (break-it 40 F9). Refused before any request.
    #[error(
        "{origin} is {proxy}: a SOCKS5 proxy with a user and password, which kdrift cannot send (its SOCKS5 \
         client offers no authentication, so the proxy would refuse it or let it through unauthenticated); \
         expected a socks5:// proxy that needs no credentials, or an http:// or https:// proxy (their user and \
         password are sent as Proxy-Authorization)"
    )]
    SocksCredentials {
        /// Where the proxy URL was set (`the proxy-url of the context's cluster in FILE`, `HTTPS_PROXY`).
        origin: String,
        /// The proxy URL, its password masked (`socks5://user:***@host:1080`).
        proxy: String,
    },
    /// The kubeconfig's `tokenFile` (or the in-cluster service account's
    /// token) could not be read before the first request, or holds no
    /// usable token (`super::exec::refresh`).
    #[error("the token file {path}: {cause}")]
    TokenFile {
        /// The file.
        path: String,
        /// What went wrong (an I/O error, `it is empty`).
        cause: String,
    },
    /// The HTTP client could not be built for the server.
    #[error("cannot build a client for {url}")]
    Client {
        /// The cluster URL.
        url: String,
        /// kube's error.
        #[source]
        source: kube::Error,
    },
    /// The request could not be built (invalid parameters).
    #[error("{resource}: cannot build the request for {path}: {source}")]
    Request {
        /// The resource, e.g. `pods` or `deployments.apps`.
        resource: String,
        /// The URL path.
        path: String,
        /// kube's error.
        #[source]
        source: kube::core::request::Error,
    },
    /// The server answered with an error `Status` (403, 404, 410, 429, 500…).
    #[error("{resource}: the server answered {code} {reason}: {message} ({path})")]
    Api {
        /// The resource, e.g. `pods`.
        resource: String,
        /// The URL path.
        path: String,
        /// HTTP status code (from the Status object, else the response).
        code: u16,
        /// The Status `reason` (`Forbidden`, `NotFound`, `Expired`, …), or
        /// `""`.
        reason: String,
        /// The Status `message`, as the server wrote it.
        message: String,
    },
    /// The connection failed or broke (refused, reset, TLS, timeout). The
    /// message carries kube's error and every cause under it, redacted
    /// ([`with_causes`]): kube's own words, "client error (Connect)", say
    /// nothing of a refused connection or of an untrusted certificate
    /// ("invalid peer certificate: UnknownIssuer", break-it 33 F10).
    #[error("{resource}: request to {path} failed: {}", with_causes(cause))]
    Transport {
        /// The resource.
        resource: String,
        /// The URL path.
        path: String,
        /// kube's error (in the message, not a `source`: `{:#}` printed
        /// its causes twice).
        cause: kube::Error,
    },
    /// The server answered with a redirect (3xx), not followed
    /// (`super::redirect`): its status and the `Location`'s origin.
    #[error("{resource}: {redirect} ({path})")]
    Redirected {
        /// The resource.
        resource: String,
        /// The URL path requested.
        path: String,
        /// The status and where it points.
        redirect: super::redirect::Redirected,
    },
    /// The server sent nothing for as long as kdrift waits
    /// ([`super::answer::Deadlines`]): it accepted the connection, then
    /// said nothing (or stopped in the middle of an answer).
    #[error(
        "{resource}: {server} sent nothing for {waited_seconds} s while kdrift waited for {waiting_for}; \
         given up ({path})"
    )]
    Timeout {
        /// The resource.
        resource: String,
        /// The server, as `shown_url` shows it (or `the server`).
        server: String,
        /// The URL path requested.
        path: String,
        /// How long kdrift waited, in seconds.
        waited_seconds: f64,
        /// What was awaited: `the list's answer`, `the next watch event`, ….
        waiting_for: &'static str,
    },
    /// A list page that kept coming, too slowly, for longer than
    /// [`super::answer::Deadlines::page`] (a byte a second never lets the
    /// request timeout between two pieces run out).
    #[error(
        "{resource}: {server} did not send one whole list page within {waited_seconds} s ({factor} × the request \
         timeout: it kept sending, too slowly); given up ({path})"
    )]
    TooSlow {
        /// The resource.
        resource: String,
        /// The server, as `shown_url` shows it (or `the server`).
        server: String,
        /// The URL path requested.
        path: String,
        /// The page bound, in seconds.
        waited_seconds: f64,
        /// The bound in request timeouts ([`super::answer::PAGE_BOUND_FACTOR`]).
        factor: u32,
    },
    /// One line of a watch stream that is not a watch event (not UTF-8, not
    /// JSON, no known `type`): skipped, the watch goes on with the next line.
    #[error(
        "{resource}: watch line {line} from {url} is {problem}; expected {WATCH_LINE_EXPECTED}; the line is skipped"
    )]
    BadEvent {
        /// The resource.
        resource: String,
        /// The URL watched (the server as `shown_url` shows it, and the path).
        url: String,
        /// The line's number in this watch response (1-based).
        line: u64,
        /// Which kind of bad line ([`BadEventKind`]).
        kind: BadEventKind,
        /// What the line is (`not UTF-8 (…)`, `not JSON (…)`, …).
        problem: String,
    },
    /// The server answered 2xx with a body that is not what the API promises.
    #[error("{resource}: unexpected response from {path}: {problem}")]
    Decode {
        /// The resource.
        resource: String,
        /// The URL path.
        path: String,
        /// What was wrong and what was expected.
        problem: String,
    },
}

/// What each line of a watch stream must be (the apiserver's watch protocol).
pub const WATCH_LINE_EXPECTED: &str =
    "one JSON watch event per line ({\"type\": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, \"object\": {…}})";

/// The kinds of bad watch lines, counted apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BadEventKind {
    /// Bytes that are not UTF-8.
    NotUtf8,
    /// Text that is not JSON.
    NotJson,
    /// JSON that is not a watch event (no known `type`, an `object` that is no object).
    NotAnEvent,
    /// An event longer than the cap ([`super::watch::WatchOptions::max_event_bytes`]), not held.
    TooLong,
}

impl BadEventKind {
    /// `not UTF-8`, `not JSON`, `not a watch event`, `too long`.
    pub fn as_str(self) -> &'static str {
        match self {
            BadEventKind::NotUtf8 => "not UTF-8",
            BadEventKind::NotJson => "not JSON",
            BadEventKind::NotAnEvent => "not a watch event",
            BadEventKind::TooLong => "too long",
        }
    }
}

impl ClusterError {
    /// Wraps a kube error for `resource` at `path`: an error `Status` becomes
    /// [`ClusterError::Api`], anything else [`ClusterError::Transport`].
    pub fn from_kube(resource: &str, path: &str, err: kube::Error) -> ClusterError {
        match err {
            kube::Error::Api(status) => ClusterError::status(resource, path, &status),
            kube::Error::SerdeError(e) => ClusterError::Decode {
                resource: resource.to_string(),
                path: path.to_string(),
                problem: held().redact(&format!("not JSON: {e}")),
            },
            // An exec plugin's renewal failed ([`super::exec::refresh`]): its own error.
            kube::Error::Service(e) if e.is::<ClusterError>() => match e.downcast::<ClusterError>() {
                Ok(plugin) => *plugin,
                Err(e) => ClusterError::Transport {
                    resource: resource.to_string(),
                    path: path.to_string(),
                    cause: kube::Error::Service(e),
                },
            },
            kube::Error::Service(e) if e.is::<super::redirect::Redirected>() => match e.downcast() {
                Ok(redirect) => ClusterError::Redirected {
                    resource: resource.to_string(),
                    path: path.to_string(),
                    redirect: *redirect,
                },
                Err(e) => ClusterError::Transport {
                    resource: resource.to_string(),
                    path: path.to_string(),
                    cause: kube::Error::Service(e),
                },
            },
            cause => ClusterError::Transport { resource: resource.to_string(), path: path.to_string(), cause },
        }
    }

    /// [`ClusterError::Api`] from an error `Status` about `resource` at
    /// `path`, its reason and message redacted.
    pub fn status(resource: &str, path: &str, status: &kube::core::Status) -> ClusterError {
        let redactor = held();
        ClusterError::Api {
            resource: resource.to_string(),
            path: path.to_string(),
            code: status.code,
            reason: redactor.redact(&status.reason),
            message: redactor.redact(&status.message),
        }
    }

    /// The HTTP status code, for [`ClusterError::Api`].
    pub fn code(&self) -> Option<u16> {
        match self {
            ClusterError::Api { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// 410 Gone (`Expired`): the requested resourceVersion or continue token
    /// is too old; the caller must list again.
    pub fn is_gone(&self) -> bool {
        self.code() == Some(410)
    }

    /// 403 or 404: this resource cannot be read here (RBAC, or an API the
    /// server does not serve); other resources may still be readable.
    pub fn is_unavailable_resource(&self) -> bool {
        matches!(self.code(), Some(403 | 404))
    }
}

/// `e`'s text followed by its causes' (`: `-separated; a cause whose text
/// the text so far already ends with is left out, as a `#[error("…:
/// {source}")]` variant shows its source itself): kube's "client error
/// (Connect)" says nothing without the "Connection refused" under it.
/// Redacted ([`held()`], [`crate::redact::mask_dumps`]): a cause may quote
/// a server, an exec plugin or a client key (rustls' byte array).
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.ends_with(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    crate::redact::mask_dumps(&held().redact(&text))
}

/// The text of `e`'s innermost cause (`e`'s own without one; for a
/// [`ClusterError::Transport`], kube's error's): the same refused
/// connection under every resource's request. Redacted ([`held()`],
/// [`crate::redact::mask_dumps`]).
pub fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let e = match e.downcast_ref::<ClusterError>() {
        Some(ClusterError::Transport { cause, .. }) => cause,
        _ => e,
    };
    let mut last = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        last = cause.to_string();
        source = cause.source();
    }
    crate::redact::mask_dumps(&held().redact(&last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::ClientError;

    #[test]
    fn a_status_echoing_a_held_credential_is_redacted_when_built() {
        crate::redact::hold(["err-test-token-5f6e7d"]);
        let status = kube::core::Status::failure(
            "Cannot evict pod; Authorization: Bearer err-test-token-5f6e7d, ZXJyLXRlc3QtdG9rZW4tNWY2ZTdk",
            "TooManyRequests",
        )
        .with_code(429);
        let path = "/api/v1/namespaces/web/pods/web-0/eviction";
        let e = ClusterError::from_kube("pods/eviction", path, kube::Error::Api(status.boxed()));
        assert_eq!(
            e.to_string(),
            format!("pods/eviction: the server answered 429 TooManyRequests: Cannot evict pod; Authorization: Bearer ***, *** ({path})")
        );
        match ClientError::from(e) {
            ClientError::Status { code: 429, message } => {
                assert_eq!(message, "Cannot evict pod; Authorization: Bearer ***, ***")
            }
            other => panic!("{other:?}"),
        }
    }
}
