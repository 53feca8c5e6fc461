//! The query parameters of a VictoriaLogs `--url`
//! (`http://host:9428/?authKey=…`): VictoriaLogs and vmauth accept an
//! `authKey` (and other arguments) in the query string, so they are kept
//! on every request ([`super::client::VlClient`] adds them to each
//! endpoint's URL), and their values are treated as credentials: held for
//! redaction ([`kdrift_rebalance::hold`]) and never shown — the URL kdrift
//! shows and stores has no query ([`super::client::VlClient::base_url`]),
//! and an invalid `--url` is quoted with every value as `***` ([`masked`]).
//! A bare token (`?Ak7Qz8…`, no `=`, [`MIN_BARE_TOKEN`]+ characters) is a
//! credential too (break-it 32 N3): held, and shown as `***`.

use reqwest::Url;

use super::auth::Secret;

pub use kdrift_rebalance::MIN_BARE_TOKEN;

/// The parameters of a URL's query, in order; values are secrets, and so
/// are the bare tokens (a parameter without `=` of [`MIN_BARE_TOKEN`]+
/// characters: its name).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlQuery(Vec<(String, Secret)>, Vec<Secret>);

impl UrlQuery {
    /// Takes the query parameters out of `url` (left without a query).
    pub fn take(url: &mut Url) -> UrlQuery {
        let pairs = url.query_pairs().map(|(k, v)| (k.into_owned(), Secret::new(v.into_owned()))).collect();
        let bare = bare_tokens(url).into_iter().map(Secret::new).collect();
        url.set_query(None);
        UrlQuery(pairs, bare)
    }

    /// The (name, value) pairs, for a request.
    pub fn pairs(&self) -> Vec<(&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.expose())).collect()
    }

    /// The values, for a redactor.
    pub fn values(&self) -> impl Iterator<Item = String> + '_ {
        let values = self.0.iter().map(|(_, v)| v.expose().to_string()).filter(|v| !v.is_empty());
        values.chain(self.1.iter().map(|t| t.expose().to_string()))
    }
}

/// `url`'s query parameters (decoded names), each with `Some(true)` for a
/// bare token (without `=`, [`MIN_BARE_TOKEN`]+ characters:
/// `?Ak7Qz8Lp4Wm2Xk99`), `Some(false)` for `name=value`, `None` for a
/// short parameter without `=` (`?pretty`).
fn parameters(url: &Url) -> Vec<(String, Option<bool>)> {
    let raw = url.query().unwrap_or_default().split('&').filter(|p| !p.is_empty());
    raw.zip(url.query_pairs())
        .map(|(raw, (name, _))| {
            let bare =
                if raw.contains('=') { Some(false) } else { (name.chars().count() >= MIN_BARE_TOKEN).then_some(true) };
            (name.into_owned(), bare)
        })
        .collect()
}

/// The bare tokens of `url`'s query ([`parameters`]).
fn bare_tokens(url: &Url) -> Vec<String> {
    parameters(url).into_iter().filter(|(_, bare)| *bare == Some(true)).map(|(name, _)| name).collect()
}

/// `url` with each query value replaced by `***` (names kept), each bare
/// token ([`MIN_BARE_TOKEN`]+ characters without `=`) by `***`, and a
/// short parameter without `=` (`?pretty`) kept.
pub fn masked(url: &mut Url) {
    if url.query().is_none() {
        return;
    }
    let shown: Vec<String> = parameters(url)
        .into_iter()
        .map(|(name, bare)| match bare {
            Some(true) => kdrift_rebalance::MASK.to_string(),
            Some(false) => format!("{name}={}", kdrift_rebalance::MASK),
            None => name,
        })
        .collect();
    url.set_query(Some(&shown.join("&")));
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use crate::victorialogs::client::redact_url;
    use crate::victorialogs::{Auth, Failure, Timeouts, VlClient};

    const URL: &str = "http://127.0.0.1:9/select/logsql/query?authKey=AuThKeY%2F9c8b7a6f&tenant=ab";

    #[test]
    fn the_query_is_never_shown_and_its_values_are_held() {
        let client = VlClient::new(URL, Auth::default(), Timeouts::default()).expect("client");
        assert_eq!(client.base_url(), "http://127.0.0.1:9");
        assert_eq!(redact_url("http://h:9428/?authKey=AuThKeY%2F9c8b7a6f&x=1"), "http://h:9428/?authKey=***&x=***");
        assert_eq!(client.redactor().redact("key AuThKeY/9c8b7a6f or AuThKeY%2F9c8b7a6f"), "key *** or ***");
        assert_eq!(kdrift_rebalance::held().redact("QXVUaEtlWS85YzhiN2E2Zg"), "***");
        // A bad URL is quoted with its query values masked.
        let e = VlClient::new("ftp://h:9428/?authKey=AuThKeY%2F9c8b7a6f", Auth::default(), Timeouts::default())
            .expect_err("not http")
            .to_string();
        assert!(e.contains("ftp://h:9428/?authKey=***") && !e.contains("9c8b7a6f"), "{e}");
    }

    /// A one-request server on 127.0.0.1 answering 500 with the request line (path and query) echoed.
    fn echo_server() -> (String, std::thread::JoinHandle<String>) {
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
            let line = String::from_utf8_lossy(&request).lines().next().unwrap_or_default().to_string();
            let body = format!("bad request: {line}");
            let answer = format!(
                "HTTP/1.1 500 Internal Server Error\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            conn.write_all(answer.as_bytes()).expect("write");
            line
        });
        (url, handle)
    }

    /// Break-it 32 N3: a bare token (`?Ak7…`, no `=`) was sent as
    /// `Ak7…=` but not held: echoed, it was stored and printed.
    #[test]
    fn a_bare_query_token_is_held_and_never_shown() {
        let url = "http://127.0.0.1:9/?Ak7Qz8Lp4Wm2Xk99&pretty&authKey=AuThKeY%2F9c8b7a6f";
        let client = VlClient::new(url, Auth::default(), Timeouts::default()).expect("client");
        assert_eq!(client.base_url(), "http://127.0.0.1:9");
        assert_eq!(redact_url(url), "http://127.0.0.1:9/?***&pretty&authKey=***");
        assert_eq!(
            client.redactor().redact("field_names?Ak7Qz8Lp4Wm2Xk99= refused; pretty"),
            "field_names?*** refused; pretty"
        );
        assert_eq!(kdrift_rebalance::held().redact("echo Ak7Qz8Lp4Wm2Xk99"), "echo ***");
        let e = VlClient::new("ftp://h:9428/?Ak7Qz8Lp4Wm2Xk99", Auth::default(), Timeouts::default())
            .expect_err("not http")
            .to_string();
        assert!(e.contains("ftp://h:9428/?***") && !e.contains("Ak7Qz8"), "{e}");
    }

    #[test]
    fn every_request_carries_the_query_and_an_echo_of_it_is_masked() {
        let (server, handle) = echo_server();
        let url = format!("{server}/?authKey=AuThKeY%2F9c8b7a6f&tenant=ab");
        let client = VlClient::new(&url, Auth::default(), Timeouts::default()).expect("client");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
        let failure = runtime.block_on(client.query("*")).expect_err("500");
        let line = handle.join().expect("server");
        assert_eq!(line, "POST /select/logsql/query?authKey=AuThKeY%2F9c8b7a6f&tenant=ab HTTP/1.1");
        match failure {
            // `ab` is too short to be masked (MIN_SECRET).
            Failure::Status { status, body } => assert_eq!(
                (status, body.as_str()),
                (500, "bad request: POST /select/logsql/query?authKey=***&tenant=ab HTTP/1.1")
            ),
            other => panic!("{other:?}"),
        }
    }
}
