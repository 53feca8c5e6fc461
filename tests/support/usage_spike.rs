//! A cluster whose requests are even but whose usage is not (kdrift issue
//! 37, planner): three 4-CPU nodes, each with four ReplicaSet pods of 500m
//! requested (50 %). Measured, every 30 s for two hours before [`AT`]:
//! `hot` runs at 40 % (four pods of 400m) with a 5-minute spike to 95 %
//! (four pods of 950m) ending at [`AT`]; `cool` at 10 %; `mid` at 50 %.
//! The policy ([`POLICY`]) is LowNodeUtilization cpu 20 → 70 % with
//! `metricsUtilization: {source: KubernetesMetrics}`.
//!
//! At [`AT`] the latest sample shows `hot` at 95 % > 70 and `cool` at 10 %
//! ≤ 20: descheduler evicts from `hot` until it is at most 70 % used (the
//! budget on `cool`, 2800m − 400m, is not the limit): 3800m − 950m − 950m =
//! 1900m → 2 evictions. Over two hours the spike is 10 of 240 samples
//! (4.2 %), so the p95 is 40 %: nothing is overutilized, nothing evicted.
//! Over one hour it is 10 of 120 (8.3 %): a p95 still sees it, a p90 does not.

use kdrift_store::{UsageKind, UsageSample};
use serde_json::{json, Value};

/// The plan's instant: 2026-11-13T02:00:00Z, UTC µs.
pub const AT: i64 = 1_794_535_200_000_000;
/// The plan's instant, RFC 3339.
pub const AT_TEXT: &str = "2026-11-13T02:00:00Z";
/// Sampling interval, µs.
pub const STEP: i64 = 30_000_000;

/// The policy.
pub const POLICY: &str = "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: load-aware
    pluginConfig:
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 20}
          targetThresholds: {cpu: 70}
          metricsUtilization:
            source: KubernetesMetrics
    plugins:
      balance:
        enabled: [LowNodeUtilization]
";

/// The node names.
pub const NODES: [&str; 3] = ["cool", "hot", "mid"];

/// A Ready node with 4 CPUs, 16 GiB and 110 pods allocatable.
pub fn node_json(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("u-{name}"), "creationTimestamp": "2026-11-01T00:00:00Z"},
        "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                   "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}})
}

/// Pod `app-<node>-<i>` (namespace `web`), Running on `node`, owned by a
/// ReplicaSet, requesting 500m and 512Mi.
pub fn pod_json(node: &str, i: u32) -> Value {
    let name = format!("app-{node}-{i}");
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "web", "uid": format!("u-{name}"),
                     "creationTimestamp": "2026-11-01T00:00:00Z",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("app-{node}"),
                                          "uid": format!("rs-{node}"), "controller": true}]},
        "spec": {"nodeName": node,
                 "containers": [{"name": "app", "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}}]},
        "status": {"phase": "Running"}})
}

/// Every node, as a `kubectl get nodes -o json` list.
pub fn nodes_list() -> Value {
    json!({"apiVersion": "v1", "kind": "List", "items": NODES.iter().map(|n| node_json(n)).collect::<Vec<_>>()})
}

/// Every pod, as a `kubectl get pods -A -o json` list.
pub fn pods_list() -> Value {
    let items: Vec<Value> = NODES.iter().flat_map(|n| (0..4).map(move |i| pod_json(n, i))).collect();
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// Each pod's cpu use (millicores) at sample `k` (0 = two hours before
/// [`AT`], 240 = [`AT`]) on `node`.
fn pod_cpu(node: &str, k: i64) -> i64 {
    match node {
        "hot" if k > 230 => 950,
        "hot" => 400,
        "cool" => 100,
        _ => 500,
    }
}

/// Node and pod samples every 30 s for two hours up to [`AT`] (241 per object).
pub fn samples() -> Vec<UsageSample> {
    let mut out = Vec::new();
    for k in 0..=240 {
        let at_us = AT - (240 - k) * STEP;
        for node in NODES {
            let cpu = pod_cpu(node, k);
            out.push(UsageSample {
                kind: UsageKind::Node,
                node: Some(node.into()),
                namespace: None,
                pod: None,
                at_us,
                cpu_millis: Some(4 * cpu),
                memory_bytes: Some(4 << 30),
            });
            for i in 0..4 {
                out.push(UsageSample {
                    kind: UsageKind::Pod,
                    node: Some(node.into()),
                    namespace: Some("web".into()),
                    pod: Some(format!("app-{node}-{i}")),
                    at_us,
                    cpu_millis: Some(cpu),
                    memory_bytes: Some(1 << 30),
                });
            }
        }
    }
    out
}
