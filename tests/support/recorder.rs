//! Running kdrift's recorder in-process against a [`crate::fake_kube::FakeKube`]:
//! its own thread and runtime, a store file that is released when it stops,
//! and an observer the test waits on (what was listed, observed, committed).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use kdrift_ingest::{record_cluster, ApiReport, Clock, MetricsReport, RecordObserver, RecordOptions};
use kdrift_rebalance::{ClusterOptions, ResourceKind, Scope};
use kdrift_store::Change;
use kdrift_store::RunCounts;
use kdrift_store::Store;

/// What the recorder reported so far.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    /// Resource name → number of (re-)lists completed.
    pub lists: HashMap<String, u32>,
    /// Every observation staged: (resource name, change, resourceVersion).
    pub observed: Vec<(String, Change, String)>,
    /// Resource name → highest resourceVersion observed.
    pub max_rv: HashMap<String, u64>,
    /// Problems reported: (resource name, message, fatal).
    pub problems: Vec<(String, String, bool)>,
    /// Totals after the last batch commit.
    pub committed: Option<RunCounts>,
    /// The usage notes said (`metrics.k8s.io` not served), in order.
    pub usage_notes: Vec<String>,
    /// Usage totals after the last take of the metrics API.
    pub usage: Option<MetricsReport>,
}

/// An observer shared with the test thread.
#[derive(Debug, Clone, Default)]
pub struct Watched(Arc<(Mutex<Seen>, Condvar)>);

impl Watched {
    /// A copy of what was seen.
    pub fn seen(&self) -> Seen {
        self.0 .0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Waits until `condition` holds (true) or `timeout` passes (false).
    pub fn wait(&self, timeout: Duration, condition: impl Fn(&Seen) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        let (lock, cvar) = &*self.0;
        let mut seen = lock.lock().unwrap_or_else(|p| p.into_inner());
        while !condition(&seen) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            seen = cvar.wait_timeout(seen, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        true
    }

    fn update(&self, f: impl FnOnce(&mut Seen)) {
        let (lock, cvar) = &*self.0;
        f(&mut lock.lock().unwrap_or_else(|p| p.into_inner()));
        cvar.notify_all();
    }
}

impl RecordObserver for Watched {
    fn observed(&mut self, resource: &ResourceKind, change: Change, resource_version: &str) {
        self.update(|s| {
            let rv: u64 = resource_version.parse().unwrap_or(0);
            let max = s.max_rv.entry(resource.name()).or_insert(0);
            *max = (*max).max(rv);
            s.observed.push((resource.name(), change, resource_version.to_string()));
        });
    }

    fn synced(&mut self, resource: &ResourceKind, _resource_version: &str, _relist: bool) {
        self.update(|s| *s.lists.entry(resource.name()).or_insert(0) += 1);
    }

    fn committed(&mut self, counts: &RunCounts) {
        self.update(|s| s.committed = Some(*counts));
    }

    fn problem(&mut self, resource: &ResourceKind, message: &str, fatal: bool) {
        self.update(|s| s.problems.push((resource.name(), message.to_string(), fatal)));
    }

    fn usage_note(&mut self, message: &str) {
        self.update(|s| s.usage_notes.push(message.to_string()));
    }

    fn usage_sampled(&mut self, totals: &MetricsReport) {
        self.update(|s| s.usage = Some(totals.clone()));
    }
}

/// A recorder running in its own thread.
pub struct RunningRecorder {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<ApiReport, String>>>,
    /// What it reports.
    pub watched: Watched,
}

impl RunningRecorder {
    /// Starts recording every namespace of the cluster `kubeconfig` points
    /// at into `db`; `tune` adjusts the options (batch sizes, backoff).
    ///
    /// # Panics
    /// When the store or the cluster cannot be opened (in the thread: at
    /// [`RunningRecorder::stop`]).
    pub fn start(
        kubeconfig: &Path,
        db: &Path,
        clock: Arc<dyn Clock>,
        tune: impl FnOnce(&mut RecordOptions) + Send + 'static,
    ) -> RunningRecorder {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let watched = Watched::default();
        let mut observer = watched.clone();
        let (kubeconfig, db) = (kubeconfig.to_path_buf(), db.to_path_buf());
        let thread = std::thread::spawn(move || {
            let rt =
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
            rt.block_on(async move {
                let store = Store::open(&db).expect("store");
                let opts = ClusterOptions { kubeconfig: Some(kubeconfig), context: None };
                let c = opts.open().await.expect("connect");
                let mut options = RecordOptions::new(c.url.clone(), Scope::AllNamespaces);
                tune(&mut options);
                let shutdown = async move {
                    let _ = stopped.await;
                };
                record_cluster(&store, &c.client, &options, clock, shutdown, &mut observer).await.map_err(|e| {
                    let mut text = e.to_string();
                    let mut source = std::error::Error::source(&e);
                    while let Some(s) = source {
                        text = format!("{text}: {s}");
                        source = s.source();
                    }
                    text
                })
            })
        });
        RunningRecorder { stop: Some(stop), thread: Some(thread), watched }
    }

    /// Waits until every resource of `resources` has been listed `lists` times.
    pub fn wait_listed(&self, resources: &[ResourceKind], lists: u32, timeout: Duration) -> bool {
        self.watched.wait(timeout, |s| resources.iter().all(|r| s.lists.get(&r.name()).copied().unwrap_or(0) >= lists))
    }

    /// Stops it (as SIGTERM would) and returns its report.
    ///
    /// # Panics
    /// When the recorder failed.
    pub fn stop(mut self) -> ApiReport {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        self.thread.take().expect("running").join().expect("recorder thread").expect("record")
    }

    /// Waits until it ends by itself (a store error): its error, with causes.
    ///
    /// # Panics
    /// When its thread panicked.
    pub fn ended(mut self) -> Result<ApiReport, String> {
        let result = self.thread.take().expect("running").join().expect("recorder thread");
        drop(self.stop.take());
        result
    }
}

/// One HTTP GET on the loopback (the recorder's metrics server): (status
/// code, body).
///
/// # Panics
/// When the server does not answer HTTP.
pub fn http_get(addr: &str, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connect to the metrics server");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").expect("request");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    let (head, body) = answer.split_once("\r\n\r\n").expect("headers");
    let code = head.split(' ').nth(1).and_then(|c| c.parse().ok()).expect("status code");
    (code, body.to_string())
}
