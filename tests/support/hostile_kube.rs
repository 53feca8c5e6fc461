//! A tiny hostile Kubernetes API server on 127.0.0.1, for the faults the
//! fake apiserver ([`crate::fake_kube`]) cannot produce (issue 34): a list
//! page with one bad item (bytes as given, invalid UTF-8 included), a watch
//! stream with lines that are not JSON or not UTF-8, a server that accepts
//! the connection and never answers, or answers the headers and then
//! nothing, or sends a list one byte at a time, or a body without end. A route decides each
//! request's [`Answer`]; without one, a list is an empty list at
//! resourceVersion 100 and a watch is held open, silent.
//! Connections are HTTP/1.1 keep-alive, as kube's client uses them.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Answer {
    /// 200 with this body (a list).
    Body(Vec<u8>),
    /// 200, chunked, these lines (each `\n`-ended, sent as one chunk), then
    /// the response is held open, silent, until the client goes.
    Watch(Vec<Vec<u8>>),
    /// Nothing at all: the request is read, never answered.
    Silent,
    /// The headers of a 200 with a chunked body, then nothing.
    HeadersOnly,
    /// A 200 with this body (its full `Content-Length`), one byte per
    /// interval: never silent for long, never done (issue 34's slow drip).
    Drip(Vec<u8>, std::time::Duration),
    /// A 200 whose `Content-Length` is this length, with this body (shorter),
    /// then the connection closed (a page cut mid-body).
    Cut(Vec<u8>, usize),
    /// 410 Expired with its Status (a continue token too old).
    Expired,
    /// This error status with a Status body (`"message": "transient failure"`).
    Status(u16),
    /// The request is read, then the connection closed without an answer.
    Closed,
    /// This status code with a chunked body: these bytes, then spaces
    /// without end, as fast as the client takes them (break-it 34 H5, H6).
    Endless(u16, Vec<u8>),
}

/// Decides the answer from the request's path and query (`/api/v1/pods?limit=500`).
pub type Route = dyn Fn(&str) -> Option<Answer> + Send + Sync;

/// The running server (its threads end with the test process).
pub struct HostileKube {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl HostileKube {
    /// Starts it on a free port.
    ///
    /// # Panics
    /// When no port can be bound.
    pub fn start(route: impl Fn(&str) -> Option<Answer> + Send + Sync + 'static) -> HostileKube {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (route, log): (Arc<Route>, _) = (Arc::new(route), requests.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming().map_while(Result::ok) {
                let (route, log) = (route.clone(), log.clone());
                std::thread::spawn(move || serve(conn, &*route, &log));
            }
        });
        HostileKube { url, requests }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The path and query of every request so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Writes a kubeconfig pointing at it to `dir/kubeconfig`.
    ///
    /// # Panics
    /// When the file cannot be written.
    pub fn write_kubeconfig(&self, dir: &Path) -> PathBuf {
        let path = dir.join("kubeconfig");
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: h\nclusters:\n- name: h\n  cluster: {{server: '{}'}}\n\
             contexts:\n- name: h\n  context: {{cluster: h, user: u, namespace: default}}\nusers:\n- name: u\n  \
             user: {{token: hostile-token}}\n",
            self.url
        );
        std::fs::write(&path, text).expect("write kubeconfig");
        path
    }
}

/// A pod list (resourceVersion 100) whose items are these raw bytes.
pub fn list_of(kind: &str, items: &[Vec<u8>]) -> Vec<u8> {
    let mut body =
        format!(r#"{{"kind":"{kind}","apiVersion":"v1","metadata":{{"resourceVersion":"100"}},"items":["#).into_bytes();
    body.extend(items.join(&b","[..]));
    body.extend(b"]}");
    body
}

/// A pod `p{i}` of namespace `default` at resourceVersion `rv`, as JSON text.
pub fn pod(i: u32, rv: u32) -> String {
    format!(
        r#"{{"metadata":{{"name":"p{i}","namespace":"default","uid":"uid-p{i}","resourceVersion":"{rv}","creationTimestamp":"2026-11-27T10:00:00Z"}},"spec":{{"nodeName":"node-1","containers":[{{"name":"c","image":"img:1"}}]}},"status":{{"phase":"Running"}}}}"#
    )
}

fn serve(mut conn: TcpStream, route: &Route, log: &Mutex<Vec<String>>) {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let end = loop {
            if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match conn.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buffer[..end]).to_string();
        buffer.drain(..end);
        let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
        log.lock().unwrap_or_else(|p| p.into_inner()).push(target.clone());
        let answer = route(&target).unwrap_or_else(|| {
            if target.contains("watch=") {
                Answer::Watch(Vec::new())
            } else {
                Answer::Body(list_of("List", &[]))
            }
        });
        let held = match answer {
            Answer::Body(body) => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                conn.write_all(head.as_bytes()).and_then(|()| conn.write_all(&body)).is_err()
            }
            Answer::Watch(lines) => {
                let _ = conn.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                );
                for mut line in lines {
                    line.push(b'\n');
                    let _ = conn.write_all(format!("{:x}\r\n", line.len()).as_bytes());
                    let _ = conn.write_all(&line);
                    let _ = conn.write_all(b"\r\n");
                }
                true
            }
            Answer::Silent => true,
            Answer::Drip(body, every) => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                let mut sent = conn.write_all(head.as_bytes());
                for byte in &body {
                    if sent.is_err() {
                        break;
                    }
                    std::thread::sleep(every);
                    sent = conn.write_all(&[*byte]);
                }
                true
            }
            Answer::Cut(body, length) => {
                let head =
                    format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n");
                let _ = conn.write_all(head.as_bytes()).and_then(|()| conn.write_all(&body));
                let _ = conn.shutdown(std::net::Shutdown::Both);
                return;
            }
            Answer::Expired => {
                let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"The provided continue parameter is too old","reason":"Expired","code":410}"#;
                let head = format!(
                    "HTTP/1.1 410 Gone\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                conn.write_all(head.as_bytes()).and_then(|()| conn.write_all(body)).is_err()
            }
            Answer::Status(code) => {
                let body = format!(
                    r#"{{"kind":"Status","apiVersion":"v1","status":"Failure","message":"transient failure","reason":"InternalError","code":{code}}}"#
                );
                let head = format!(
                    "HTTP/1.1 {code} Whatever\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                conn.write_all(head.as_bytes()).and_then(|()| conn.write_all(body.as_bytes())).is_err()
            }
            Answer::Closed => {
                let _ = conn.shutdown(std::net::Shutdown::Both);
                return;
            }
            Answer::Endless(code, prefix) => {
                let head = format!(
                    "HTTP/1.1 {code} Whatever\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                );
                let chunk = |bytes: &[u8]| {
                    let mut out = format!("{:x}\r\n", bytes.len()).into_bytes();
                    out.extend_from_slice(bytes);
                    out.extend_from_slice(b"\r\n");
                    out
                };
                let spaces = chunk(&[b' '; 65536]);
                let mut sent = conn.write_all(head.as_bytes()).and_then(|()| conn.write_all(&chunk(&prefix)));
                while sent.is_ok() {
                    sent = conn.write_all(&spaces);
                }
                return;
            }
            Answer::HeadersOnly => {
                let _ = conn.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                );
                true
            }
        };
        if held {
            // Until the client goes.
            while matches!(conn.read(&mut chunk), Ok(n) if n > 0) {}
            return;
        }
    }
}
