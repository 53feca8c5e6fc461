//! The probes' HTTP client and the request (break-it 31 F3). A probe URL
//! may carry a token (`?X-Plex-Token=…`); an application (or whatever
//! answers in its place) that redirects elsewhere must not get it there:
//!
//! - no `Referer` header, ever (reqwest sets one on a redirect, holding the
//!   URL that redirected, query included);
//! - redirects are followed to the same origin only (same scheme, host and
//!   port; at most [`MAX_REDIRECTS`]), as the VictoriaLogs client's
//!   `--follow-redirects` and the Kubernetes API client (which follows
//!   none; [`crate::cluster::redirect`]);
//! - a redirect to another origin is not followed: the probe cannot tell
//!   ([`ProbeAnswer::Unknown`], the pod treated as in use), naming the
//!   status and the `Location`'s origin only (no path, query or
//!   credentials).

use reqwest::{redirect, Url};

use super::{interpret, Probe, ProbeAnswer, PROBE_TIMEOUT};

/// Most redirects followed in a row (same origin only), as reqwest's default.
pub const MAX_REDIRECTS: usize = 10;

/// Most bytes of a probe's answer read: 1 MiB, far above an application's
/// activity answer (a few hundred bytes). The probe's timeout bounds time,
/// not bytes: an answer that never ended reached 3.67 GB within it
/// (break-it 34 H6).
pub const PROBE_ANSWER_LIMIT: usize = 1 << 20;

/// `scheme://host[:port]` of `url` (never its user, path or query).
fn origin_of(url: &Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{}://{host}:{port}", url.scheme()),
        (Some(host), None) => format!("{}://{host}", url.scheme()),
        (None, _) => format!("a {}: URL", url.scheme()),
    }
}

fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.port_or_known_default() == b.port_or_known_default()
}

/// The client every probe is asked with (see the module doc).
///
/// # Errors
/// A proxy variable whose port is no port (`HTTP_PROXY=http://u:p@h:99999`:
/// hyper would go to port 80 with the proxy's credentials, break-it 43 N2;
/// [`crate::env_proxy_problem`], the password masked), or reqwest's when no
/// client can be built (no TLS backend).
pub fn http_client() -> Result<reqwest::Client, String> {
    if let Some(problem) = crate::env_proxy_problem() {
        return Err(problem);
    }
    let policy = redirect::Policy::custom(|attempt| {
        let same = attempt.previous().first().is_some_and(|first| same_origin(first, attempt.url()));
        if !same {
            // Answered with the redirect itself: reported by [`ask`].
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .redirect(policy)
        .referer(false)
        .user_agent(concat!("kdrift/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| e.to_string())
}

/// What a redirect answer not followed says: its status and where it points
/// (the origin only).
fn not_followed(status: u16, location: Option<&reqwest::header::HeaderValue>, from: &Url) -> String {
    let to = match location.map(|l| l.to_str()) {
        None => "(no Location header)".to_string(),
        Some(Err(_)) => "(a Location that is not text)".to_string(),
        Some(Ok(l)) => from.join(l).map_or_else(|_| "(a Location that is no URL)".to_string(), |u| origin_of(&u)),
    };
    format!(
        "HTTP {status}: redirected to another origin, {to}; not followed (the probe's URL and its credentials \
         would go there)"
    )
}

/// Asks `probe` about one pod (made with [`http_client`]).
pub async fn ask(http: &reqwest::Client, probe: &Probe, namespace: &str, name: &str) -> ProbeAnswer {
    let (url, pointer) = match probe.target(namespace, name) {
        Ok(target) => target,
        Err(why) => return ProbeAnswer::Unknown(why),
    };
    let response =
        http.get(&url).header(reqwest::header::ACCEPT, "application/json").timeout(PROBE_TIMEOUT).send().await;
    // The reason quotes the application: redacted of every credential held.
    let redact = |text: String| crate::redact::held().redact(&text);
    let answer = match response {
        Err(e) => ProbeAnswer::Unknown(format!("no answer from {url}: {e}")),
        Ok(r) if r.status().is_redirection() => {
            ProbeAnswer::Unknown(not_followed(r.status().as_u16(), r.headers().get(reqwest::header::LOCATION), r.url()))
        }
        Ok(r) => {
            let status = r.status().as_u16();
            match read_capped(r).await {
                Ok(Some(body)) => interpret(status, &String::from_utf8_lossy(&body), pointer.as_deref()),
                Ok(None) => ProbeAnswer::Unknown(format!(
                    "the answer of {url} goes on past {PROBE_ANSWER_LIMIT} bytes (1 MiB), the most kdrift reads of \
                     a probe's answer: the rest is not read"
                )),
                Err(e) => ProbeAnswer::Unknown(format!("reading the answer of {url}: {e}")),
            }
        }
    };
    match answer {
        ProbeAnswer::Idle => ProbeAnswer::Idle,
        ProbeAnswer::InUse(why) => ProbeAnswer::InUse(redact(why)),
        ProbeAnswer::Unknown(why) => ProbeAnswer::Unknown(redact(why)),
    }
}

/// The body of `response`, or `None` once it goes past
/// [`PROBE_ANSWER_LIMIT`] (the rest is not read).
async fn read_capped(mut response: reqwest::Response) -> reqwest::Result<Option<Vec<u8>>> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > PROBE_ANSWER_LIMIT {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A server on 127.0.0.1 answering every request with `answer(request
    /// head)`, keeping every request head; returns its base URL.
    async fn server(answer: impl Fn(&str) -> String + Send + Sync + 'static) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (log, answer) = (seen.clone(), Arc::new(answer));
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let (log, answer) = (log.clone(), answer.clone());
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 8192];
                    let n = sock.read(&mut buf).await.unwrap_or(0);
                    let head = String::from_utf8_lossy(&buf[..n]).to_string();
                    log.lock().expect("log").push(head.clone());
                    let _ = sock.write_all(answer(&head).as_bytes()).await;
                });
            }
        });
        (base, seen)
    }

    fn json_answer(body: &str) -> String {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    }

    fn redirect_to(location: &str) -> String {
        format!("HTTP/1.1 302 Found\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
    }

    #[tokio::test]
    async fn a_redirect_to_another_origin_is_not_followed_and_no_referer_is_ever_sent() {
        let (evil, evil_seen) = server(|_| json_answer(r#"{"active": false}"#)).await;
        let landing = format!("{evil}/landing?x=1");
        let (app, app_seen) = server(move |head| {
            if head.starts_with("GET /same?") {
                redirect_to("/idle")
            } else if head.starts_with("GET /idle ") {
                json_answer(r#"{"active": false}"#)
            } else {
                redirect_to(&landing)
            }
        })
        .await;
        let http = http_client().expect("client");
        let probe = Probe::parse(&format!("app=web={app}/s?X-Plex-Token=PlexTokXy98Zw76Vu54")).expect("probe");
        let answer = ask(&http, &probe, "default", "web-0").await;
        assert_eq!(
            answer,
            ProbeAnswer::Unknown(format!(
                "HTTP 302: redirected to another origin, {evil}; not followed (the probe's URL and its credentials \
                 would go there)"
            ))
        );
        assert!(evil_seen.lock().expect("log").is_empty(), "nothing reached the other origin");
        // The same origin: followed, and without the URL that redirected.
        let probe = Probe::parse(&format!("app=web={app}/same?X-Plex-Token=PlexTokXy98Zw76Vu54")).expect("probe");
        assert_eq!(ask(&http, &probe, "default", "web-0").await, ProbeAnswer::Idle);
        let heads = app_seen.lock().expect("log").clone();
        assert_eq!(heads.len(), 3, "{heads:?}");
        assert!(heads[2].starts_with("GET /idle "), "{heads:?}");
        assert!(heads.iter().all(|h| !h.to_ascii_lowercase().contains("referer")), "{heads:?}");
    }

    #[tokio::test]
    async fn a_pod_with_a_hostile_name_is_not_probed() {
        let (evil, evil_seen) = server(|_| json_answer(r#"{"active": false}"#)).await;
        let port = evil.rsplit(':').next().expect("port").to_string();
        let probe =
            Probe::parse("app=web=http://{name}.default.svc:9/s?X-Plex-Token=PlexTokInj98Zw76Vu54").expect("probe");
        let http = http_client().expect("client");
        for name in [format!("127.0.0.1:{port}/?"), format!("a@127.0.0.1:{port}#")] {
            let answer = ask(&http, &probe, "default", &name).await;
            assert_eq!(
                answer,
                ProbeAnswer::Unknown(format!(
                    "the pod's name {name:?} is not a Kubernetes name (an RFC 1123 subdomain: lowercase letters, \
                     digits, '-' and '.'); kdrift puts no such text in a probe URL"
                ))
            );
            assert_eq!(probe.shown_target("default", &name), "http://{name}.default.svc:9/s?X-Plex-Token=***");
        }
        assert!(evil_seen.lock().expect("log").is_empty(), "the token reached {evil}");
    }

    #[tokio::test]
    async fn an_answer_without_end_stops_at_the_probe_cap() {
        // Break-it 34 H6: an endless answer reached 3.67 GB within the probe's 5 s.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let sent = Arc::new(Mutex::new(0usize));
        let counted = sent.clone();
        tokio::spawn(async move {
            let Ok((mut sock, _)) = listener.accept().await else { return };
            let mut buf = vec![0u8; 8192];
            let _ = sock.read(&mut buf).await;
            let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{\"active\": \"";
            let _ = sock.write_all(head.as_bytes()).await;
            let spaces = vec![b' '; 65536];
            while sock.write_all(&spaces).await.is_ok() {
                *counted.lock().expect("count") += spaces.len();
            }
        });
        let http = http_client().expect("client");
        let probe = Probe::parse(&format!("app=web={base}/active")).expect("probe");
        let answer = ask(&http, &probe, "default", "web-0").await;
        assert_eq!(
            answer,
            ProbeAnswer::Unknown(format!(
                "the answer of {base}/active goes on past 1048576 bytes (1 MiB), the most kdrift reads of a probe's \
                 answer: the rest is not read"
            ))
        );
        assert_eq!(PROBE_ANSWER_LIMIT, 1 << 20);
        // What the server got out before kdrift stopped reading: the cap and the sockets' buffers.
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(*sent.lock().expect("count") < 64 << 20, "{} bytes", sent.lock().expect("count"));
    }
}
