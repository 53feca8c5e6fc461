//! A scripted HTTP server for hostile-server tests: a proxy's debug page
//! echoing the request's headers, an error page quoting them, a redirect to
//! another port, an answer that never ends. Every request (method, path, headers, body) is recorded
//! and answered by the test's closure. 127.0.0.1 only, its own thread and
//! runtime; dropping it stops the server.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;

use super::lock;

/// One request received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`.
    pub method: String,
    /// The path, e.g. `/select/logsql/query`.
    pub path: String,
    /// Every header (name lowercased, value as text), in the order received.
    pub headers: Vec<(String, String)>,
    /// The body, as text (a form for kdrift's requests).
    pub body: String,
}

impl Request {
    /// The value of header `name` (lowercase), when it came.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Extra headers (e.g. `Location`).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
    /// After `body`, spaces without end (an answer that never ends,
    /// break-it 34 H6).
    pub endless: bool,
    /// After `body`, one space each such pause without end (a server
    /// trickling its answer, break-it 35 F20).
    pub trickle: Option<std::time::Duration>,
}

impl Reply {
    /// `status` with `body` as text.
    pub fn new(status: u16, body: impl Into<String>) -> Reply {
        Reply { status, headers: Vec::new(), body: body.into(), endless: false, trickle: None }
    }

    /// `status` with `body` then spaces without end.
    pub fn endless(status: u16, body: impl Into<String>) -> Reply {
        Reply { endless: true, ..Reply::new(status, body) }
    }

    /// `status` with `body`, then a space each `pause` without end.
    pub fn trickle(status: u16, body: impl Into<String>, pause: std::time::Duration) -> Reply {
        Reply { trickle: Some(pause), ..Reply::new(status, body) }
    }

    /// A redirect (`status` 301–308) to `location`.
    pub fn redirect(status: u16, location: impl Into<String>) -> Reply {
        Reply { headers: vec![("location".into(), location.into())], ..Reply::new(status, "") }
    }
}

type Script = dyn Fn(&Request) -> Reply + Send + Sync;

struct Shared {
    script: Box<Script>,
    seen: Mutex<Vec<Request>>,
}

/// A running scripted server.
pub struct Scripted {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

async fn answer(
    State(state): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = Request {
        method: method.to_string(),
        path: uri.path().to_string(),
        headers: headers
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).to_string()))
            .collect(),
        body: String::from_utf8_lossy(&body).to_string(),
    };
    let reply = (state.script)(&request);
    lock(&state.seen).push(request);
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = if let Some(pause) = reply.trickle {
        let first = futures::stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(reply.body)) });
        let spaces = futures::stream::unfold((), move |()| async move {
            tokio::time::sleep(pause).await;
            Some((Ok(Bytes::from_static(b" ")), ()))
        });
        (status, axum::body::Body::from_stream(futures::StreamExt::chain(first, spaces))).into_response()
    } else if reply.endless {
        let first = futures::stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(reply.body)) });
        let spaces = futures::stream::repeat_with(|| Ok(Bytes::from_static(&[b' '; 65536])));
        (status, axum::body::Body::from_stream(futures::StreamExt::chain(first, spaces))).into_response()
    } else {
        (status, reply.body).into_response()
    };
    for (name, value) in reply.headers {
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(&value)) {
            response.headers_mut().insert(n, v);
        }
    }
    response
}

impl Scripted {
    /// Starts a server on 127.0.0.1 on a free port, answering with `script`.
    ///
    /// # Panics
    /// When no port can be bound (a test environment problem).
    pub fn start(script: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Scripted {
        let shared = Arc::new(Shared { script: Box::new(script), seen: Mutex::new(Vec::new()) });
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let state = shared.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
                addr_tx.send(listener.local_addr().expect("local address")).expect("report the address");
                let app = Router::new().fallback(answer).with_state(state);
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stop.await;
                    })
                    .await;
            });
        });
        let addr = addr_rx.recv().expect("the scripted server started");
        Scripted { addr, shared, shutdown: Some(shutdown) }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests received so far.
    pub fn seen(&self) -> Vec<Request> {
        lock(&self.shared.seen).clone()
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}
