//! A generated cluster of the shape descheduler's LowNodeUtilization
//! benchmark uses (issue 6), deterministic by seed, as a planner
//! [`Snapshot`]: for benchmarks and property tests.
//!
//! Shape (issue 6: thresholds 20/20/20 → 50/50/50 on cpu/memory/pods, nodes
//! 8 CPU / 32 GiB, pods 50m–1000m / 64Mi–2Gi, 10 % BestEffort, 10 % of nodes
//! hot, 30 % cold, 30 pods per node on average):
//!
//! - nodes `node-00000`… with allocatable 8000m cpu, 32 GiB memory, 110 pods,
//!   Ready, no taints, labels `kubernetes.io/hostname`,
//!   `topology.kubernetes.io/zone` (3 zones), `kubernetes.io/arch` and
//!   `node.kubernetes.io/instance-type`;
//! - a seeded shuffle makes 10 % of the nodes hot (40 pods each), 30 % cold
//!   (15 pods each) and the rest normal (the remaining pods spread evenly, so
//!   the cluster has exactly 30 pods per node);
//! - every node runs one DaemonSet pod (50m, 64 MiB; not evictable); every
//!   other pod belongs to a ReplicaSet of 10 pods in one of 50 namespaces,
//!   has no priority, and is BestEffort with probability 0.1, otherwise
//!   Guaranteed with probability 0.2 (limits = requests), otherwise Burstable;
//! - requests are drawn uniformly within the bounds, from per-class
//!   ranges chosen so that every node's requests fit its allocatable, as the
//!   scheduler would have placed them: cold nodes cpu 50–100m / memory
//!   64–256 MiB (always ≤ 20 % on all three resources: underutilized);
//!   normal nodes 50–150m / 64–640 MiB (about 40 % cpu, 35 % memory); hot
//!   nodes 100–200m / 128–768 MiB, with one pod in ten 500–1000m / 1–2 GiB
//!   as long as the node stays at most 95 % full (about 80 % cpu, 60 %
//!   memory: overutilized).
//!
//! The same `(nodes, seed)` always gives the same snapshot, byte for byte.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, TimeZone, Utc};

use kdrift_rebalance::NodeInfo;
use kdrift_rebalance::Snapshot;
use kdrift_rebalance::{ContainerInfo, ContainerKind, OwnerRef, PodInfo, PodPhase};
use kdrift_rebalance::{Policy, PolicyError};
use kdrift_rebalance::{ResourceList, CPU, MEMORY, PODS};

/// One mebibyte, in bytes.
const MI: i64 = 1024 * 1024;
/// One gibibyte, in bytes.
const GI: i64 = 1024 * MI;
/// Average pods per node (issue 6).
pub const PODS_PER_NODE: usize = 30;
/// Pods on a hot node.
const HOT_PODS: usize = 40;
/// Pods on a cold node.
const COLD_PODS: usize = 15;
/// Pods per ReplicaSet.
const REPLICAS: usize = 10;
/// Namespaces the ReplicaSets are spread over.
const NAMESPACES: usize = 50;

/// The policy of the benchmark: one profile, LowNodeUtilization with
/// thresholds cpu/memory/pods 20 % and targetThresholds 50 %, DefaultEvictor
/// defaults, or with `nodeFit: true`.
pub fn policy(node_fit: bool) -> Result<Policy, PolicyError> {
    Policy::from_yaml(&policy_yaml(node_fit))
}

/// The bench policy ([`policy`]) as the YAML of a
/// `DeschedulerPolicy` file: one profile, LowNodeUtilization with
/// thresholds cpu/memory/pods 20 % and targetThresholds 50 %, DefaultEvictor
/// with `nodeFit: node_fit`.
pub fn policy_yaml(node_fit: bool) -> String {
    format!(
        "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: bench
    pluginConfig:
      - name: DefaultEvictor
        args:
          nodeFit: {node_fit}
      - name: LowNodeUtilization
        args:
          thresholds: {{cpu: 20, memory: 20, pods: 20}}
          targetThresholds: {{cpu: 50, memory: 50, pods: 50}}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
"
    )
}

/// What a node was generated as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Temperature {
    /// Packed: above the 50 % targets.
    Hot,
    /// Nearly empty: at or below the 20 % thresholds.
    Cold,
    /// In between.
    Normal,
}

/// A generated cluster: the snapshot and each node's generated temperature
/// (same order as `snapshot.nodes`).
#[derive(Debug, Clone)]
pub struct BenchCluster {
    /// Nodes and pods; `now` is 2026-06-01T12:00:00Z.
    pub snapshot: Snapshot,
    /// The temperature each node was generated with.
    pub temperatures: Vec<Temperature>,
}

/// SplitMix64: a tiny, fast, seedable generator (no dependency needed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo + 1) as u64;
        lo + (self.next() % span) as i64
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// Generates a cluster of `nodes` nodes and `30 × nodes` pods (see the module
/// docs). Deterministic in `(nodes, seed)`.
pub fn generate(nodes: usize, seed: u64) -> BenchCluster {
    let mut rng = Rng(seed);
    let now = Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).single().unwrap_or(DateTime::<Utc>::MIN_UTC);
    // Seeded Fisher-Yates shuffle: the first 10 % hot, the next 30 % cold.
    let mut order: Vec<usize> = (0..nodes).collect();
    for i in (1..nodes).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let hot = nodes / 10;
    let cold = nodes * 3 / 10;
    let mut temperatures = vec![Temperature::Normal; nodes];
    for (rank, &n) in order.iter().enumerate() {
        if rank < hot {
            temperatures[n] = Temperature::Hot;
        } else if rank < hot + cold {
            temperatures[n] = Temperature::Cold;
        }
    }
    let normal = nodes - hot - cold;
    let rest = (PODS_PER_NODE * nodes).saturating_sub(HOT_PODS * hot + COLD_PODS * cold);
    let mut normal_seen = 0;
    let mut pod_counts = Vec::with_capacity(nodes);
    for t in &temperatures {
        pod_counts.push(match t {
            Temperature::Hot => HOT_PODS,
            Temperature::Cold => COLD_PODS,
            Temperature::Normal => {
                // Spread `rest` evenly: node k of `normal` gets floor((k+1)·rest/normal) − floor(k·rest/normal).
                let k = normal_seen;
                normal_seen += 1;
                (k + 1) * rest / normal - k * rest / normal
            }
        });
    }
    let mut node_list = Vec::with_capacity(nodes);
    let mut pods = Vec::with_capacity(PODS_PER_NODE * nodes);
    let mut serial = 0usize;
    for (n, (t, count)) in temperatures.iter().zip(&pod_counts).enumerate() {
        let name = format!("node-{n:05}");
        node_list.push(bench_node(&name, n));
        pods.push(daemonset_pod(&name, n, now));
        let mut used = (50, 64 * MI);
        for k in 1..*count {
            let left = (*count - 1 - k) as i64;
            pods.push(app_pod(&mut rng, &name, *t, &mut used, left, serial, now));
            serial += 1;
        }
    }
    BenchCluster { snapshot: Snapshot::new(node_list, pods, now), temperatures }
}

fn bench_node(name: &str, n: usize) -> NodeInfo {
    let mut node = NodeInfo::new(name, ResourceList::from_pairs(&[(CPU, 8000), (MEMORY, 32 * GI), (PODS, 110)]));
    let labels: BTreeMap<String, String> = [
        ("kubernetes.io/hostname", name.to_string()),
        ("kubernetes.io/arch", "amd64".to_string()),
        ("node.kubernetes.io/instance-type", "m5.2xlarge".to_string()),
        ("topology.kubernetes.io/zone", format!("zone-{}", n % 3)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    node.labels = labels;
    node
}

fn owner(kind: &str, name: String) -> OwnerRef {
    OwnerRef {
        api_version: "apps/v1".to_string(),
        kind: kind.to_string(),
        uid: format!("uid-{kind}-{name}"),
        name,
        controller: true,
    }
}

fn running(mut pod: PodInfo, node: &str, now: DateTime<Utc>) -> PodInfo {
    pod.node_name = Some(node.to_string());
    pod.phase = Some(PodPhase::Running);
    pod.creation_timestamp = Some(now - Duration::days(3));
    pod.refresh_derived();
    pod
}

fn daemonset_pod(node: &str, n: usize, now: DateTime<Utc>) -> PodInfo {
    let mut p = PodInfo::new("kube-system", &format!("node-agent-{n:05}"));
    p.uid = Some(format!("uid-ds-{n}"));
    p.owners = vec![owner("DaemonSet", "node-agent".to_string())];
    p.labels.insert("app".to_string(), "node-agent".to_string());
    let req = ResourceList::from_pairs(&[(CPU, 50), (MEMORY, 64 * MI)]);
    p.containers = vec![ContainerInfo::new("agent", ContainerKind::App, req)];
    running(p, node, now)
}

/// `(cpu millicores, memory bytes)` for a pod on a node of temperature `t`
/// whose pods already request `used`, with `left` more pods to place after
/// this one (a large pod only while the node still ends at most 95 % full
/// if every later pod is as large as a small one can be).
fn requests(rng: &mut Rng, t: Temperature, used: (i64, i64), left: i64) -> (i64, i64) {
    let large_fits = used.0 + 1000 + 200 * left <= 7600 && used.1 + 2 * GI + 768 * MI * left <= 32 * GI * 95 / 100;
    match t {
        Temperature::Cold => (rng.range(50, 100), rng.range(64 * MI, 256 * MI)),
        Temperature::Normal => (rng.range(50, 150), rng.range(64 * MI, 640 * MI)),
        Temperature::Hot if rng.chance(0.1) && large_fits => (rng.range(500, 1000), rng.range(GI, 2 * GI)),
        Temperature::Hot => (rng.range(100, 200), rng.range(128 * MI, 768 * MI)),
    }
}

fn app_pod(
    rng: &mut Rng,
    node: &str,
    t: Temperature,
    used: &mut (i64, i64),
    left: i64,
    serial: usize,
    now: DateTime<Utc>,
) -> PodInfo {
    let set = serial / REPLICAS;
    let ns = format!("ns-{:02}", set % NAMESPACES);
    let app = format!("app-{set:05}");
    let mut p = PodInfo::new(&ns, &format!("{app}-{:07}", serial));
    p.uid = Some(format!("uid-pod-{serial}"));
    p.owners = vec![owner("ReplicaSet", app.clone())];
    p.labels.insert("app".to_string(), app);
    let mut container = ContainerInfo::new("main", ContainerKind::App, ResourceList::new());
    if !rng.chance(0.1) {
        let (cpu, memory) = requests(rng, t, *used, left);
        used.0 += cpu;
        used.1 += memory;
        container.requests = ResourceList::from_pairs(&[(CPU, cpu), (MEMORY, memory)]);
        if rng.chance(0.2) {
            container.limits = container.requests.clone();
        }
    }
    p.containers = vec![container];
    running(p, node, now)
}
