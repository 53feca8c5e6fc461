//! The rebalance snapshot (`kdrift rebalance plan --kubeconfig`, `rebalance
//! apply`) makes a constant number of list operations whatever the cluster
//! size (issue 6): one per resource type, read from the fake API server's
//! request log. Paginated, the pages of one list grow with the number of
//! objects (`continue` requests); the list operations do not. No get, no
//! watch, nothing per node or per pod.
//!
//! The figures are printed (`cargo test --workspace --test
//! rebalance_list_calls -- --nocapture`) for BENCHMARKS.md.

use std::collections::BTreeMap;
use std::time::Instant;

use chrono::Utc;
use kdrift_rebalance::cluster::ClusterOptions;
use kdrift_rebalance::execute::{read_snapshot, KubeClient};
use kdrift_rebalance::Policy;
use kdrift_tests::busy_cluster::{self, BUSY_POLICY};
use kdrift_tests::fake_kube::{FakeKube, RequestRecord};
use serde_json::json;

/// Objects per list request in this test (kubectl's `--chunk-size`).
const PAGE: u32 = 100;
/// Pods per node.
const PODS_PER_NODE: usize = 10;

/// Requests to one collection: list operations (no `continue` token) and
/// continue pages.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Calls {
    lists: usize,
    continues: usize,
}

/// What one snapshot read against a fake cluster of `nodes` nodes did.
struct Run {
    nodes: usize,
    pods: usize,
    by_path: BTreeMap<String, Calls>,
    other: Vec<RequestRecord>,
    millis: f64,
}

fn load(kube: &FakeKube, nodes: usize) {
    kube.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "apps"}})).expect("namespace");
    for n in 0..nodes {
        let node = format!("node-{n:04}");
        kube.create(busy_cluster::node(&node)).expect("node");
        for p in 0..PODS_PER_NODE {
            kube.create(busy_cluster::pod(&format!("web-{n:04}-{p:02}"), &node, 100 + 50 * p as i64)).expect("pod");
        }
    }
}

fn read(nodes: usize) -> Run {
    let kube = FakeKube::start();
    load(&kube, nodes);
    let dir = tempfile::tempdir().expect("tmp");
    let options = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = rt.block_on(KubeClient::connect(&options)).expect("connect").with_page_size(PAGE);
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
    Run { nodes: live.snapshot.nodes.len(), pods: live.snapshot.pods.len(), by_path, other, millis }
}

#[test]
fn list_operations_per_run_do_not_grow_with_the_cluster() {
    let small = read(50);
    let large = read(500);
    println!("rebalance snapshot: list requests per resource (page size {PAGE}; lists + continue pages)");
    for run in [&small, &large] {
        let lists: usize = run.by_path.values().map(|c| c.lists).sum();
        let pages: usize = run.by_path.values().map(|c| c.lists + c.continues).sum();
        println!(
            "  {} nodes / {} pods: {lists} list operations, {pages} requests, read in {:.0} ms",
            run.nodes, run.pods, run.millis
        );
        for (path, c) in &run.by_path {
            println!("    {path}: {} list + {} continue", c.lists, c.continues);
        }
    }
    // The cluster was read whole.
    assert_eq!((small.nodes, small.pods), (50, 50 * PODS_PER_NODE));
    assert_eq!((large.nodes, large.pods), (500, 500 * PODS_PER_NODE));
    // Nothing but lists: no get, no watch, no write.
    assert!(small.other.is_empty(), "{:?}", small.other);
    assert!(large.other.is_empty(), "{:?}", large.other);
    // One list operation per resource type, the same types at both sizes.
    let kinds = [
        "/api/v1/namespaces",
        "/api/v1/nodes",
        "/api/v1/pods",
        "/apis/policy/v1/poddisruptionbudgets",
        "/apis/scheduling.k8s.io/v1/priorityclasses",
    ];
    for run in [&small, &large] {
        let paths: Vec<&str> = run.by_path.keys().map(String::as_str).collect();
        assert_eq!(paths, kinds);
        assert!(run.by_path.values().all(|c| c.lists == 1), "{:?}", run.by_path);
    }
    // Pages grow with the objects: ⌈objects / PAGE⌉ requests per list.
    let pages = |run: &Run, path: &str| run.by_path[path].lists + run.by_path[path].continues;
    assert_eq!((pages(&small, "/api/v1/nodes"), pages(&large, "/api/v1/nodes")), (1, 5));
    assert_eq!((pages(&small, "/api/v1/pods"), pages(&large, "/api/v1/pods")), (5, 50));
}
