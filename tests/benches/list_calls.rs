//! API list calls per rebalance snapshot read, at 500, 2,000 and 5,000
//! nodes with 30 pods each (issue 6's cluster shape: 5,000 nodes / 150,000
//! pods), against the fake API server on 127.0.0.1 (`cargo bench --bench
//! list_calls`; BENCHMARKS.md). Prints the list operations and requests
//! per size, per resource, and whether the list operations are constant in
//! cluster size. Arguments after `--`: node counts (default `500 2000 5000`).

use std::process::ExitCode;

use kdrift_tests::list_calls::read_snapshot_counting;

/// Pods per node (150,000 pods at 5,000 nodes).
const PODS_PER_NODE: usize = 30;
/// Objects per list request: the client's default (kubectl's `--chunk-size`).
const PAGE: u32 = 500;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let sizes: Vec<usize> = if args.is_empty() {
        vec![500, 2000, 5000]
    } else {
        match args.iter().map(|a| a.parse()).collect::<Result<_, _>>() {
            Ok(sizes) => sizes,
            Err(e) => {
                eprintln!("list_calls bench: node counts expected ({e}): {args:?}");
                return ExitCode::from(2);
            }
        }
    };
    println!("== rebalance snapshot: API requests per read (page size {PAGE}; fake API server on 127.0.0.1) ==");
    let mut lists = Vec::new();
    for nodes in sizes {
        let read = read_snapshot_counting(nodes, PODS_PER_NODE, PAGE);
        read.print();
        if !read.other.is_empty() {
            println!("    other requests (no get or watch expected): {:?}", read.other);
        }
        lists.push(read.lists());
    }
    let constant = lists.windows(2).all(|w| w[0] == w[1]);
    println!(
        "list operations per run: {lists:?} (target: constant in cluster size: {})",
        if constant { "met" } else { "MISSED" }
    );
    ExitCode::SUCCESS
}
