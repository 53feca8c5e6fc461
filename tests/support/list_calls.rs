//! Counts the Kubernetes API requests one rebalance snapshot read makes
//! (`execute::read_snapshot`, what `kdrift rebalance plan --kubeconfig`,
//! `apply` and `run` use) against the fake API server ([`crate::fake_kube`])
//! loaded with a cluster of a given size, from the fake's request log:
//! list operations (no `continue` token) and continue pages, per
//! collection path. Used by the `rebalance_list_calls` test (the counts are
//! constant in cluster size) and the `list_calls` bench (the figures,
//! issue 6).

use std::collections::BTreeMap;
use std::time::Instant;

use chrono::Utc;
use kdrift_rebalance::ClusterOptions;
use kdrift_rebalance::Policy;
use kdrift_rebalance::{read_snapshot, KubeClient};
use serde_json::json;

use crate::busy_cluster::{self, BUSY_POLICY};
use crate::fake_kube::{FakeKube, RequestRecord};

/// Requests to one collection: list operations (no `continue` token) and
/// continue pages.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Calls {
    /// List operations (a request without a `continue` token).
    pub lists: usize,
    /// Continue pages of those lists.
    pub continues: usize,
}

/// What one snapshot read against a fake cluster did.
pub struct SnapshotRead {
    /// Nodes read.
    pub nodes: usize,
    /// Pods read.
    pub pods: usize,
    /// GET requests without `watch`, per collection path.
    pub by_path: BTreeMap<String, Calls>,
    /// Every other request (a get by name would be a GET too, on its own path).
    pub other: Vec<RequestRecord>,
    /// Wall time of the read, milliseconds (the fake in the same process).
    pub millis: f64,
}

impl SnapshotRead {
    /// List operations, all paths.
    pub fn lists(&self) -> usize {
        self.by_path.values().map(|c| c.lists).sum()
    }

    /// Requests, all paths: lists and their continue pages.
    pub fn requests(&self) -> usize {
        self.by_path.values().map(|c| c.lists + c.continues).sum()
    }

    /// Prints one line of totals, then one per path.
    pub fn print(&self) {
        println!(
            "  {} nodes / {} pods: {} list operations, {} requests, read in {:.0} ms",
            self.nodes,
            self.pods,
            self.lists(),
            self.requests(),
            self.millis
        );
        for (path, c) in &self.by_path {
            println!("    {path}: {} list + {} continue", c.lists, c.continues);
        }
    }
}

/// Loads `nodes` busy nodes with `pods_per_node` pods each (namespace `apps`).
fn load(kube: &FakeKube, nodes: usize, pods_per_node: usize) {
    kube.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "apps"}})).expect("namespace");
    for n in 0..nodes {
        let node = format!("node-{n:04}");
        kube.create(busy_cluster::node(&node)).expect("node");
        for p in 0..pods_per_node {
            kube.create(busy_cluster::pod(&format!("web-{n:04}-{p:02}"), &node, 100 + 50 * p as i64)).expect("pod");
        }
    }
}

/// Starts a fake API server with `nodes` × `pods_per_node` pods, reads one
/// snapshot with `page` objects per list request, and counts its requests.
///
/// # Panics
/// When the fake cannot be loaded or the read fails (test and bench code).
pub fn read_snapshot_counting(nodes: usize, pods_per_node: usize, page: u32) -> SnapshotRead {
    let kube = FakeKube::start();
    load(&kube, nodes, pods_per_node);
    let dir = tempfile::tempdir().expect("tmp");
    let options = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = rt.block_on(KubeClient::connect(&options)).expect("connect").with_page_size(page);
    let policy = Policy::from_yaml(BUSY_POLICY).expect("policy");
    let before = kube.requests().len();
    let start = Instant::now();
    let live = rt.block_on(read_snapshot(&client, &policy, Utc::now())).expect("read");
    let millis = start.elapsed().as_secs_f64() * 1e3;
    let mut by_path: BTreeMap<String, Calls> = BTreeMap::new();
    let mut other = Vec::new();
    for r in kube.requests().into_iter().skip(before) {
        let is_continue = r.query.split('&').any(|kv| kv.starts_with("continue=") && kv.len() > "continue=".len());
        if r.method != "GET" || r.query.contains("watch=") {
            other.push(r);
            continue;
        }
        let calls = by_path.entry(r.path.clone()).or_default();
        if is_continue {
            calls.continues += 1;
        } else {
            calls.lists += 1;
        }
    }
    SnapshotRead { nodes: live.snapshot.nodes.len(), pods: live.snapshot.pods.len(), by_path, other, millis }
}
