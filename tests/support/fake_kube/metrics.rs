//! metrics-server's `metrics.k8s.io/v1beta1` as the fake serves it: the
//! aggregated API's discovery (group in `/apis`, `/apis/metrics.k8s.io`,
//! its resource list: `nodes` and `pods`, verbs get and list) and
//! NodeMetrics / PodMetrics in metrics-server's exact JSON
//! (`NodeMetricsList` with `"metadata": {}` and no resourceVersion; items
//! with `metadata.creationTimestamp` = now, `timestamp`, `window`
//! `"20.044s"`, `usage` / `containers[].usage` as `123456789n` / `123456Ki`).
//! The readings are set per test ([`super::FakeKube::set_node_metrics`],
//! [`super::FakeKube::set_pod_metrics`]); served by default (empty);
//! [`super::FakeKube::serve_metrics`]`(false)` makes it a cluster without
//! metrics-server: absent from discovery, 404 on every path of it.
//!
//! Or queued ([`super::FakeKube::queue_metrics`]): each list of all
//! NodeMetrics (the first request of a scrape, as `kdrift record` makes
//! it: nodes, then pods) takes the next queued [`Reading`], which then
//! stands (its PodMetrics, its timestamp) until the next node list; so a
//! test hands each scrape exactly one reading, none skipped or repeated
//! however slowly or quickly the scrapes come.

use std::collections::VecDeque;

use axum::response::Response;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};

use super::http::{error, json, Shared};
use super::status::ApiError;

/// The group.
pub const GROUP: &str = "metrics.k8s.io";
/// Its one version.
pub const VERSION: &str = "v1beta1";
/// The window metrics-server reports (its scrape interval's measurement).
pub const WINDOW: &str = "20.044s";

/// One node's reading: cpu and memory as quantities (`123456789n`, `123456Ki`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeUsage {
    /// The node.
    pub name: String,
    /// CPU, a quantity (metrics-server writes nanocores: `123456789n`).
    pub cpu: String,
    /// Memory working set, a quantity (metrics-server writes `Ki`).
    pub memory: String,
}

/// One pod's reading, per container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodUsage {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub name: String,
    /// (container, cpu, memory) quantities.
    pub containers: Vec<(String, String, String)>,
}

/// One whole reading, queued for one scrape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// Node readings.
    pub nodes: Vec<NodeUsage>,
    /// Pod readings.
    pub pods: Vec<PodUsage>,
    /// The readings' `timestamp`.
    pub timestamp: DateTime<Utc>,
}

impl Reading {
    /// A reading at `timestamp` of nodes (node, cpu, memory) and pods
    /// (namespace, pod, [(container, cpu, memory)]), quantities as text.
    pub fn new(
        timestamp: DateTime<Utc>,
        nodes: &[(&str, &str, &str)],
        pods: &[(&str, &str, &[super::ContainerUsage<'_>])],
    ) -> Reading {
        Reading { nodes: node_usages(nodes), pods: pod_usages(pods), timestamp }
    }
}

/// Nodes' readings from (node, cpu, memory) quantities.
pub fn node_usages(nodes: &[(&str, &str, &str)]) -> Vec<NodeUsage> {
    nodes.iter().map(|(n, c, m)| NodeUsage { name: (*n).into(), cpu: (*c).into(), memory: (*m).into() }).collect()
}

/// Pods' readings from (namespace, pod, [(container, cpu, memory)]).
pub fn pod_usages(pods: &[(&str, &str, &[super::ContainerUsage<'_>])]) -> Vec<PodUsage> {
    pods.iter()
        .map(|(ns, name, containers)| PodUsage {
            namespace: (*ns).into(),
            name: (*name).into(),
            containers: containers.iter().map(|(c, cpu, m)| ((*c).into(), (*cpu).into(), (*m).into())).collect(),
        })
        .collect()
}

/// What the fake's metrics-server says.
#[derive(Debug, Clone)]
pub struct Metrics {
    /// Served at all (else 404 and absent from discovery).
    pub served: bool,
    /// Node readings.
    pub nodes: Vec<NodeUsage>,
    /// Pod readings.
    pub pods: Vec<PodUsage>,
    /// The readings' `timestamp`; `None`: the time of each request, to the
    /// second (each answer a new reading).
    pub timestamp: Option<DateTime<Utc>>,
    /// Readings not taken yet: the next list of all NodeMetrics takes the
    /// first (it replaces `nodes`, `pods` and `timestamp`).
    pub queue: VecDeque<Reading>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics { served: true, nodes: Vec::new(), pods: Vec::new(), timestamp: None, queue: VecDeque::new() }
    }
}

impl Metrics {
    /// The next queued reading, if any, becomes the one served.
    fn take_next(&mut self) {
        if let Some(next) = self.queue.pop_front() {
            self.nodes = next.nodes;
            self.pods = next.pods;
            self.timestamp = Some(next.timestamp);
        }
    }
}

/// The group's entry of `/apis` when served.
pub fn group_entry(shared: &Shared) -> Option<Value> {
    shared.lock().metrics.served.then(group_doc)
}

fn group_doc() -> Value {
    let gv = json!({"groupVersion": format!("{GROUP}/{VERSION}"), "version": VERSION});
    json!({"name": GROUP, "versions": [gv.clone()], "preferredVersion": gv})
}

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Answers a GET of a path under `/apis/metrics.k8s.io`; `None` for other paths.
pub fn answer(shared: &Shared, path: &str) -> Option<Response> {
    let seg: Vec<&str> = path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
    if seg.get(1) != Some(&GROUP) {
        return None;
    }
    let metrics = {
        let mut st = shared.lock();
        if st.metrics.served && matches!(seg.as_slice(), ["apis", _, VERSION, "nodes"]) {
            st.metrics.take_next();
        }
        st.metrics.clone()
    };
    if !metrics.served {
        return Some(error(&ApiError::no_route()));
    }
    let now = Utc::now();
    let stamp = metrics.timestamp.unwrap_or_else(|| DateTime::from_timestamp(now.timestamp(), 0).unwrap_or(now));
    let node = |n: &NodeUsage| {
        json!({"metadata": {"name": n.name, "creationTimestamp": time(now),
                            "labels": {"kubernetes.io/hostname": n.name, "kubernetes.io/os": "linux"}},
               "timestamp": time(stamp), "window": WINDOW, "usage": {"cpu": n.cpu, "memory": n.memory}})
    };
    let pod = |p: &PodUsage| {
        let containers: Vec<Value> =
            p.containers.iter().map(|(c, cpu, mem)| json!({"name": c, "usage": {"cpu": cpu, "memory": mem}})).collect();
        json!({"metadata": {"name": p.name, "namespace": p.namespace, "creationTimestamp": time(now)},
               "timestamp": time(stamp), "window": WINDOW, "containers": containers})
    };
    let list = |kind: &str, items: Vec<Value>| {
        json(200, &json!({"kind": kind, "apiVersion": format!("{GROUP}/{VERSION}"), "metadata": {}, "items": items}))
    };
    let one = |kind: &str, item: Option<Value>, plural: &str, name: &str| match item {
        Some(mut v) => {
            if let Some(m) = v.as_object_mut() {
                m.insert("kind".into(), json!(kind));
                m.insert("apiVersion".into(), json!(format!("{GROUP}/{VERSION}")));
            }
            json(200, &v)
        }
        None => error(&ApiError::not_found(plural, GROUP, name)),
    };
    let pods_in = |ns: Option<&str>| -> Vec<Value> {
        metrics.pods.iter().filter(|p| ns.is_none_or(|ns| p.namespace == ns)).map(pod).collect()
    };
    Some(match seg.as_slice() {
        ["apis", _] => {
            let mut doc = group_doc();
            if let Some(m) = doc.as_object_mut() {
                m.insert("kind".into(), json!("APIGroup"));
                m.insert("apiVersion".into(), json!("v1"));
            }
            json(200, &doc)
        }
        ["apis", _, VERSION] => json(200, &resource_list()),
        ["apis", _, VERSION, "nodes"] => list("NodeMetricsList", metrics.nodes.iter().map(node).collect()),
        ["apis", _, VERSION, "nodes", name] => {
            one("NodeMetrics", metrics.nodes.iter().find(|n| n.name == *name).map(node), "nodes", name)
        }
        ["apis", _, VERSION, "pods"] => list("PodMetricsList", pods_in(None)),
        ["apis", _, VERSION, "namespaces", ns, "pods"] => list("PodMetricsList", pods_in(Some(ns))),
        ["apis", _, VERSION, "namespaces", ns, "pods", name] => {
            let found = metrics.pods.iter().find(|p| p.namespace == *ns && p.name == *name).map(pod);
            one("PodMetrics", found, "pods", name)
        }
        _ => error(&ApiError::no_route()),
    })
}

/// `/apis/metrics.k8s.io/v1beta1`, as metrics-server registers it.
fn resource_list() -> Value {
    json!({
        "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": format!("{GROUP}/{VERSION}"),
        "resources": [
            {"name": "nodes", "singularName": "", "namespaced": false, "kind": "NodeMetrics", "verbs": ["get", "list"]},
            {"name": "pods", "singularName": "", "namespaced": true, "kind": "PodMetrics", "verbs": ["get", "list"]}
        ]
    })
}
