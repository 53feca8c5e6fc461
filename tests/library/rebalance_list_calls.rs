//! The rebalance snapshot (`kdrift rebalance plan --kubeconfig`, `rebalance
//! apply`) makes a constant number of list operations whatever the cluster
//! size (issue 6): one per resource type, read from the fake API server's
//! request log. Paginated, the pages of one list grow with the number of
//! objects (`continue` requests); the list operations do not. No get, no
//! watch, nothing per node or per pod.
//!
//! The figures are printed (`cargo test --workspace --test
//! rebalance_list_calls -- --nocapture`); the `list_calls` bench prints
//! them up to 5,000 nodes for BENCHMARKS.md.

use kdrift_tests::list_calls::{read_snapshot_counting, SnapshotRead};

/// Objects per list request in this test (kubectl's `--chunk-size`).
const PAGE: u32 = 100;
/// Pods per node.
const PODS_PER_NODE: usize = 10;

fn read(nodes: usize) -> SnapshotRead {
    read_snapshot_counting(nodes, PODS_PER_NODE, PAGE)
}

#[test]
fn list_operations_per_run_do_not_grow_with_the_cluster() {
    let small = read(50);
    let large = read(500);
    println!("rebalance snapshot: list requests per resource (page size {PAGE}; lists + continue pages)");
    small.print();
    large.print();
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
    let pages = |run: &SnapshotRead, path: &str| run.by_path[path].lists + run.by_path[path].continues;
    assert_eq!((pages(&small, "/api/v1/nodes"), pages(&large, "/api/v1/nodes")), (1, 5));
    assert_eq!((pages(&small, "/api/v1/pods"), pages(&large, "/api/v1/pods")), (5, 50));
}
