//! A fake VictoriaLogs server for tests (axum, 127.0.0.1 only, its own
//! thread and runtime), reproducing the behaviours kdrift must cope with
//! (victorialogs.md): rows stored as `/insert/jsonline` stores them
//! ([`storage`]), `/select/logsql/query` answering the LogsQL subset of
//! [`logsql`] with rows UNSORTED as one JSON object per line, `/hits`,
//! `/field_names`, tenants (`AccountID`/`ProjectID`), Basic/Bearer auth, and
//! injected failures ([`Fault`]): 400 and 503 with the real bodies, a 200
//! cut off mid-line, or a 200 whose body ends with an error text, each
//! followed by an aborted connection; a 200 that never ends, one with an
//! overlong line, a bad line, or no final newline. [`scripted`] answers with the test's closure instead and
//! records every request (hostile proxies, redirects).

pub mod handlers;
pub mod logsql;
pub mod scripted;
pub mod storage;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use storage::StoredRow;

/// A failure the fake answers a matching `/select/logsql/query` with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// 400 with a `cannot parse query [...]` body.
    BadRequest,
    /// 503 with VictoriaLogs' query-timeout body.
    Unavailable,
    /// 200, `lines` rows, half a row, then the connection is aborted.
    Truncate {
        /// Whole rows sent first.
        lines: usize,
    },
    /// 200, `lines` rows, then `\n<error text>\n` and an aborted connection
    /// (how VictoriaLogs reports an error after the header).
    ErrorText {
        /// Whole rows sent first.
        lines: usize,
    },
    /// 200, `lines` rows, then nothing more: the body never ends (a server
    /// that hangs; a client must be interrupted).
    Stall {
        /// Whole rows sent first.
        lines: usize,
    },
    /// 200, `lines` rows, a line of `bytes` bytes (no JSON), then the other
    /// rows (a broken server or proxy).
    LongLine {
        /// Whole rows sent first.
        lines: usize,
        /// The long line's length, without its newline.
        bytes: usize,
    },
    /// 200, `lines` rows, then the next two rows on one line (a relay that
    /// lost a newline), followed by `tail` on that line, then the other rows.
    Glued {
        /// Whole rows sent first.
        lines: usize,
        /// Text after the two rows (`""`: none).
        tail: String,
    },
    /// 200, `lines` rows, the line `text` (a broken row: cut, not JSON,
    /// trailing text), then the other rows (a broken proxy or shipper: the
    /// real server writes every row whole).
    BadLine {
        /// Whole rows sent first.
        lines: usize,
        /// The bad line, without its newline.
        text: String,
    },
    /// 200, every row, then `text` without a final newline (`None`: the
    /// last row loses its newline), and the body ends normally (a broken
    /// relay or shipper; break-it 42 H2).
    Unterminated {
        /// The last line (`None`: the last row is left without its newline).
        text: Option<String>,
    },
    /// 200, every row with `from` replaced by `to` in its JSON text (a
    /// broken writer or proxy: a key twice).
    Rewrite {
        /// Text replaced.
        from: String,
        /// What replaces it.
        to: String,
    },
}

/// When a fault applies.
#[derive(Debug, Clone)]
struct FaultRule {
    /// The endpoint it applies to.
    path: &'static str,
    fault: Fault,
    /// Times left; `None`: every time.
    remaining: Option<u32>,
    /// Only queries containing this text (e.g. a window's start time).
    when: Option<String>,
}

/// One request the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// Path, e.g. `/select/logsql/query`.
    pub path: String,
    /// The `query` argument, when any.
    pub query: Option<String>,
    /// The `AccountID` header.
    pub account_id: Option<String>,
    /// The `ProjectID` header.
    pub project_id: Option<String>,
    /// Whether an `Authorization` header came.
    pub authorized: bool,
    /// The status answered.
    pub status: u16,
}

/// Credentials the fake demands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Required {
    Basic(String),
    Bearer(String),
}

/// State shared with the handlers.
#[derive(Debug, Default)]
pub struct Shared {
    rows: Mutex<Vec<StoredRow>>,
    faults: Mutex<Vec<FaultRule>>,
    seen: Mutex<Vec<Seen>>,
    required: Mutex<Option<Required>>,
    counter: Mutex<u64>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    fn take_fault(&self, path: &str, query: &str) -> Option<Fault> {
        let mut faults = lock(&self.faults);
        let i = faults.iter().position(|r| r.path == path && r.when.as_deref().is_none_or(|w| query.contains(w)))?;
        let fault = faults[i].fault.clone();
        if let Some(n) = faults[i].remaining.as_mut() {
            *n -= 1;
            if *n == 0 {
                faults.remove(i);
            }
        }
        Some(fault)
    }

    fn next_seed(&self) -> u64 {
        let mut c = lock(&self.counter);
        *c += 1;
        *c
    }
}

/// A running fake VictoriaLogs. Dropping it stops the server.
pub struct FakeVlogs {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl FakeVlogs {
    /// Starts a server on 127.0.0.1 on a free port.
    ///
    /// # Panics
    /// When no port can be bound (a test environment problem).
    pub fn start() -> FakeVlogs {
        let shared = Arc::new(Shared::default());
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let state = shared.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
                addr_tx.send(listener.local_addr().expect("local address")).expect("report the address");
                let app = handlers::router(state);
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stop.await;
                    })
                    .await;
            });
        });
        let addr = addr_rx.recv().expect("the fake VictoriaLogs started");
        FakeVlogs { addr, shared, shutdown: Some(shutdown) }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Appends `bytes` bytes of `x` to the field `field` of the stored rows
    /// holding `marker` in it: a row longer than an insert may be (256 KiB
    /// here; the real server's `-insert.maxLineSizeBytes`, which a server can
    /// be started with much higher). Returns the rows changed.
    pub fn pad_field(&self, field: &str, marker: &str, bytes: usize) -> usize {
        let mut rows = lock(&self.shared.rows);
        let mut changed = 0;
        for value in rows.iter_mut().filter_map(|r| r.fields.get_mut(field)).filter(|v| v.contains(marker)) {
            value.push_str(&"x".repeat(bytes));
            changed += 1;
        }
        changed
    }

    /// Every request from now on needs Basic auth with these credentials (else 401).
    pub fn require_basic(&self, user: &str, password: &str) {
        *lock(&self.shared.required) = Some(Required::Basic(handlers::basic_header(user, password)));
    }

    /// Every request from now on needs this Bearer token (else 401).
    pub fn require_bearer(&self, token: &str) {
        *lock(&self.shared.required) = Some(Required::Bearer(format!("Bearer {token}")));
    }

    /// Answers the next `times` matching queries (`None`: all of them) with
    /// `fault`; `when` restricts it to queries containing that text.
    pub fn inject(&self, fault: Fault, times: Option<u32>, when: Option<&str>) {
        self.inject_on("/select/logsql/query", fault, times, when);
    }

    /// [`FakeVlogs::inject`] on another endpoint (`/select/logsql/hits`,
    /// `/select/logsql/field_names`: 400 and 503 only; the aborts answer 503 there).
    pub fn inject_on(&self, path: &'static str, fault: Fault, times: Option<u32>, when: Option<&str>) {
        lock(&self.shared.faults).push(FaultRule { path, fault, remaining: times, when: when.map(str::to_string) });
    }

    /// Removes every injected fault.
    pub fn clear_faults(&self) {
        lock(&self.shared.faults).clear();
    }

    /// The requests received so far.
    pub fn seen(&self) -> Vec<Seen> {
        lock(&self.shared.seen).clone()
    }

    /// Rows stored (all tenants).
    pub fn row_count(&self) -> usize {
        lock(&self.shared.rows).len()
    }

    /// Stores `rows` as they are (benchmarks load many rows without HTTP).
    pub fn insert_rows(&self, rows: impl IntoIterator<Item = StoredRow>) {
        lock(&self.shared.rows).extend(rows);
    }

    /// A copy of the stored rows (all tenants).
    pub fn rows(&self) -> Vec<StoredRow> {
        lock(&self.shared.rows).clone()
    }
}

impl Drop for FakeVlogs {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}
