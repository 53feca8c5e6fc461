//! The HTTP side of a Prometheus pull: `/api/v1/query_range` (the
//! Prometheus HTTP API, which VictoriaMetrics, Thanos and Mimir speak too),
//! and `/api/v1/query` (an instant query: the planner runs a
//! `metricsUtilization` policy's own query with it),
//! POSTed as a form with the credentials of [`Auth`] (from the
//! `KDRIFT_PROM_*` variables or files, never the command line). It shares
//! the VictoriaLogs client's HTTP plumbing: no redirect followed, error
//! bodies read capped, and everything a server says passed through the
//! [`Redactor`] of the credentials before it is shown.

use std::time::Duration;

use super::answer::{Answer, Data, Listed};
pub use super::answer::{InstantSample, Series};
use super::error::{Failure, PromError};
use crate::victorialogs::auth::{Auth, EnvNames};
use crate::victorialogs::capped::{read_capped, ReadError};
use crate::victorialogs::client::{
    error_body, open_server, redact_url, transport, OpenError, Opened, Timeouts, QUOTE_LIMIT,
};
use crate::victorialogs::url_query::UrlQuery;
use chrono::{DateTime, Utc};
use kdrift_rebalance::Redactor;
use reqwest::header::{HeaderName, HeaderValue};
use reqwest::{Client, Url};
use serde::de::{DeserializeOwned, IgnoredAny};

/// Most bytes of one range query's answer read by default: 256 MiB, a
/// matrix of ~2 million points (a 1 h window at 30 s of ~17,000 series). An
/// answer of 1500 MiB took 2.9 GB of memory (break-it 35 F2); one going on
/// past the limit fails its window (`--max-answer-bytes` raises it).
pub const PROM_ANSWER_LIMIT: usize = 256 << 20;

/// Longest one range query may take by default, answer read whole: 5
/// minutes. The read timeout runs between bytes only, so a server sending
/// one byte a second held a pull forever (break-it 35 F20).
pub const PROM_REQUEST_TIMEOUT: Duration = Duration::from_secs(300);

/// Prometheus' credential variables.
pub const PROM_ENV: EnvNames = EnvNames {
    user: "KDRIFT_PROM_USER",
    password: "KDRIFT_PROM_PASSWORD",
    bearer: "KDRIFT_PROM_BEARER_TOKEN",
    headers: "KDRIFT_PROM_HEADERS",
};

/// The flags of a command giving a Prometheus server: its URL, user and password file.
#[derive(Debug, Clone, Copy)]
pub struct PromFlags {
    /// The URL's flag.
    pub url: &'static str,
    /// The user's flag.
    pub user: &'static str,
    /// The password file's flag.
    pub password_file: &'static str,
}

/// `kdrift ingest prometheus`' flags.
pub const INGEST_FLAGS: PromFlags = PromFlags { url: "--url", user: "--user", password_file: "--password-file" };

/// The `kdrift rebalance` commands' flags.
pub const REBALANCE_FLAGS: PromFlags =
    PromFlags { url: "--prometheus-url", user: "--prometheus-user", password_file: "--prometheus-password-file" };

/// An instant query's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum InstantAnswer {
    /// `resultType: vector`: its samples.
    Vector(Vec<InstantSample>),
    /// Another `resultType` (`scalar`, `matrix`, `string`), as written.
    Other(String),
}

/// A Prometheus-compatible server (or a proxy in front of one).
#[derive(Debug, Clone)]
pub struct PromClient {
    http: Client,
    base: Url,
    query: UrlQuery,
    auth: Auth,
    redactor: Redactor,
    /// Most bytes of an answer read ([`PROM_ANSWER_LIMIT`] by default).
    max_answer_bytes: usize,
    /// Longest one request may take, answer read whole ([`PROM_REQUEST_TIMEOUT`] by default).
    request_timeout: Duration,
}

impl PromClient {
    /// A client for `url` (`http://host:9090`, a path prefix such as
    /// `https://vmselect/select/0/prometheus`; a trailing `/api/v1/…` is
    /// removed). Its query parameters are sent with every request and held
    /// as credentials.
    ///
    /// # Errors
    /// [`PromError::BadUrl`] for an unparseable URL, another scheme than
    /// http(s), or credentials inside it; [`PromError::Credentials`] for a
    /// header that is not valid in HTTP.
    pub fn new(url: &str, auth: Auth, timeouts: Timeouts) -> Result<PromClient, PromError> {
        PromClient::given_by(url, auth, timeouts, &INGEST_FLAGS)
    }

    /// [`PromClient::new`] for a command whose flags are `flags` (its
    /// errors name them: break-it 37 F7, rebalance's refusal named
    /// `ingest prometheus`' `--url`, `--user`, `--password-file`).
    ///
    /// # Errors
    /// As [`PromClient::new`].
    pub fn given_by(url: &str, auth: Auth, timeouts: Timeouts, flags: &PromFlags) -> Result<PromClient, PromError> {
        let suffixes = ["/api/v1/query_range", "/api/v1/query", "/api/v1"];
        let env = [PROM_ENV.user, PROM_ENV.password];
        let Opened { http, base, query, redactor } =
            open_server(url, &auth, timeouts, &suffixes, env, [flags.user, flags.password_file]).map_err(
                |e| match e {
                    OpenError::BadUrl(problem) => PromError::BadUrl { flag: flags.url, url: redact_url(url), problem },
                    OpenError::Credentials(problem) => PromError::Credentials(problem),
                    OpenError::Proxy(problem) => PromError::Options(problem),
                },
            )?;
        Ok(PromClient {
            http,
            base,
            query,
            auth,
            redactor,
            max_answer_bytes: PROM_ANSWER_LIMIT,
            request_timeout: PROM_REQUEST_TIMEOUT,
        })
    }

    /// The client reading at most `bytes` of an answer (`--max-answer-bytes`).
    pub fn with_max_answer_bytes(mut self, bytes: usize) -> PromClient {
        self.max_answer_bytes = bytes;
        self
    }

    /// The client giving each request at most `timeout`, answer read whole (`--request-timeout`).
    pub fn with_request_timeout(mut self, timeout: Duration) -> PromClient {
        self.request_timeout = timeout;
        self
    }

    /// The server's base URL (no credentials).
    pub fn base_url(&self) -> String {
        self.base.as_str().trim_end_matches('/').to_string()
    }

    /// The range query endpoint (no credentials).
    pub fn endpoint(&self) -> String {
        format!("{}/api/v1/query_range", self.base_url())
    }

    /// Masks this client's credentials in a server's words.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// `/api/v1/query_range` of `promql` at `start`, `start + step`, … up
    /// to `end` (inclusive, as the API evaluates): the matrix answered.
    ///
    /// # Errors
    /// [`Failure::Status`] for a non-2xx answer (Prometheus' `error` text
    /// when its body is its JSON), [`Failure::Transport`],
    /// [`Failure::BadAnswer`] for a 200 that is not a Prometheus answer
    /// (not JSON, `status` not `success`, no matrix) or goes on past the
    /// answer limit; [`Failure::Transport`] when the request (answer read
    /// whole) takes longer than the request timeout.
    pub async fn query_range(
        &self,
        promql: &str,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
        step: Duration,
    ) -> Result<Vec<Series>, Failure> {
        let form = [
            ("query", promql.to_string()),
            ("start", seconds(start)),
            ("end", seconds(end)),
            ("step", format!("{}s", step.as_secs_f64())),
        ];
        let data: Data<Listed<Series>> = self.ask(RANGE, &form).await?;
        if data.result_type != "matrix" {
            return Err(Failure::BadAnswer(format!(
                "resultType {:?}, expected \"matrix\" (a range query's answer)",
                self.redactor.redact(&data.result_type)
            )));
        }
        match data.result {
            Listed::Items(series) => Ok(series),
            Listed::Other => {
                Err(Failure::BadAnswer("HTTP 200 but not a Prometheus matrix (its result is no list of series)".into()))
            }
        }
    }

    /// `/api/v1/query` of `promql` at `time` (an instant query, as
    /// descheduler's `promv1.API.Query` runs a `metricsUtilization` query):
    /// the vector answered, or the other result type.
    ///
    /// # Errors
    /// As [`PromClient::query_range`].
    pub async fn query_instant(&self, promql: &str, time: DateTime<Utc>) -> Result<InstantAnswer, Failure> {
        let form = [("query", promql.to_string()), ("time", seconds(time))];
        let data: Data<Listed<InstantSample>> = self.ask(INSTANT, &form).await?;
        if data.result_type != "vector" {
            return Ok(InstantAnswer::Other(self.redactor.redact(&data.result_type)));
        }
        match data.result {
            Listed::Items(samples) => Ok(InstantAnswer::Vector(samples)),
            Listed::Other => Err(Failure::BadAnswer(
                "HTTP 200 but not a Prometheus vector (its result is no list of samples)".into(),
            )),
        }
    }

    /// POSTs `form` to `path` within the request timeout.
    async fn ask<R: DeserializeOwned + Default>(
        &self,
        path: &str,
        form: &[(&str, String)],
    ) -> Result<Data<R>, Failure> {
        let limit = self.request_timeout;
        match tokio::time::timeout(limit, self.ask_now(path, form)).await {
            Ok(answer) => answer,
            Err(_) => Err(Failure::Transport(format!(
                "{path} did not answer whole within {}s, the most kdrift waits for one request \
                 (raise --request-timeout)",
                limit.as_secs_f64()
            ))),
        }
    }

    async fn ask_now<R: DeserializeOwned + Default>(
        &self,
        path: &str,
        form: &[(&str, String)],
    ) -> Result<Data<R>, Failure> {
        let what = if path == RANGE { "range" } else { "instant" };
        let endpoint = format!("{}{path}", self.base_url());
        let mut rb = self.http.post(endpoint).query(&self.query.pairs()).form(form);
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
        let response = rb.send().await.map_err(|e| transport(&e, &self.redactor))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(Failure::BadAnswer(format!(
                "HTTP {}: a redirect, not followed (the credentials would go along); pass --url where it points",
                status.as_u16()
            )));
        }
        if !status.is_success() {
            let body = error_body(response, &self.redactor).await;
            let body = match serde_json::from_str::<Answer<IgnoredAny>>(&body) {
                Ok(Answer { error: Some(e), error_type, .. }) => {
                    format!("{}: {e}", error_type.unwrap_or_else(|| "error".into()))
                }
                _ => body,
            };
            return Err(Failure::Status { status: status.as_u16(), body });
        }
        let limit = self.max_answer_bytes;
        // At most `limit` bytes held (reserved from Content-Length), parsed in place.
        let bytes = match read_capped(response, limit).await {
            Ok(bytes) => bytes,
            Err(ReadError::Transport(e)) => return Err(transport(&e, &self.redactor)),
            Err(ReadError::Overflow) => {
                return Err(Failure::BadAnswer(format!(
                    "the answer goes on past {limit} bytes, the most kdrift reads of one {what} query's answer: the \
                     rest is not read (raise --max-answer-bytes, or pull a shorter --window)"
                )))
            }
        };
        // Parsed from the bytes in one pass: the series' labels that kdrift
        // does not read are skipped, not held (`super::answer`).
        let answer: Answer<R> = serde_json::from_slice(&bytes).map_err(|e| {
            let quote = self.redactor.quote(&bytes, QUOTE_LIMIT);
            Failure::BadAnswer(format!("HTTP 200 but not a Prometheus answer ({e}): {quote:?}"))
        })?;
        if answer.status != "success" {
            let said = answer.error.unwrap_or_default();
            return Err(Failure::BadAnswer(self.redactor.redact(&format!(
                "status {:?} ({}): {said}",
                answer.status,
                answer.error_type.unwrap_or_default()
            ))));
        }
        answer.data.ok_or_else(|| Failure::BadAnswer("no \"data\" in a successful answer".into()))
    }
}

/// The range query's path.
const RANGE: &str = "/api/v1/query_range";
/// The instant query's path.
const INSTANT: &str = "/api/v1/query";

/// `t` as the API's decimal seconds (`1700000000` or `1700000000.5`).
fn seconds(t: DateTime<Utc>) -> String {
    let us = t.timestamp_micros();
    if us % 1_000_000 == 0 {
        (us / 1_000_000).to_string()
    } else {
        format!("{:.6}", us as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;
    use crate::victorialogs::auth::Secret;

    /// A one-request server on 127.0.0.1 answering `status` with `body`.
    fn one_answer(status: &'static str, body: &'static str) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().expect("accept");
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            // Headers, then the form (its length is in the headers; the
            // form is short: read until the socket pauses).
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = conn.read(&mut buf).expect("read");
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
            }
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            conn.write_all(answer.as_bytes()).expect("write");
        });
        url
    }

    fn ask(url: &str, auth: Auth) -> Result<Vec<Series>, Failure> {
        let client = PromClient::new(url, auth, Timeouts::default()).expect("client");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
        let t = DateTime::from_timestamp(1_794_528_000, 0).expect("t");
        runtime.block_on(client.query_range("up", t, t, Duration::from_secs(30)))
    }

    #[test]
    fn a_200_that_is_no_prometheus_answer_is_an_error_quoting_it_redacted() {
        let url = one_answer("200 OK", "<html>login as kuser with Pw9zQ7secretX</html>");
        let auth = Auth { basic: Some(("kuser".into(), Secret::new("Pw9zQ7secretX"))), ..Default::default() };
        let failure = ask(&url, auth).expect_err("not JSON");
        assert_eq!(
            failure.to_string(),
            "unexpected answer: HTTP 200 but not a Prometheus answer (expected value at line 1 column 1): \
             \"<html>login as kuser with ***</html>\""
        );
        assert!(!failure.is_retryable());
        let url = one_answer("200 OK", r#"{"status":"success","data":{"resultType":"vector","result":[]}}"#);
        let failure = ask(&url, Auth::default()).expect_err("a vector");
        assert_eq!(
            failure.to_string(),
            "unexpected answer: resultType \"vector\", expected \"matrix\" (a range query's answer)"
        );
        let url = one_answer(
            "422 Unprocessable Entity",
            r#"{"status":"error","errorType":"execution","error":"too many points"}"#,
        );
        assert_eq!(ask(&url, Auth::default()).expect_err("422").to_string(), "HTTP 422: execution: too many points");
    }

    fn ask_instant(url: &str) -> Result<InstantAnswer, Failure> {
        let client = PromClient::new(url, Auth::default(), Timeouts::default()).expect("client");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
        let t = DateTime::from_timestamp(1_794_528_000, 0).expect("t");
        runtime.block_on(client.query_instant("node_utilization", t))
    }

    #[test]
    fn an_instant_query_reads_its_vector_and_names_another_result_type() {
        let url = one_answer(
            "200 OK",
            r#"{"status":"success","data":{"resultType":"vector","result":[
                {"metric":{"__name__":"u","instance":"n1"},"value":[1794528000,"0.5696"]},
                {"metric":{"instance":"n2"},"value":[1794528000,"NaN"]},{"metric":{},"value":"odd"}]}}"#,
        );
        let sample = |instance: Option<&str>, value: Option<&str>| InstantSample {
            metric: instance
                .map(|i| [("instance".to_string(), i.to_string())].into_iter().collect())
                .unwrap_or_default(),
            value: value.map(str::to_string),
            problems: Vec::new(),
        };
        // `__name__` is no label kdrift reads: not kept.
        let first = sample(Some("n1"), Some("0.5696"));
        assert_eq!(
            ask_instant(&url).expect("vector"),
            InstantAnswer::Vector(vec![first, sample(Some("n2"), Some("NaN")), sample(None, None)])
        );
        let url = one_answer("200 OK", r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#);
        assert_eq!(ask_instant(&url).expect("an answer"), InstantAnswer::Other("matrix".into()));
    }

    /// A one-request server answering 200 with `chunks` pieces of `piece`,
    /// `pause` apart (no length: the answer ends when the connection closes).
    fn trickle(chunks: usize, piece: &'static [u8], pause: Duration) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().expect("accept");
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n";
            if conn.write_all(head.as_bytes()).is_err() {
                return;
            }
            for _ in 0..chunks {
                if conn.write_all(piece).is_err() {
                    return;
                }
                std::thread::sleep(pause);
            }
        });
        url
    }

    fn ask_with(client: PromClient) -> Result<Vec<Series>, Failure> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
        let t = DateTime::from_timestamp(1_794_528_000, 0).expect("t");
        runtime.block_on(client.query_range("up", t, t, Duration::from_secs(30)))
    }

    #[test]
    fn credentials_in_the_url_are_refused_naming_the_commands_flags() {
        // Break-it 37 F7: rebalance's refusal named ingest's --url, --user, --password-file.
        let url = "http://kuser:Pw9zQ7secretX@127.0.0.1:9090/";
        let refusal = |flags: &PromFlags| match PromClient::given_by(url, Auth::default(), Timeouts::default(), flags) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("credentials in the URL accepted"),
        };
        let said = "credentials in the URL would show in `ps` and shell history; set KDRIFT_PROM_USER and \
                    KDRIFT_PROM_PASSWORD";
        assert_eq!(
            refusal(&INGEST_FLAGS),
            format!("--url http://127.0.0.1:9090/: {said} (or --user and --password-file) instead")
        );
        assert_eq!(
            refusal(&REBALANCE_FLAGS),
            format!(
                "--prometheus-url http://127.0.0.1:9090/: {said} (or --prometheus-user and --prometheus-password-file) \
                 instead"
            )
        );
    }

    #[test]
    fn an_answer_past_the_limit_fails_naming_it() {
        // Break-it 35 F2: a 1500 MiB answer was read whole (2.9 GB of memory).
        let url = trickle(64, &[b' '; 1024], Duration::ZERO);
        let client = PromClient::new(&url, Auth::default(), Timeouts::default()).expect("client");
        let failure = ask_with(client.with_max_answer_bytes(16 << 10)).expect_err("too long");
        assert_eq!(
            failure.to_string(),
            "unexpected answer: the answer goes on past 16384 bytes, the most kdrift reads of one range query's \
             answer: the rest is not read (raise --max-answer-bytes, or pull a shorter --window)"
        );
        assert_eq!(PROM_ANSWER_LIMIT, 256 << 20);
    }

    #[test]
    fn a_server_sending_a_byte_at_a_time_fails_at_the_request_timeout() {
        // Break-it 35 F20: one space a second held a pull forever (the read timeout runs between bytes).
        let url = trickle(100, b" ", Duration::from_millis(50));
        let client = PromClient::new(&url, Auth::default(), Timeouts::default()).expect("client");
        let began = std::time::Instant::now();
        let failure = ask_with(client.with_request_timeout(Duration::from_millis(500))).expect_err("too slow");
        assert!(began.elapsed() < Duration::from_secs(3), "{:?}", began.elapsed());
        assert_eq!(
            failure.to_string(),
            "/api/v1/query_range did not answer whole within 0.5s, the most kdrift waits for one request (raise \
             --request-timeout)"
        );
        assert!(failure.is_retryable());
    }
}
