//! The HTTP side of a pull (reqwest, rustls): `/select/logsql/field_names`,
//! `/select/logsql/hits` and `/select/logsql/query`, POSTed as forms with
//! the credentials and tenant headers of [`Auth`]. Error answers keep
//! VictoriaLogs' plain-text body (capped) for the user; everything a server
//! says passes through the [`Redactor`] of the credentials before it is cut
//! or shown.
//!
//! Redirects are not followed unless asked ([`VlClient::follow_redirects`],
//! `--follow-redirects`), and then only to the same origin (scheme, host
//! and port): the extra headers (API keys) would otherwise reach another
//! server, which reqwest's cross-host rule (it drops only `Authorization`)
//! does not prevent. A redirect not followed is [`Failure::Redirected`],
//! naming the `Location`'s origin.

use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue, LOCATION};
use reqwest::{redirect, Client, RequestBuilder, Response, Url};

use super::auth::Auth;
use super::error::{show_time, Failure, VlError};
use super::url_query::{masked, UrlQuery};
use kdrift_rebalance::Redactor;

/// Most characters of an error body kept for the message (after redaction).
pub const ERROR_BODY_LIMIT: usize = 4096;

/// Most characters of a `200` answer that is not JSON quoted in its error.
pub const QUOTE_LIMIT: usize = 300;

/// Most bytes of a small JSON answer (`/field_names`, `/hits`) read into
/// memory: 16 MiB, far above any real one (a few KiB). An answer that never
/// ended grew to 5.4 GB in 15 s (break-it 34 H6); read timeouts never run
/// out while bytes keep coming.
pub const JSON_ANSWER_LIMIT: usize = 16 << 20;

/// Longest one request may take by default, its answer read whole: 10
/// minutes (a window of `--window-rows` rows, or a `/hits` answer). The
/// read timeout runs between bytes only: a server sending one byte a
/// second held a pull forever (break-it 35 F20). `--request-timeout`.
pub const VL_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// Most redirects followed in a row (same origin only), as reqwest's default.
pub const MAX_REDIRECTS: usize = 10;

/// Connection settings.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// To establish a connection.
    pub connect: Duration,
    /// Without a byte from the server (a stalled stream fails the window).
    pub read: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts { connect: Duration::from_secs(10), read: Duration::from_secs(120) }
    }
}

/// A VictoriaLogs server (or vmauth in front of one).
#[derive(Debug, Clone)]
pub struct VlClient {
    http: Client,
    base: Url,
    /// The `--url`'s query parameters, sent on every request.
    query: UrlQuery,
    auth: Auth,
    redactor: Redactor,
    timeouts: Timeouts,
    follow_redirects: bool,
    /// Longest one request may take, answer read whole ([`VL_REQUEST_TIMEOUT`] by default).
    request_timeout: Duration,
}

/// Removes `user:password@` from a URL for display, and masks its query
/// values (`?authKey=***`).
pub fn redact_url(url: &str) -> String {
    match Url::parse(url) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            masked(&mut u);
            u.to_string()
        }
        // `user:secret@host:9428` parses as scheme `user`, the secret in its path.
        Ok(u) if !matches!(u.scheme(), "http" | "https") && url.contains('@') => {
            format!("(credentials hidden)@{}", url.rsplit('@').next().unwrap_or_default())
        }
        Ok(mut u) => {
            masked(&mut u);
            u.to_string()
        }
        Err(_) => "(unparseable URL)".to_string(),
    }
}

pub(crate) fn transport(e: &reqwest::Error, redactor: &Redactor) -> Failure {
    // reqwest's own text is terse; the sources say what broke (reset, EOF, timeout).
    let mut text = if e.is_timeout() { "timed out".to_string() } else { e.to_string() };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    Failure::Transport(redactor.redact(&text))
}

/// Whether `a` and `b` have the same origin: scheme, host and port.
fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.port_or_known_default() == b.port_or_known_default()
}

/// `scheme://host:port` of `url` (never its user, path or query).
fn origin_of(url: &Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{}://{host}:{port}", url.scheme()),
        (Some(host), None) => format!("{}://{host}", url.scheme()),
        (None, _) => format!("a {}: URL", url.scheme()),
    }
}

pub(crate) fn http_client(timeouts: Timeouts, follow_redirects: bool) -> reqwest::Result<Client> {
    let policy = if follow_redirects {
        redirect::Policy::custom(|attempt| {
            let same = attempt.previous().first().is_some_and(|first| same_origin(first, attempt.url()));
            if !same {
                // Answered with the redirect itself: [`Failure::Redirected`].
                attempt.stop()
            } else if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else {
                attempt.follow()
            }
        })
    } else {
        redirect::Policy::none()
    };
    Client::builder()
        .connect_timeout(timeouts.connect)
        .read_timeout(timeouts.read)
        .redirect(policy)
        .referer(false)
        .user_agent(concat!("kdrift/", env!("CARGO_PKG_VERSION")))
        .build()
}

/// The beginning of an error answer, redacted then cut to
/// [`ERROR_BODY_LIMIT`] characters: [`Redactor::reach`] bytes more are read
/// than kept, so that a credential straddling the cut is masked whole.
pub(crate) async fn error_body(response: Response, redactor: &Redactor) -> String {
    let wanted = ERROR_BODY_LIMIT * 4 + redactor.reach();
    let mut body = Vec::new();
    let mut complete = true;
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else {
            complete = false;
            break;
        };
        body.extend_from_slice(&chunk);
        if body.len() >= wanted {
            complete = false;
            body.truncate(wanted);
            break;
        }
    }
    let text = redactor.cut(&String::from_utf8_lossy(&body), complete, ERROR_BODY_LIMIT);
    let text = text.trim();
    if text.is_empty() {
        "(empty body)".into()
    } else {
        text.to_string()
    }
}

/// Why [`open_server`] refused a server URL or its credentials.
pub(crate) enum OpenError {
    /// The URL: unparseable, not http(s), or holding credentials.
    BadUrl(String),
    /// An extra header not valid in HTTP (never quoted: it may hold a value).
    Credentials(String),
    /// A proxy variable of the environment whose URL reqwest would
    /// misread (`kdrift_rebalance::env_proxy_problem`: a port that is no
    /// port sent `Proxy-Authorization` to port 80, break-it 43 N2).
    Proxy(String),
}

/// A checked server base URL, its query parameters (sent with every
/// request, held as credentials), the HTTP client and the redactor of
/// every credential held.
pub(crate) struct Opened {
    pub(crate) http: Client,
    pub(crate) base: Url,
    pub(crate) query: UrlQuery,
    pub(crate) redactor: Redactor,
}

/// What the VictoriaLogs and Prometheus sources do with the `--url` they
/// are given: parse it (a bare `host:port` gets a hint with `http://`),
/// refuse another scheme than http(s) and credentials inside it (they show
/// in `ps` and shell history: `env` names the variables to use instead),
/// take its query parameters as credentials (`env`: the user and password
/// variables, `flags`: the command's user and password-file flags, named
/// when the URL holds credentials), drop the fragment and a
/// trailing API path (`suffixes`, longest first), check the extra headers,
/// build the HTTP client (redirects off) and hold every credential for
/// redaction everywhere (`kdrift_rebalance::hold`).
pub(crate) fn open_server(
    url: &str,
    auth: &Auth,
    timeouts: Timeouts,
    suffixes: &[&str],
    env: [&str; 2],
    flags: [&str; 2],
) -> Result<Opened, OpenError> {
    let bad = |problem: &str| OpenError::BadUrl(problem.to_string());
    // `127.0.0.1:9428` is no URL, and `localhost:9428` one of scheme `localhost`.
    let with_scheme = |problem: &str| match url.trim() {
        u if !u.contains("://") && !u.contains('@') => {
            bad(&format!("{problem}; expected http:// or https://, e.g. http://{u}"))
        }
        _ => bad(&format!("{problem}; expected http:// or https://")),
    };
    let mut base = Url::parse(url.trim()).map_err(|e| with_scheme(&format!("not a URL ({e})")))?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(with_scheme(&format!("scheme {:?} is not HTTP", base.scheme())));
    }
    if !base.username().is_empty() || base.password().is_some() {
        return Err(bad(&format!(
            "credentials in the URL would show in `ps` and shell history; set {} and {} (or {} and {}) instead",
            env[0], env[1], flags[0], flags[1]
        )));
    }
    let query = UrlQuery::take(&mut base);
    base.set_fragment(None);
    let mut path = base.path().trim_end_matches('/').to_string();
    for suffix in suffixes {
        if let Some(p) = path.strip_suffix(suffix) {
            path = p.to_string();
            break;
        }
    }
    base.set_path(&path);
    for (i, (name, value)) in auth.headers.iter().enumerate() {
        // Not quoted: an invalid name may hold a value.
        HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| OpenError::Credentials(format!("the name of extra header {} is not valid in HTTP", i + 1)))?;
        HeaderValue::from_str(value.expose())
            .map_err(|_| OpenError::Credentials(format!("the value of header {name} is not valid in HTTP")))?;
    }
    // reqwest reads the proxy variables itself, through `http::Uri`, which
    // takes `:99999` for no port at all (port 80): checked before any request.
    if let Some(problem) = kdrift_rebalance::env_proxy_problem() {
        return Err(OpenError::Proxy(problem));
    }
    let http = http_client(timeouts, false).map_err(|e| bad(&format!("cannot build an HTTP client: {e}")))?;
    let mut values = auth.secret_values();
    values.extend(query.values());
    // reqwest sends the requests through the environment's proxy, with its credentials.
    values.extend(kdrift_rebalance::env_proxy_values());
    // Also for the sinks no redactor reaches (kdrift's stderr, logs).
    kdrift_rebalance::hold(values.iter().cloned());
    let redactor = Redactor::new(values.iter().map(String::as_str));
    Ok(Opened { http, base, query, redactor })
}

impl VlClient {
    /// A client for the server at `url` (`http://host:9428`, or a path
    /// prefix such as `https://vmauth/vl`; a trailing `/select/logsql/…`
    /// is removed). Its query parameters (`?authKey=…`) are sent with every
    /// request and held as credentials (`super::url_query`).
    ///
    /// # Errors
    /// [`VlError::BadUrl`] for an unparseable URL, another scheme than
    /// http(s), or credentials inside the URL (they belong in the
    /// environment or a file); [`VlError::Credentials`] for a header value
    /// that is not valid in HTTP; [`VlError::Options`] for a proxy variable
    /// whose port is no port (`kdrift_rebalance::env_proxy_problem`).
    pub fn new(url: &str, auth: Auth, timeouts: Timeouts) -> Result<VlClient, VlError> {
        let suffixes = ["/select/logsql/query", "/select/logsql", "/select"];
        let Opened { http, base, query, redactor } = open_server(
            url,
            &auth,
            timeouts,
            &suffixes,
            ["KDRIFT_VL_USER", "KDRIFT_VL_PASSWORD"],
            ["--user", "--password-file"],
        )
        .map_err(|e| match e {
            OpenError::BadUrl(problem) => VlError::BadUrl { url: redact_url(url), problem },
            OpenError::Credentials(problem) => VlError::Credentials(problem),
            OpenError::Proxy(problem) => VlError::Options(problem),
        })?;
        Ok(VlClient {
            http,
            base,
            query,
            auth,
            redactor,
            timeouts,
            follow_redirects: false,
            request_timeout: VL_REQUEST_TIMEOUT,
        })
    }

    /// The client giving each request at most `timeout`, its answer read
    /// whole (`--request-timeout`).
    pub fn with_request_timeout(self, timeout: Duration) -> VlClient {
        VlClient { request_timeout: timeout, ..self }
    }

    /// Longest one request may take, its answer read whole.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    /// The failure of a request to `path` not answered whole within the request timeout.
    pub fn overran(&self, path: &str) -> Failure {
        Failure::Transport(format!(
            "{path} did not answer whole within {}s, the most kdrift waits for one request (raise \
             --request-timeout)",
            self.request_timeout.as_secs_f64()
        ))
    }

    /// The same client following redirects to the same origin (`follow`)
    /// or none (the default; `--follow-redirects`). A redirect to another
    /// origin is never followed.
    ///
    /// # Errors
    /// [`VlError::BadUrl`] when the HTTP client cannot be built.
    pub fn follow_redirects(self, follow: bool) -> Result<VlClient, VlError> {
        VlClient { follow_redirects: follow, ..self }.detached()
    }

    /// Masks the credentials of this client in `text` (a server's words).
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The same server, credentials and timeouts with an HTTP client of its
    /// own: its connections belong to the Tokio runtime that first uses it
    /// (a pooled connection's task runs on the runtime that opened it, so a
    /// client shared with a busy runtime would stall).
    ///
    /// # Errors
    /// [`VlError::BadUrl`] when the HTTP client cannot be built.
    pub fn detached(&self) -> Result<VlClient, VlError> {
        let http = http_client(self.timeouts, self.follow_redirects).map_err(|e| VlError::BadUrl {
            url: self.base_url(),
            problem: format!("cannot build an HTTP client: {e}"),
        })?;
        Ok(VlClient { http, ..self.clone() })
    }

    /// The tenant the requests carry.
    pub fn tenant(&self) -> super::auth::Tenant {
        self.auth.tenant
    }

    /// The server's base URL (no credentials).
    pub fn base_url(&self) -> String {
        self.base.as_str().trim_end_matches('/').to_string()
    }

    /// The full URL of an endpoint (`/select/logsql/query`).
    pub fn endpoint(&self, path: &str) -> String {
        format!("{}{path}", self.base_url())
    }

    fn post(&self, path: &str, form: &[(&str, String)]) -> RequestBuilder {
        let mut rb = self.http.post(self.endpoint(path)).query(&self.query.pairs()).form(form);
        if let Some((user, password)) = &self.auth.basic {
            rb = rb.basic_auth(user, Some(password.expose()));
        }
        if let Some(token) = &self.auth.bearer {
            rb = rb.bearer_auth(token.expose());
        }
        for (name, value) in &self.auth.headers {
            if let (Ok(n), Ok(mut v)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value.expose()))
            {
                v.set_sensitive(true);
                rb = rb.header(n, v);
            }
        }
        if let Some(a) = self.auth.tenant.account_id {
            rb = rb.header("AccountID", a.to_string());
        }
        if let Some(p) = self.auth.tenant.project_id {
            rb = rb.header("ProjectID", p.to_string());
        }
        rb
    }

    /// Sends a request; a redirect not followed becomes
    /// [`Failure::Redirected`], another non-2xx answer [`Failure::Status`]
    /// with its body (redacted, then capped).
    async fn send(&self, path: &str, form: &[(&str, String)]) -> Result<Response, Failure> {
        let response = self.post(path, form).send().await.map_err(|e| transport(&e, &self.redactor))?;
        let status = response.status();
        if status.is_redirection() {
            let to = match response.headers().get(LOCATION).map(|l| l.to_str()) {
                None => "(no Location header)".to_string(),
                Some(Err(_)) => "(a Location that is not text)".to_string(),
                Some(Ok(l)) => match response.url().join(l) {
                    Ok(url) => origin_of(&url),
                    Err(_) => "(a Location that is no URL)".to_string(),
                },
            };
            let to = self.redactor.cut(&to, true, 200);
            return Err(Failure::Redirected { status: status.as_u16(), to, following: self.follow_redirects });
        }
        if !status.is_success() {
            let body = error_body(response, &self.redactor).await;
            return Err(Failure::Status { status: status.as_u16(), body });
        }
        Ok(response)
    }

    async fn json(&self, path: &str, form: &[(&str, String)]) -> Result<serde_json::Value, VlError> {
        match tokio::time::timeout(self.request_timeout, self.json_now(path, form)).await {
            Ok(answer) => answer,
            Err(_) => Err(VlError::Request { url: self.endpoint(path), failure: self.overran(path) }),
        }
    }

    async fn json_now(&self, path: &str, form: &[(&str, String)]) -> Result<serde_json::Value, VlError> {
        let request_error =
            |failure: Failure| VlError::Request { url: self.endpoint(path), failure: failure.redacted(&self.redactor) };
        let response = self.send(path, form).await.map_err(request_error)?;
        let bytes = match super::capped::read_capped(response, JSON_ANSWER_LIMIT).await {
            Ok(bytes) => bytes,
            Err(super::capped::ReadError::Transport(e)) => return Err(request_error(transport(&e, &self.redactor))),
            Err(super::capped::ReadError::Overflow) => {
                return Err(request_error(Failure::BadAnswer(format!(
                    "the answer goes on past {JSON_ANSWER_LIMIT} bytes (16 MiB), the most kdrift reads of this \
                     answer: the rest is not read"
                ))))
            }
        };
        serde_json::from_slice(&bytes).map_err(|e| {
            let quote = self.redactor.quote(&bytes, QUOTE_LIMIT);
            request_error(Failure::BadAnswer(format!("not JSON ({e}): {quote:?}")))
        })
    }

    /// `/select/logsql/field_names`: the field names of the rows matching
    /// `query` in `[start, end)`, with their hit counts.
    ///
    /// # Errors
    /// [`VlError::Request`].
    pub async fn field_names(
        &self,
        query: &str,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
    ) -> Result<Vec<(String, u64)>, VlError> {
        let path = "/select/logsql/field_names";
        let form = [("query", query.to_string()), ("start", show_time(&start)), ("end", show_time(&end))];
        let v = self.json(path, &form).await?;
        let bad = |what: &str| VlError::Request {
            url: self.endpoint(path),
            failure: Failure::BadAnswer(what.into()).redacted(&self.redactor),
        };
        let values = v.get("values").and_then(|x| x.as_array()).ok_or_else(|| bad("no \"values\" list"))?;
        Ok(values
            .iter()
            .filter_map(|e| {
                let name = e.get("value")?.as_str()?.to_string();
                let hits = e.get("hits").and_then(|h| h.as_u64().or_else(|| h.as_str()?.parse().ok())).unwrap_or(0);
                Some((name, hits))
            })
            .collect())
    }

    /// `/select/logsql/hits`: rows matching `query` per `step` bucket of
    /// `[start, end)`, as `(bucket start, rows)`.
    ///
    /// # Errors
    /// [`VlError::Request`].
    pub async fn hits(
        &self,
        query: &str,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
        step: chrono::Duration,
    ) -> Result<Vec<(DateTime<Utc>, u64)>, VlError> {
        let path = "/select/logsql/hits";
        let form = [
            ("query", query.to_string()),
            ("start", show_time(&start)),
            ("end", show_time(&end)),
            ("step", format!("{}s", step.num_seconds().max(1))),
        ];
        let v = self.json(path, &form).await?;
        let bad = |what: String| VlError::Request {
            url: self.endpoint(path),
            failure: Failure::BadAnswer(what).redacted(&self.redactor),
        };
        let mut out = Vec::new();
        for series in v.get("hits").and_then(|h| h.as_array()).ok_or_else(|| bad("no \"hits\" list".into()))? {
            let times = series.get("timestamps").and_then(|t| t.as_array()).cloned().unwrap_or_default();
            let values = series.get("values").and_then(|t| t.as_array()).cloned().unwrap_or_default();
            for (t, n) in times.iter().zip(values.iter()) {
                let t = t.as_str().and_then(|s| DateTime::parse_from_rfc3339(s).ok()).ok_or_else(|| {
                    bad(format!("bucket time {} is not RFC 3339", self.redactor.quote(t.to_string().as_bytes(), 100)))
                })?;
                let n = n.as_u64().or_else(|| n.as_str().and_then(|s| s.parse().ok())).unwrap_or(0);
                out.push((t.with_timezone(&Utc), n));
            }
        }
        Ok(out)
    }

    /// `/select/logsql/query`: the streamed answer of `query` (no `limit`:
    /// every row, unsorted).
    ///
    /// # Errors
    /// [`Failure`] when the request fails or the status is not 2xx.
    pub async fn query(&self, query: &str) -> Result<Response, Failure> {
        self.send("/select/logsql/query", &[("query", query.to_string())]).await
    }

    /// The next chunk of a streamed answer (`None` at its end).
    ///
    /// # Errors
    /// [`Failure::Transport`] when the stream breaks (reset, truncated chunked body, read timeout).
    pub async fn next_chunk(&self, response: &mut Response) -> Result<Option<impl AsRef<[u8]>>, Failure> {
        response.chunk().await.map_err(|e| transport(&e, &self.redactor))
    }
}

/// Whether the transfer itself marks where `response`'s body ends (HTTP/2
/// or later, a `Content-Length`, or chunked transfer encoding), so that a
/// body read to its end without an error is the whole answer. VictoriaLogs
/// streams chunked and, failing after the 200, writes its error text and
/// aborts the connection (an incomplete chunked body: a transport error,
/// victorialogs.md). A body that ends when the connection closes (HTTP/1.0,
/// or `Connection: close` with no length and not chunked) is not framed: a
/// connection cut looks like its end. An HTTP/1.1 answer kept alive with
/// neither length nor chunks shown was gzipped with a `Content-Length`
/// (VictoriaLogs' small answers), which reqwest drops as it unzips.
pub fn framed(response: &Response) -> bool {
    let says = |name: reqwest::header::HeaderName, word: &str| {
        response.headers().get_all(name).iter().any(|v| v.to_str().is_ok_and(|s| s.to_ascii_lowercase().contains(word)))
    };
    let kept_alive = response.version() == reqwest::Version::HTTP_11 && !says(reqwest::header::CONNECTION, "close");
    response.version() >= reqwest::Version::HTTP_2
        || response.content_length().is_some()
        || says(reqwest::header::TRANSFER_ENCODING, "chunked")
        || kept_alive
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;
    use crate::victorialogs::auth::Secret;

    /// A one-request server on 127.0.0.1 answering 502 with the hex (or
    /// base64) of the request's `Authorization` header, as a proxy dump.
    fn auth_echo_server(hex: bool) -> (String, std::thread::JoinHandle<String>) {
        use base64::Engine as _;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let handle = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().expect("accept");
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = conn.read(&mut buf).expect("read");
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
            }
            let text = String::from_utf8_lossy(&request).to_string();
            let auth = text
                .lines()
                .find_map(|l| l.strip_prefix("authorization: ").or_else(|| l.strip_prefix("Authorization: ")))
                .unwrap_or_default()
                .to_string();
            let dump = if hex {
                auth.bytes().map(|b| format!("{b:02x}")).collect::<String>()
            } else {
                base64::engine::general_purpose::STANDARD.encode(auth.as_bytes())
            };
            let body = format!("proxy dump: {dump}\n");
            let answer = format!(
                "HTTP/1.1 502 Bad Gateway\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            conn.write_all(answer.as_bytes()).expect("write");
            auth
        });
        (url, handle)
    }

    /// Break-it (issue 34): a 502 whose body is the hex or base64 of the
    /// whole `Authorization: Basic …` value showed the password.
    #[test]
    fn a_hex_or_base64_echo_of_the_basic_header_is_masked() {
        for hex in [true, false] {
            let (url, handle) = auth_echo_server(hex);
            let auth = Auth { basic: Some(("kuser".into(), Secret::new("Pw9zQ7secretX"))), ..Default::default() };
            let client = VlClient::new(&url, auth, Timeouts::default()).expect("client");
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
            let failure = runtime.block_on(client.query("*")).expect_err("502");
            // `kuser:Pw9zQ7secretX` in base64.
            assert_eq!(handle.join().expect("server"), "Basic a3VzZXI6UHc5elE3c2VjcmV0WA==");
            match failure {
                Failure::Status { status, body } => assert_eq!((status, body.as_str()), (502, "proxy dump: ***")),
                other => panic!("{other:?}"),
            }
            // Held for the sinks no redactor reaches (stderr).
            let header_hex = "4261736963206133567a5a58493655486335656c45336332566a636d563057413d3d";
            assert_eq!(kdrift_rebalance::held().redact(&format!("dump {header_hex}")), "dump ***");
        }
    }
}
