//! A fake Kubernetes API server for tests: plain HTTP on 127.0.0.1, in its
//! own thread and runtime, good enough for kube-rs list/watch and for
//! kubectl (discovery, Tables), with the `pods/eviction` subresource.
//!
//! ```no_run
//! use kdrift_tests::fake_kube::FakeKube;
//! let kube = FakeKube::start();
//! kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})).unwrap();
//! let dir = tempfile::tempdir().unwrap();
//! let kubeconfig = kube.write_kubeconfig(dir.path());
//! // point kube-rs (ClusterOptions { kubeconfig: Some(kubeconfig), .. }) or kubectl at it
//! ```
//!
//! Wire format as the real apiserver's: `Status` errors, `PodList`-style
//! lists without item kinds, globally increasing `metadata.resourceVersion`
//! strings, continue tokens over a list snapshot, watches with BOOKMARKs and
//! 410 `Expired`. Faults: per-resource error codes, unserved resources,
//! expired watches, compaction, dropped watch connections, failing or slow
//! evictions. Logs: every request and every eviction.
//!
//! Simplifications: no auth, no admission or validation beyond names, no
//! finalizers or graceful deletion (a delete or eviction removes the object
//! at once), strategic merge patch applied as a JSON merge patch, watches
//! with a selector do not turn "left the selection" into DELETED.

pub mod discovery;
pub mod event_views;
pub mod eviction;
pub mod faults;
pub mod http;
pub mod list;
pub mod metrics;
pub mod resources;
pub mod scenario;
pub mod selectors;
pub mod state;
pub mod status;
pub mod table;
pub mod watch;
pub mod writes;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use kdrift_scenario::{ObjectChange, Scenario, ScenarioRecord};
use serde_json::Value;

pub use eviction::PDB_MESSAGE;
pub use faults::EvictionFault;
pub use state::{EvictionRecord, RequestRecord};
pub use status::ApiError;

use faults::EvictionRule;
use http::Shared;
use resources::by_kind;
use state::{Stamp, State};

/// One container's reading for [`FakeKube::set_pod_metrics`]: (container,
/// cpu, memory) quantities.
pub type ContainerUsage<'a> = (&'a str, &'a str, &'a str);

/// A running fake apiserver; stops when dropped.
pub struct FakeKube {
    shared: Arc<Shared>,
    url: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for FakeKube {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeKube").field("url", &self.url).finish_non_exhaustive()
    }
}

fn resource(api_version: &str, kind: &str) -> Result<resources::ResourceId, ApiError> {
    by_kind(api_version, kind)
        .ok_or_else(|| ApiError::bad_request(format!("the fake does not serve {api_version} {kind}")))
}

fn text<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

impl FakeKube {
    /// Starts a server on `127.0.0.1:0` (a free port).
    ///
    /// # Panics
    /// When no local port can be bound or no runtime started (a broken test
    /// machine).
    pub fn start() -> FakeKube {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).expect("nonblocking listener");
        let address = listener.local_addr().expect("local address").to_string();
        let (drops, _) = tokio::sync::watch::channel(0u64);
        let shared = Arc::new(Shared {
            state: Mutex::new(State::new()),
            drops,
            open_watches: AtomicUsize::new(0),
            address: address.clone(),
        });
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let app = axum::Router::new().fallback(http::dispatch).with_state(shared.clone());
        let thread = std::thread::Builder::new()
            .name("fake-kube".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("fake-kube runtime");
                rt.block_on(async move {
                    use axum::serve::ListenerExt;
                    // Small watch chunks go out at once (no Nagle delay), as from a real apiserver.
                    let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener").tap_io(|tcp| {
                        let _ = tcp.set_nodelay(true);
                    });
                    tokio::select! {
                        _ = axum::serve(listener, app) => {}
                        _ = stop => {}
                    }
                });
                rt.shutdown_timeout(Duration::from_millis(200));
            })
            .expect("fake-kube thread");
        FakeKube { shared, url: format!("http://{address}"), shutdown: Some(shutdown), thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A kubeconfig (context `fake`, cluster `fake`, namespace `namespace`
    /// or `default`) pointing at the server.
    pub fn kubeconfig(&self, namespace: Option<&str>) -> String {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  cluster:\n    server: {}\n\
             contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: {}\n\
             users:\n- name: fake\n  user:\n    token: fake-token\n",
            self.url,
            namespace.unwrap_or("default")
        )
    }

    /// Writes [`FakeKube::kubeconfig`] to `dir/kubeconfig` and returns its path.
    ///
    /// # Panics
    /// When the file cannot be written.
    pub fn write_kubeconfig(&self, dir: &Path) -> PathBuf {
        let path = dir.join("kubeconfig");
        std::fs::write(&path, self.kubeconfig(None)).expect("write kubeconfig");
        path
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.shared.lock())
    }

    /// Creates an object (by its `apiVersion` and `kind`), stamping the next
    /// resourceVersion; watchers get ADDED. Returns it as stored.
    ///
    /// # Errors
    /// 409 when it exists, 400 for a kind the fake does not serve.
    pub fn create(&self, object: Value) -> Result<Value, ApiError> {
        let rid = resource(text(&object, "/apiVersion"), text(&object, "/kind"))?;
        self.with(|st| st.create(rid, object, Stamp::Next))
    }

    /// Replaces an object; watchers get MODIFIED.
    ///
    /// # Errors
    /// 404 when it does not exist.
    pub fn update(&self, object: Value) -> Result<Value, ApiError> {
        let rid = resource(text(&object, "/apiVersion"), text(&object, "/kind"))?;
        self.with(|st| st.update(rid, object, Stamp::Next, false))
    }

    /// Deletes an object; watchers get DELETED with its last state.
    ///
    /// # Errors
    /// 404 when it does not exist.
    pub fn delete(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Result<Value, ApiError> {
        let rid = resource(api_version, kind)?;
        self.with(|st| st.delete(rid, namespace, name, None, Stamp::Next))
    }

    /// One object as the API shows it.
    pub fn get(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Option<Value> {
        let rid = resource(api_version, kind).ok()?;
        self.with(|st| st.get(rid, namespace, name))
    }

    /// Every current object of a kind (all namespaces), in namespace/name order.
    pub fn objects(&self, api_version: &str, kind: &str) -> Vec<Value> {
        match resource(api_version, kind) {
            Ok(rid) => self.with(|st| st.list(rid, None)),
            Err(_) => Vec::new(),
        }
    }

    /// The newest resourceVersion handed out.
    pub fn resource_version(&self) -> u64 {
        self.with(|st| st.rv)
    }

    /// Applies one recorded change (see [`scenario::apply`]); resourceVersions
    /// of a recorded history are kept.
    ///
    /// # Errors
    /// An [`ApiError`] for a kind the fake does not serve or a missing object.
    pub fn apply(&self, change: ObjectChange, object: &Value) -> Result<Value, ApiError> {
        self.with(|st| scenario::apply(st, change, object))
    }

    /// Loads the scenario's objects as they were at `at` (the end when
    /// `None`). Returns how many objects were created.
    ///
    /// # Panics
    /// When the scenario holds a kind the fake does not serve.
    pub fn load_state_at(&self, scenario: &Scenario, at: Option<DateTime<Utc>>) -> usize {
        let objects = scenario::state_at(scenario, at);
        let n = objects.len();
        for o in objects {
            self.apply(ObjectChange::Added, &o).expect("scenario object");
        }
        n
    }

    /// Loads the scenario's final state.
    ///
    /// # Panics
    /// As [`FakeKube::load_state_at`].
    pub fn load_final_state(&self, scenario: &Scenario) -> usize {
        self.load_state_at(scenario, None)
    }

    /// Replays `records` in order, each after `before_each(record)` (a test
    /// sets its recorder's clock there, or waits for it to catch up).
    ///
    /// # Panics
    /// When a record cannot be applied.
    pub fn replay<'a>(
        &self,
        records: impl IntoIterator<Item = &'a ScenarioRecord>,
        mut before_each: impl FnMut(&ScenarioRecord),
    ) {
        for r in records {
            before_each(r);
            self.apply(r.change, &r.object).expect("scenario record");
        }
    }

    /// Forgets the change history up to now: watches and continue tokens from
    /// an older resourceVersion get 410 Gone (etcd compaction).
    pub fn compact(&self) {
        self.with(State::compact);
    }

    /// An outage that only a re-list can reveal: drops every watch, applies
    /// `changes` while no request can get in, then compacts the history, so
    /// watchers that reconnect get 410 Gone and must list again.
    pub fn outage_with_compaction(&self, changes: impl FnOnce(&mut Outage<'_>)) {
        let mut st = self.shared.lock();
        self.drop_watches();
        changes(&mut Outage { state: &mut st });
        st.compact();
    }

    /// Aborts every open watch connection mid-stream.
    pub fn drop_watches(&self) {
        self.shared.drops.send_modify(|g| *g += 1);
    }

    /// The next `n` watch requests get 410 Gone whatever their resourceVersion.
    pub fn expire_next_watches(&self, n: usize) {
        self.with(|st| st.faults.expire_watches += n);
    }

    /// Every list, watch and get of `resource` (`pods`,
    /// `poddisruptionbudgets.policy`) answers `code` (403 as RBAC words it;
    /// 200: a page that is not JSON, as a proxy's).
    pub fn fail_resource(&self, resource: &str, code: u16) {
        self.with(|st| st.faults.resource_codes.insert(resource.to_string(), code));
    }

    /// The errors [`FakeKube::fail_resource`] injects, and every eviction
    /// error, quote the request's
    /// `Authorization` header (raw, base64 padded and not, URL-encoded,
    /// JSON-escaped), as a hostile server or proxy may.
    pub fn echo_authorization(&self) {
        self.with(|st| st.faults.echo_authorization = true);
    }

    /// Every list answer's JSON text and watch event line gets `from`
    /// replaced by `to` (to write a key twice in an item, as no `Value`
    /// can).
    pub fn rewrite_lists(&self, from: &str, to: &str) {
        self.with(|st| st.faults.list_rewrites.push((from.to_string(), to.to_string())));
    }

    /// NodeMetrics of metrics-server: (node, cpu, memory) quantities, e.g.
    /// `("node-1", "123456789n", "123456Ki")`; replaces the previous ones.
    pub fn set_node_metrics(&self, nodes: &[(&str, &str, &str)]) {
        let nodes = metrics::node_usages(nodes);
        self.with(|st| st.metrics.nodes = nodes);
    }

    /// PodMetrics of metrics-server: (namespace, pod, [(container, cpu,
    /// memory)]); replaces the previous ones.
    pub fn set_pod_metrics(&self, pods: &[(&str, &str, &[ContainerUsage<'_>])]) {
        let pods = metrics::pod_usages(pods);
        self.with(|st| st.metrics.pods = pods);
    }

    /// The readings' `timestamp` (`None`, the default: the time of each
    /// request, to the second).
    pub fn set_metrics_timestamp(&self, at: Option<DateTime<Utc>>) {
        self.with(|st| st.metrics.timestamp = at);
    }

    /// Queues whole readings after those queued before: each list of all
    /// NodeMetrics (a scrape's first request) takes the next one, which
    /// then stands until the next (see `metrics`).
    pub fn queue_metrics(&self, readings: impl IntoIterator<Item = metrics::Reading>) {
        self.with(|st| st.metrics.queue.extend(readings));
    }

    /// How many queued readings no scrape has taken yet.
    pub fn metrics_queued(&self) -> usize {
        self.with(|st| st.metrics.queue.len())
    }

    /// Whether `metrics.k8s.io` is served (default true); not served: absent
    /// from discovery and 404, a cluster without metrics-server.
    pub fn serve_metrics(&self, served: bool) {
        self.with(|st| st.metrics.served = served);
    }

    /// `resource` is not served: absent from discovery, 404.
    pub fn hide_resource(&self, resource: &str) {
        self.with(|st| st.faults.hidden.insert(resource.to_string()));
    }

    /// Evictions (of `pod` = (namespace, name), or of any pod) get `fault`,
    /// `times` times or always.
    pub fn fail_evictions(&self, fault: EvictionFault, pod: Option<(&str, &str)>, times: Option<usize>) {
        let pod = pod.map(|(ns, n)| (ns.to_string(), n.to_string()));
        self.with(|st| st.faults.evictions.push(EvictionRule { fault, pod, remaining: times }));
    }

    /// Removes every injected fault.
    pub fn clear_faults(&self) {
        self.with(|st| {
            let interval = st.faults.bookmark_interval;
            st.faults = faults::Faults { bookmark_interval: interval, ..faults::Faults::default() };
        });
    }

    /// How often watches that allow bookmarks get one (default 500 ms); for
    /// watches started afterwards.
    pub fn set_bookmark_interval(&self, interval: Duration) {
        self.with(|st| st.faults.bookmark_interval = interval);
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.with(|st| st.requests.clone())
    }

    /// Every eviction request so far, with the answer's code.
    pub fn evictions(&self) -> Vec<EvictionRecord> {
        self.with(|st| st.evictions.clone())
    }

    /// Watch connections currently open.
    pub fn open_watches(&self) -> usize {
        self.shared.open_watches.load(Ordering::SeqCst)
    }

    /// Polls `condition` every 10 ms until it holds or `timeout` passes;
    /// returns whether it held.
    pub fn wait_until(&self, timeout: Duration, mut condition: impl FnMut(&FakeKube) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if condition(self) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Writes during [`FakeKube::outage_with_compaction`].
pub struct Outage<'a> {
    state: &'a mut State,
}

impl Outage<'_> {
    /// Creates an object (ADDED).
    ///
    /// # Errors
    /// As [`FakeKube::create`].
    pub fn create(&mut self, object: Value) -> Result<Value, ApiError> {
        let rid = resource(text(&object, "/apiVersion"), text(&object, "/kind"))?;
        self.state.create(rid, object, Stamp::Next)
    }

    /// Replaces an object (MODIFIED).
    ///
    /// # Errors
    /// As [`FakeKube::update`].
    pub fn update(&mut self, object: Value) -> Result<Value, ApiError> {
        let rid = resource(text(&object, "/apiVersion"), text(&object, "/kind"))?;
        self.state.update(rid, object, Stamp::Next, false)
    }

    /// Deletes an object (DELETED).
    ///
    /// # Errors
    /// As [`FakeKube::delete`].
    pub fn delete(&mut self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Result<Value, ApiError> {
        let rid = resource(api_version, kind)?;
        self.state.delete(rid, namespace, name, None, Stamp::Next)
    }
}

impl Drop for FakeKube {
    fn drop(&mut self) {
        self.drop_watches();
        if let Some(s) = self.shutdown.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
