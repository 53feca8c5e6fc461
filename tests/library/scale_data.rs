//! The scale generator's files (tests/support/scale_data.rs) at a small
//! size: `kdrift ingest file` (its library function) loads the VictoriaLogs
//! NDJSON export and the kubectl dumps with zero errors, and the ready store
//! holds every version. No timing here: the benchmarks are in benches/.

use std::path::PathBuf;

use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_scenario::ScaleConfig;
use kdrift_store::sql;
use kdrift_store::Store;
use kdrift_tests::scale_data::{write, Outputs};
use kdrift_tests::temp_store;

fn small() -> ScaleConfig {
    ScaleConfig { seed: 3, nodes: 30, pods: 900, events: 12_000, days: 2, failures: None }
}

fn counts(store: &Store) -> (i64, i64, i64, i64) {
    store.query_one(&sql::STORE_COUNTS, [], |r| Ok((r.get(0)?, r.get(2)?, r.get(3)?, r.get(4)?))).expect("store_counts")
}

#[test]
fn the_ndjson_export_loads_every_event_without_an_error() {
    let dir = tempfile::tempdir().expect("dir");
    let ndjson = dir.path().join("events.ndjson");
    let facts = write(&small(), &Outputs { ndjson: Some(ndjson.clone()), ..Outputs::default() }).expect("write");
    assert_eq!(facts.events, 12_000);
    let lines = std::fs::read_to_string(&ndjson).expect("read").lines().count();
    assert_eq!(lines, 12_000, "one row per event version");
    let (_guard, store) = temp_store();
    let report = ingest_files(&store, &[ndjson], &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files[0].errors.first());
    assert_eq!(report.files[0].format.map(|f| f.as_str()), Some("ndjson"));
    assert_eq!((report.counts.records, report.files[0].events), (12_000, 12_000));
    let (observations, event_versions, pods, nodes) = counts(&store);
    assert_eq!((observations, event_versions, pods, nodes), (12_000, 12_000, 0, 0));
}

#[test]
fn the_kubectl_dumps_load_every_node_and_pod_without_an_error() {
    let dir = tempfile::tempdir().expect("dir");
    let kubectl = dir.path().join("kubectl");
    let facts = write(&small(), &Outputs { kubectl_dir: Some(kubectl.clone()), ..Outputs::default() }).expect("write");
    let (_guard, store) = temp_store();
    let report = ingest_files(&store, &[kubectl], &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files.iter().flat_map(|f| &f.errors).next());
    let names: Vec<String> = report
        .files
        .iter()
        .map(|f| PathBuf::from(&f.location).file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default())
        .collect();
    assert_eq!(names, ["events.json", "nodes.json", "pods.json"]);
    let (_, _, pods, nodes) = counts(&store);
    assert_eq!((pods, nodes), (900, 30), "every node and every pod slot at the end");
    let events = report.files[0].events;
    assert!(events > 100 && events < facts.events, "the last hour of events only: {events}");
}

#[test]
fn the_ready_store_holds_every_version() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("store.duckdb");
    let facts = write(&small(), &Outputs { store: Some(path.clone()), ..Outputs::default() }).expect("write");
    let store = Store::open_existing(&path).expect("open");
    let (observations, event_versions, _, nodes) = counts(&store);
    assert_eq!(event_versions, 12_000);
    assert_eq!(observations as u64, facts.events + facts.objects);
    assert_eq!(nodes, 30);
    // Drains and churn: the per-node aggregates agree with the pods loaded one by one.
    assert!(kdrift_tests::assert_amounts_agree(&store, 30) > 30);
    assert!(kdrift_tests::assert_filter_load_agrees(&store, 10) > 100);
    // The generator keeps the drain moves, as `kdrift ingest` does.
    assert!(kdrift_analyze::moves_are_fresh(&store).expect("fresh?"), "the ready store keeps its drain moves");
    let (ns, name) = facts.last_failed_pod.clone().expect("a failed pod");
    let report = kdrift_analyze::why_pending(&store, &ns, &name).expect("why-pending").expect("a report");
    let json = serde_json::to_value(&report).expect("json");
    assert!(json.to_string().contains("Insufficient cpu"), "{json}");
    // The Job asks 7800m of 8-CPU nodes: every left node is short. Only the
    // 5 closest to fitting are explained, the others counted.
    let state = report.state.as_ref().expect("state");
    let full = report.why_full.as_ref().expect("why full");
    let mut short: Vec<(i64, &str)> = state
        .shortfalls
        .iter()
        .filter(|s| s.resource == "cpu" && state.left.contains(&s.node))
        .map(|s| (s.short, s.node.as_str()))
        .collect();
    short.sort();
    assert!(short.len() > kdrift_analyze::EXPLAINED_NODES, "{} short nodes", short.len());
    assert_eq!(full.fills.len(), kdrift_analyze::EXPLAINED_NODES);
    assert_eq!(full.nodes_not_explained, short.len() - full.fills.len());
    let mut explained: Vec<&str> = full.fills.iter().map(|f| f.node.as_str()).collect();
    explained.sort_unstable();
    let mut closest: Vec<&str> = short.iter().take(full.fills.len()).map(|(_, n)| *n).collect();
    closest.sort_unstable();
    assert_eq!(explained, closest, "the explained nodes are those with the smallest cpu shortfall");
    // Next steps advise on those same nodes only (two steps each: lower the
    // request when it fits after, free room), not on every short node.
    let advised: std::collections::BTreeSet<&str> = report
        .next_steps
        .iter()
        .filter(|s| s.addresses == "Insufficient cpu")
        .filter_map(|s| state.left.iter().find(|n| s.action.contains(&format!(" on {n}:"))).map(String::as_str))
        .collect();
    assert_eq!(advised.into_iter().collect::<Vec<_>>(), closest, "{:#?}", report.next_steps);
    assert_eq!(
        report.next_steps.iter().filter(|s| s.action.starts_with("free ")).count(),
        kdrift_analyze::EXPLAINED_NODES
    );
    let timeline = kdrift_analyze::drain_timeline(&store, None, None).expect("timeline");
    let drained: usize = timeline.operations.iter().map(|o| o.episodes.len()).sum();
    assert_eq!(drained as u32, facts.drained_nodes, "every drained node in an operation");
    // Rolling drains of a generated cluster: the kept moves read as computed.
    drop(store);
    let store = Store::open(&path).expect("open for writing");
    let kept = kdrift_tests::assert_kept_moves_agree(&store);
    assert_eq!(kept, timeline.operations.iter().map(|o| o.pods_moved).sum::<usize>());
    assert!(kept > 100, "{kept} moves");
}

/// `why-pending` follows only the moves of the owners of the pods on the
/// nodes it explains (`drain_moves_to_nodes`). On every node of a generated
/// cluster with rolling drains, at the end and in the middle of the
/// history, the moves whose replacements landed on the node (operation,
/// evicted pod, its node, the replacement), every operation's span, when
/// the node came back from each, and the bindings to the node are exactly
/// the whole timeline's, from the kept rows (schema v12) and from the
/// history alike.
#[test]
fn the_moves_to_a_node_are_the_whole_timelines() {
    use kdrift_analyze::MovesToNodes;
    use kdrift_analyze::{drain_moves_and_placements, drain_moves_to_nodes, DrainTimeline};
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("store.duckdb");
    let config = ScaleConfig { seed: 5, ..small() };
    write(&config, &Outputs { store: Some(path.clone()), ..Outputs::default() }).expect("write");
    let store = Store::open(&path).expect("open");
    assert!(kdrift_analyze::moves_are_fresh(&store).expect("fresh?"), "the generator kept the moves");
    let (first, last) = kdrift_analyze::time_span(&store).expect("span").expect("a history");
    type Landed = Vec<(usize, String, String, String, i64)>;
    let landed = |number: usize, m: &kdrift_analyze::MovedPod, node: &str| {
        let r = m.replacement.as_ref().filter(|r| r.node == node)?;
        Some((number, m.key(), m.from_node.clone(), format!("{}/{}", r.namespace, r.name), r.bound_at.timestamp()))
    };
    let landed_on = |t: &DrainTimeline, node: &str| -> Landed {
        t.operations
            .iter()
            .flat_map(|op| op.episodes.iter().flat_map(move |e| e.evicted.iter().map(move |m| (op.number, m))))
            .filter_map(|(number, m)| landed(number, m, node))
            .collect()
    };
    let moved_to = |t: &MovesToNodes, node: &str| -> Landed {
        t.operations.iter().flat_map(|op| op.moves.iter().filter_map(move |m| landed(op.number, m, node))).collect()
    };
    let (mut compared, mut backs) = (0, 0);
    // With the moves kept (read from `drain_moves`), then without (matched from the history).
    let without_kept =
        [(first + (last - first) / 2, false), (last, false), (first + (last - first) / 2, true), (last, true)];
    for (until, cleared) in without_kept {
        if cleared {
            // Test-only: the kept moves dropped, as a store that never kept them.
            store.conn().execute_batch("DELETE FROM drain_moves_kept").expect("clear");
            assert!(!kdrift_analyze::moves_are_fresh(&store).expect("fresh?"));
        }
        let (full, full_placed) = drain_moves_and_placements(&store, until).expect("whole timeline");
        let mut nodes: Vec<&str> = full_placed.iter().map(|p| p.node.as_str()).collect();
        nodes.sort_unstable();
        nodes.dedup();
        assert_eq!(nodes.len(), 30, "pods bound to every node");
        // Every other node (each call re-reads the store: the test's time).
        for node in nodes.iter().step_by(2) {
            let focused = drain_moves_to_nodes(&store, until, &[node]).expect("focused");
            assert_eq!(
                focused.operations.len(),
                full.operations.len(),
                "every operation is numbered as in the timeline"
            );
            for (got, want) in focused.operations.iter().zip(&full.operations) {
                let span = (got.number, got.started_at, got.last_at);
                assert_eq!(span, (want.number, want.started_at, want.last_at()), "operation span");
                let mut back: Vec<_> =
                    want.episodes.iter().filter(|e| e.node == *node).filter_map(|e| e.back_at()).collect();
                back.sort();
                assert_eq!(got.back_ats(node), back, "{node} back in #{} (cleared: {cleared})", got.number);
                backs += back.len();
                assert!(got.episodes.iter().all(|e| e.node == *node), "only {node}'s episodes");
            }
            let (want, got) = (landed_on(&full, node), moved_to(&focused, node));
            assert_eq!(got, want, "{node} at {until} (kept moves cleared: {cleared})");
            compared += want.len();
            let on: Vec<kdrift_analyze::Placement> = full_placed.iter().filter(|p| p.node == *node).cloned().collect();
            assert_eq!(focused.placed, on, "{node}: the bindings to it, oldest first");
            assert!(!on.is_empty(), "{node}: bindings to compare");
        }
        // Two nodes at once: the union of what each gets alone.
        let both = drain_moves_to_nodes(&store, until, &nodes[..2]).expect("two nodes");
        for node in &nodes[..2] {
            assert_eq!(moved_to(&both, node), landed_on(&full, node), "{node} with another node");
        }
        let on_two = full_placed.iter().filter(|p| nodes[..2].contains(&p.node.as_str())).count();
        assert_eq!(both.placed.len(), on_two, "the bindings to both nodes");
    }
    assert!(backs >= 4, "only {backs} drained nodes' returns compared");
    assert!(compared > 100, "only {compared} replacements compared: the scenario has too few drains");
}
