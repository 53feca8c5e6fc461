//! A generated cluster whose requests are even but one node is hot (kdrift
//! issue 37): four 4000m / 16 GiB nodes, each 45–55 % requested (cpu and
//! memory), and measured usage every 30 s for four hours from [`T0`].
//!
//! - node-3 runs `web/api-4` and three pods of Deployment `batch/crunch`
//!   (500m requested each). The rollout at T0+55m (ScalingReplicaSet
//!   "Scaled up replica set crunch-5f6b8 from 0 to 3") replaced ReplicaSet
//!   crunch-7c9d4's pods with crunch-5f6b8's; from T0+1h to T0+3h those use
//!   1100m each (2.2× their request): node-3 at 3900m = 97.5 % cpu used
//!   while 50 % requested. Before and after: 300m each, node-3 at 37.5 %.
//!   Memory: 50 % requested on every node, 34–44 % used.
//! - node-1 spikes for 10 minutes (T0+30m to T0+40m) to 3800m = 95 %: not
//!   an episode of three 5-minute steps.
//! - Every node's usage is its pods' plus 200m (system), memory its pods'
//!   1.5 GiB working sets plus 1 GiB.
//!
//! [`samples`] gives the samples to store directly; [`exposition`] the
//! node-exporter and cAdvisor series (counters and gauges) to load into
//! VictoriaMetrics, from which `ingest prometheus` computes the same usage
//! through `rate(…[5m])`.

use chrono::{DateTime, Duration, Utc};
use kdrift_scenario::{ObjectChange, ScenarioRecord};
use kdrift_store::{Record, Store, UsageKind, UsageSample, UsageSource};
use serde_json::{json, Value};

/// 2026-11-13T00:00:00Z, seconds since the epoch: the first sample.
pub const T0: i64 = 1_794_528_000;
/// Sampling interval, seconds.
pub const EVERY: i64 = 30;
/// The samples span [T0, T0 + 4 h].
pub const HOURS: i64 = 4;
/// GiB in bytes.
const GIB: i64 = 1 << 30;

/// `T0 + seconds`.
pub fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(T0 + seconds, 0).expect("time")
}

/// One pod: namespace, name, node, cpu request (millicores), memory request (GiB), owner ReplicaSet.
struct PodDef {
    namespace: &'static str,
    name: &'static str,
    node: &'static str,
    cpu_m: i64,
    memory_gi: i64,
    rs: &'static str,
}

const fn pod(namespace: &'static str, name: &'static str, node: &'static str, cpu_m: i64, rs: &'static str) -> PodDef {
    PodDef { namespace, name, node, cpu_m, memory_gi: 2, rs }
}

/// Every pod; crunch-7c9d4-* live until the rollout, crunch-5f6b8-* after it.
const PODS: &[PodDef] = &[
    pod("web", "api-1", "node-1", 500, "api-6d5f"),
    pod("web", "api-2", "node-1", 500, "api-6d5f"),
    pod("shop", "cart-1", "node-1", 500, "cart-84b2"),
    pod("shop", "cart-2", "node-1", 500, "cart-84b2"),
    pod("web", "api-3", "node-2", 500, "api-6d5f"),
    pod("shop", "cart-3", "node-2", 500, "cart-84b2"),
    PodDef { namespace: "search", name: "index-1", node: "node-2", cpu_m: 800, memory_gi: 4, rs: "index-9f1c" },
    pod("web", "api-4", "node-3", 500, "api-6d5f"),
    pod("batch", "crunch-7c9d4-aaaaa", "node-3", 500, "crunch-7c9d4"),
    pod("batch", "crunch-7c9d4-bbbbb", "node-3", 500, "crunch-7c9d4"),
    pod("batch", "crunch-7c9d4-ccccc", "node-3", 500, "crunch-7c9d4"),
    pod("batch", "crunch-5f6b8-xk2p9", "node-3", 500, "crunch-5f6b8"),
    pod("batch", "crunch-5f6b8-q7w4z", "node-3", 500, "crunch-5f6b8"),
    pod("batch", "crunch-5f6b8-m3n8v", "node-3", 500, "crunch-5f6b8"),
    pod("web", "api-5", "node-4", 500, "api-6d5f"),
    pod("shop", "cart-4", "node-4", 500, "cart-84b2"),
    pod("search", "query-1", "node-4", 800, "query-3e8a"),
    pod("ml", "embed-1", "node-4", 400, "embed-2c7a"),
];

/// The node the hot pods run on.
pub const HOT_NODE: &str = "node-3";
/// The pods that drive its episode.
pub const HOT_PODS: [&str; 3] = ["crunch-5f6b8-m3n8v", "crunch-5f6b8-q7w4z", "crunch-5f6b8-xk2p9"];
/// The rollout's ScalingReplicaSet message.
pub const ROLLOUT: &str = "Scaled up replica set crunch-5f6b8 from 0 to 3";
/// The old crunch pods are deleted as the new ones are bound (s after T0): requests stay even.
const OLD_GONE: i64 = NEW_BOUND;
/// The new ones are created and bound (s after T0).
const NEW_BOUND: i64 = 55 * 60;

fn old(p: &PodDef) -> bool {
    p.rs == "crunch-7c9d4"
}

fn new(p: &PodDef) -> bool {
    p.rs == "crunch-5f6b8"
}

/// Whether `p` runs at `s` seconds after T0.
fn alive(p: &PodDef, s: i64) -> bool {
    (!old(p) || s < OLD_GONE) && (!new(p) || s >= NEW_BOUND)
}

/// What `p` uses at `s` seconds after T0, millicores.
fn pod_cpu(p: &PodDef, s: i64) -> i64 {
    let hot = (3600..3 * 3600).contains(&s);
    let spike = (1800..2400).contains(&s);
    match (p.name, p.namespace) {
        _ if new(p) && hot => 1100,
        _ if old(p) || new(p) => 300,
        ("api-1", _) if spike => 1800,
        ("api-2", _) if spike => 1200,
        (_, "web") => 400,
        (_, "shop") | (_, "ml") => 300,
        (_, "search") => 600,
        _ => 100,
    }
}

/// A pod's working set, bytes.
const POD_MEMORY: i64 = 3 * GIB / 2;

/// The nodes' names.
pub const NODES: [&str; 4] = ["node-1", "node-2", "node-3", "node-4"];

/// Every node's and pod's usage sample at `s` seconds after T0.
pub fn at_instant(s: i64) -> Vec<UsageSample> {
    let at_us = (T0 + s) * 1_000_000;
    let mut out = Vec::new();
    for node in NODES {
        let pods: Vec<&PodDef> = PODS.iter().filter(|p| p.node == node && alive(p, s)).collect();
        let cpu = 200 + pods.iter().map(|p| pod_cpu(p, s)).sum::<i64>();
        let memory = GIB + POD_MEMORY * pods.len() as i64;
        out.push(UsageSample {
            kind: UsageKind::Node,
            node: Some(node.into()),
            namespace: None,
            pod: None,
            at_us,
            cpu_millis: Some(cpu),
            memory_bytes: Some(memory),
        });
        for p in pods {
            out.push(UsageSample {
                kind: UsageKind::Pod,
                node: Some(node.into()),
                namespace: Some(p.namespace.into()),
                pod: Some(p.name.into()),
                at_us,
                cpu_millis: Some(pod_cpu(p, s)),
                memory_bytes: Some(POD_MEMORY),
            });
        }
    }
    out
}

/// Every sample, T0 to T0 + 4 h every 30 s (481 instants).
pub fn samples() -> Vec<UsageSample> {
    (0..=HOURS * 3600 / EVERY).flat_map(|k| at_instant(k * EVERY)).collect()
}

/// Stores [`samples`] as one metrics-API run.
///
/// # Panics
/// When the store refuses them.
pub fn store_samples(store: &Store) {
    store.commit_usage("api", "hot-node", UsageSource::MetricsApi, &samples(), &[], None).expect("commit usage");
}

/// The same usage as node-exporter and cAdvisor series (text exposition,
/// timestamps in ms): cpu as counters of seconds (integrated from the
/// per-30 s usage), memory as gauges.
pub fn exposition() -> String {
    let mut out = String::new();
    let mut node_cpu = [0i64; 4];
    let mut pod_cpu_total = vec![0i64; PODS.len()];
    for k in 0..=HOURS * 3600 / EVERY {
        let s = k * EVERY;
        let ms = (T0 + s) * 1000;
        for (i, node) in NODES.iter().enumerate() {
            let pods: Vec<&PodDef> = PODS.iter().filter(|p| p.node == *node && alive(p, s)).collect();
            // Counters in millicore-seconds: the value at s covers (s − 30, s].
            let secs = |m: i64| format!("{}.{:03}", m / 1000, m % 1000);
            out.push_str(&format!(
                "node_cpu_seconds_total{{node=\"{node}\",instance=\"{node}:9100\",cpu=\"0\",mode=\"user\"}} {} {ms}\n",
                secs(node_cpu[i])
            ));
            out.push_str(&format!(
                "node_memory_MemTotal_bytes{{node=\"{node}\",instance=\"{node}:9100\"}} {} {ms}\n",
                16 * GIB
            ));
            let used = GIB + POD_MEMORY * pods.len() as i64;
            out.push_str(&format!(
                "node_memory_MemAvailable_bytes{{node=\"{node}\",instance=\"{node}:9100\"}} {} {ms}\n",
                16 * GIB - used
            ));
            let next = s + EVERY;
            let pods_next: Vec<&PodDef> = PODS.iter().filter(|p| p.node == *node && alive(p, next)).collect();
            node_cpu[i] += EVERY * (200 + pods_next.iter().map(|p| pod_cpu(p, next)).sum::<i64>());
        }
        for (j, p) in PODS.iter().enumerate().filter(|(_, p)| alive(p, s)) {
            let labels =
                format!("namespace=\"{}\",pod=\"{}\",container=\"main\",node=\"{}\"", p.namespace, p.name, p.node);
            let m = pod_cpu_total[j];
            out.push_str(&format!("container_cpu_usage_seconds_total{{{labels}}} {}.{:03} {ms}\n", m / 1000, m % 1000));
            out.push_str(&format!("container_memory_working_set_bytes{{{labels}}} {POD_MEMORY} {ms}\n"));
            pod_cpu_total[j] += EVERY * pod_cpu(p, s + EVERY);
        }
    }
    out
}

fn node_object(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("uid-{name}"), "resourceVersion": "1",
            "creationTimestamp": "2026-11-01T00:00:00Z",
            "labels": {"kubernetes.io/hostname": name}},
        "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                   "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True",
                                   "lastTransitionTime": "2026-11-01T00:00:00Z"}]}})
}

fn pod_object(p: &PodDef, created: DateTime<Utc>) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"namespace": p.namespace, "name": p.name, "uid": format!("uid-{}-{}", p.namespace, p.name),
            "resourceVersion": "1",
            "creationTimestamp": created.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": p.rs,
                "uid": format!("uid-rs-{}", p.rs), "controller": true}]},
        "spec": {"nodeName": p.node, "containers": [{"name": "main", "image": "registry.local/app:1",
            "resources": {"requests": {"cpu": format!("{}m", p.cpu_m), "memory": format!("{}Gi", p.memory_gi)}}}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
}

fn rollout_event() -> Value {
    let t = at(NEW_BOUND - 5).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"namespace": "batch", "name": "crunch.1879a", "uid": "uid-ev-crunch", "resourceVersion": "1",
            "creationTimestamp": t},
        "involvedObject": {"kind": "Deployment", "namespace": "batch", "name": "crunch", "uid": "uid-dep-crunch",
            "apiVersion": "apps/v1"},
        "reason": "ScalingReplicaSet", "message": ROLLOUT, "source": {"component": "deployment-controller"},
        "firstTimestamp": t, "lastTimestamp": t, "count": 1, "type": "Normal"})
}

/// The cluster's object history: nodes and pods observed an hour before
/// T0, the rollout at T0+55m (old crunch pods deleted, the new ones bound).
pub fn records() -> Vec<Record> {
    let before = at(-3600);
    let created = DateTime::parse_from_rfc3339("2026-11-10T00:00:00Z").expect("time").with_timezone(&Utc);
    let mut recs: Vec<ScenarioRecord> = Vec::new();
    let mut push = |observed_at: DateTime<Utc>, change: ObjectChange, mut object: Value| {
        object["metadata"]["resourceVersion"] = json!((recs.len() + 1).to_string());
        recs.push(ScenarioRecord { observed_at, change, object });
    };
    for n in NODES {
        push(before, ObjectChange::Added, node_object(n));
    }
    for p in PODS.iter().filter(|p| !new(p)) {
        push(before, ObjectChange::Added, pod_object(p, created));
    }
    push(at(NEW_BOUND - 5), ObjectChange::Added, rollout_event());
    for p in PODS.iter().filter(|p| old(p)) {
        push(at(OLD_GONE), ObjectChange::Deleted, pod_object(p, created));
    }
    for p in PODS.iter().filter(|p| new(p)) {
        push(at(NEW_BOUND), ObjectChange::Added, pod_object(p, at(NEW_BOUND)));
    }
    recs.sort_by_key(|r| r.observed_at);
    recs.into_iter().map(|r| kdrift_ingest::to_record(r, "hot-node")).collect()
}

/// Ingests [`records`] into `store`.
///
/// # Panics
/// When the ingest fails.
pub fn load_objects(store: &Store) {
    kdrift_ingest::ingest_records(store, "file", "hot-node", records()).expect("ingest the hot-node cluster");
}

/// A store in a new temporary directory (`hot.duckdb`) holding the
/// cluster's objects and, when `samples`, its usage samples (no server).
///
/// # Panics
/// When the store cannot be made.
pub fn temp_store(samples: bool) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("hot.duckdb");
    let store = Store::open(&db).expect("store");
    load_objects(&store);
    if samples {
        store_samples(&store);
    }
    drop(store);
    (dir, db)
}

/// Used duration of the hot episode, for messages.
pub fn hot_span() -> (DateTime<Utc>, DateTime<Utc>) {
    (at(3600), at(3600) + Duration::hours(2))
}
