//! `timeline drains` and `skew` on the demo scenario: both rolling drains
//! with the scenario's node order and times, the pods each node lost, where
//! they landed, and the skew each drain left; on the real node-event
//! sequences of `../shared/fixtures/real/drains`: which node went NotReady
//! when, and what the node controller evicted.

use chrono::{DateTime, Utc};
use kdrift_analyze::drain_timeline;
use kdrift_analyze::drains::{EpisodeEnd, OperationKind};
use kdrift_analyze::skew::{policy_from_thresholds, skew};
use kdrift_ingest::demo::{ingest_scenario, to_record};
use kdrift_ingest::ingest_records;
use kdrift_ingest::scenario::{generate, ScenarioConfig};
use kdrift_rebalance::planner::NodeClass;
use kdrift_rebalance::Policy;
use kdrift_tests::{real_fixtures_or_skip, temp_store, tsv_node_events};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
}

#[test]
fn demo_has_two_rolling_drains_in_the_scenario_order_with_the_skew_each_left() {
    let scenario = generate(&ScenarioConfig { seed: 3, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 3).expect("ingest");
    let tl = drain_timeline(&store, None, None).expect("timeline");
    assert_eq!(
        tl.operations.len(),
        2,
        "{:#?}",
        tl.operations.iter().map(|o| (&o.order, o.started_at)).collect::<Vec<_>>()
    );
    for (op, d) in tl.operations.iter().zip(&facts.drains) {
        assert_eq!(op.number, d.number as usize);
        assert_eq!(op.kind, OperationKind::RollingDrain);
        assert_eq!(op.started_at, d.started_at);
        assert_eq!(op.ended_at, Some(d.ended_at));
        let order: Vec<&str> = d.windows.iter().map(|w| w.node.as_str()).collect();
        assert_eq!(op.order, order, "drain #{}", d.number);
        for w in &d.windows {
            let e = op.episode(&w.node).expect("episode");
            assert_eq!(e.cordoned_at, Some(w.cordoned_at), "{} cordon", w.node);
            assert_eq!(e.uncordoned_at, Some(w.uncordoned_at), "{} uncordon", w.node);
            assert_eq!(e.ready_at, Some(w.ready_at), "{} ready", w.node);
            assert_eq!(e.end, EpisodeEnd::Closed);
            assert_eq!(e.reboots.len(), 1, "{} rebooted once", w.node);
            assert_eq!(e.evicted.len(), w.evicted_pods, "{} evicted", w.node);
            assert!(e.evicted.iter().all(|m| m.evidence.iter().any(|x| x == "DisruptionTarget")));
        }
        assert_eq!(op.not_replaced, 0, "every evicted pod was replaced");
        assert_eq!(op.pods_moved, d.windows.iter().map(|w| w.evicted_pods).sum::<usize>());
    }
    let (d1, d2) = (&tl.operations[0], &tl.operations[1]);
    // Drain #2: node-2/3/4 drained together while node-1 was back: the burst
    // of replacements on node-1 is the scenario's burst.
    let on_node1 = d2.landed.iter().find(|l| l.node == "node-1").map(|l| (l.pods, l.moved_again));
    assert_eq!(on_node1, Some((facts.burst_pods.len(), 0)), "the burst stayed on node-1");
    assert_eq!(facts.burst_pods.len(), 19);
    // Replacements that landed on the node drained last (before its cordon)
    // all moved on when it was drained; none of those on the first did.
    for op in [d1, d2] {
        let landed = |node: &str| op.landed.iter().find(|l| l.node == node).map(|l| (l.pods, l.moved_again));
        let last = op.order.last().expect("a node");
        let (pods, again) = landed(last).expect("replacements landed on the last node");
        assert!(pods > 0 && again == pods, "drain #{} {last}: {again} of {pods} moved on", op.number);
        assert_eq!(landed(&op.order[0]).map_or(0, |l| l.1), 0, "drain #{} {}", op.number, op.order[0]);
    }
    // The skew each drain left (cpu requested %, max − min), one minute after it ended.
    let cpu = |op: &kdrift_analyze::Operation, node: &str| {
        op.after.node(node).and_then(|n| n.get("cpu")).map(|c| c.requested)
    };
    // One of the burst's 50m pods leaves before the failure (1942m then).
    assert_eq!(cpu(d2, "node-1"), Some(1992), "node-1 ends drain #2 at 1992m of 2000m");
    assert_eq!(format!("{:.1}", d1.cpu_skew_after), "52.5");
    assert_eq!(format!("{:.1}", d2.cpu_skew_after), "97.1");
    let s2 = d2.after.skew.iter().find(|s| s.resource == "cpu").expect("cpu skew");
    assert_eq!((s2.max_node.as_str(), s2.min_node.as_str()), ("node-1", "node-5"));
    assert!(d2.cpu_skew_after > d1.cpu_skew_after && d1.cpu_skew_after > d1.cpu_skew_before);

    // --since/--until keep the numbering.
    let only2 = drain_timeline(&store, Some(t("2026-11-28T00:00:00Z")), None).expect("timeline");
    assert_eq!(only2.operations.len(), 1);
    assert_eq!(only2.operations[0].number, 2);
    let none = drain_timeline(&store, Some(t("2026-11-29T00:00:00Z")), None).expect("timeline");
    assert!(none.operations.is_empty());
}

/// Every row of `pod_placements`, `pod_evictions` and `node_signals` over the whole history, as JSON values.
fn bindings_evidence_and_signals(store: &kdrift_ingest::Store) -> [Vec<Vec<serde_json::Value>>; 3] {
    let all = [("since_us".to_string(), "0".to_string()), ("until_us".to_string(), "9000000000000000".to_string())];
    let rows = |q: &str| kdrift_ingest::store::catalog::run(store, q, &all).expect(q).rows;
    [rows("pod_placements"), rows("pod_evictions"), rows("node_signals")]
}

/// Test-only read of the raw tables schema v8 adds (not product queries):
/// every row as text, sorted.
fn requested_tables(store: &kdrift_ingest::Store) -> [Vec<String>; 3] {
    let rows = |sql: &str| -> Vec<String> {
        let mut stmt = store.conn().prepare(sql).expect("prepare");
        let mut out: Vec<String> =
            stmt.query_map([], |r| r.get(0)).expect("query").collect::<Result<_, _>>().expect("rows");
        out.sort();
        out
    };
    [
        rows("SELECT concat_ws(' ', changed_at, node, pods, cpu_millis, memory_bytes) FROM requested_changes"),
        rows("SELECT concat_ws(' ', checkpoint_at, node, pods, cpu_millis, memory_bytes) FROM requested_checkpoints"),
        rows("SELECT checkpoint_at::VARCHAR FROM requested_checkpoint_times"),
    ]
}

#[test]
fn bindings_evidence_and_node_signals_kept_per_batch_equal_a_full_rebuild() {
    // The demo history in seven runs, the later part first: each batch
    // rewrites the bindings and evidence of the pods it names only, and the
    // signals of the nodes it names.
    let scenario = generate(&ScenarioConfig { seed: 3, scale: 1 });
    let burst = scenario.facts.burst_pods.len();
    let drained: usize = scenario.facts.drains.iter().map(|d| d.windows.len()).sum();
    let mut parts: Vec<Vec<_>> = scenario.records.chunks(scenario.records.len() / 7 + 1).map(<[_]>::to_vec).collect();
    parts.rotate_left(4);
    let (_dir, store) = temp_store();
    for (i, part) in parts.into_iter().enumerate() {
        let location = format!("demo:part={i}");
        ingest_records(&store, "demo", &location, part.into_iter().map(|r| to_record(r, &location))).expect("ingest");
    }
    let kept = bindings_evidence_and_signals(&store);
    let kept_requested = requested_tables(&store);
    let timeline = drain_timeline(&store, None, None).expect("timeline");
    assert_eq!(timeline.operations.len(), 2);
    let on_node1 = timeline.operations[1].landed.iter().find(|l| l.node == "node-1").map(|l| l.pods);
    assert_eq!(on_node1, Some(burst), "drain #2's replacements on node-1");
    assert_eq!(timeline.operations[1].not_replaced, 0);
    // What the migrations run: every pod's and node's rows from the whole history.
    store.rederive_everything().expect("rederive");
    let rebuilt = bindings_evidence_and_signals(&store);
    for (i, what) in ["bindings", "evidence", "node signals"].iter().enumerate() {
        assert_eq!(kept[i].len(), rebuilt[i].len(), "{what}");
        assert_eq!(kept[i], rebuilt[i], "{what}");
    }
    // The requested-amount changes and hourly checkpoints (schema v8), row for row.
    let rebuilt_requested = requested_tables(&store);
    for (i, what) in ["changes", "checkpoints", "checkpoint times"].iter().enumerate() {
        assert_eq!(kept_requested[i].len(), rebuilt_requested[i].len(), "{what}");
        assert_eq!(kept_requested[i], rebuilt_requested[i], "{what}");
    }
    let [changes, checkpoints, times] = kept_requested;
    assert!(changes.len() > 100 && times.len() >= 4, "{} changes, {} checkpoint times", changes.len(), times.len());
    // Each checkpoint holds exactly the sums of the changes up to it.
    let since = |checkpoint: &str, at: &str| {
        let params = [("checkpoint_us".to_string(), checkpoint.to_string()), ("at_us".to_string(), at.to_string())];
        kdrift_ingest::store::catalog::run(&store, "requested_since_checkpoint", &params).expect("query").rows
    };
    for time in &times {
        let at = format!("{}Z", time.replace(' ', "T"));
        let from_changes = since("0001-01-01T00:00:00Z", &at);
        assert!(!from_changes.is_empty(), "nothing requested at {at}");
        assert_eq!(since(&at, &at), from_changes, "checkpoint {at}");
        let rows = checkpoints.iter().filter(|r| r.starts_with(time.as_str())).count();
        assert_eq!(rows, from_changes.len(), "one row per node with pods at {at}");
    }
    let [bindings, evidence, signals] = kept;
    assert!(bindings.len() > 100 && evidence.len() > 40, "{} bindings, {} evidence", bindings.len(), evidence.len());
    // Each node drained is cordoned once per drain, as its Node versions show.
    let cordons = signals.iter().filter(|r| r[2] == "cordon" && r[3] == "object").count();
    assert_eq!(cordons, drained, "{signals:?}");
    assert_eq!(drain_timeline(&store, None, None).expect("timeline"), timeline);
}

#[test]
fn kept_drain_moves_are_read_while_fresh_and_ignored_once_the_history_changes() {
    use kdrift_analyze::drains::{keep_moves, moves_are_fresh};
    let scenario = generate(&ScenarioConfig { seed: 3, scale: 1 });
    let burst = scenario.facts.burst_pods.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 3).expect("ingest");
    let kept = kdrift_tests::assert_kept_moves_agree(&store);
    let from_history = drain_timeline(&store, None, None).expect("timeline");
    assert_eq!(kept, from_history.operations.iter().map(|o| o.pods_moved).sum::<usize>());
    assert!(kept > 40, "{kept} moves");
    // The timeline reads the kept rows: one changed by hand (no new
    // observation, so still fresh) shows in it.
    let on = |tl: &kdrift_analyze::DrainTimeline, node: &str| {
        tl.operations[1].landed.iter().find(|l| l.node == node).map(|l| l.pods)
    };
    let landed = on(&from_history, "node-1").expect("drain #2's replacements landed on node-1");
    assert!(landed >= burst.len(), "{landed} landed on node-1, the burst is {}", burst.len());
    let changed = store
        .conn()
        .execute(
            "UPDATE drain_moves SET replacement_node = 'node-9' WHERE operation = 2 AND replacement_node = 'node-1'",
            [],
        )
        .expect("test-only change of the kept rows");
    assert_eq!(changed, landed, "one kept row per pod that landed");
    let read = drain_timeline(&store, None, None).expect("timeline");
    assert_eq!(on(&read, "node-9"), Some(landed), "read from drain_moves");
    assert_eq!(on(&read, "node-1"), None);
    // A new observation (any: here a Node version) makes them stale: the
    // timeline computes the moves from the history again, then ingest keeps them.
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node-new", "uid": "uid-node-new", "resourceVersion": "1",
                     "creationTimestamp": "2026-11-28T06:00:00Z"},
        "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}});
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("node.json");
    std::fs::write(&file, node.to_string()).expect("write");
    kdrift_ingest::ingest_files(&store, &[file], &mut kdrift_ingest::NoProgress).expect("ingest a node");
    assert!(!moves_are_fresh(&store).expect("fresh?"), "a new observation makes the kept moves stale");
    let recomputed = drain_timeline(&store, None, None).expect("timeline");
    assert_eq!(on(&recomputed, "node-1"), Some(landed), "computed from the history");
    assert_eq!(recomputed.operations, from_history.operations);
    let again = keep_moves(&store).expect("keep");
    assert_eq!((again.computed, again.moves), (true, kept));
    assert_eq!(drain_timeline(&store, None, None).expect("timeline").operations, from_history.operations);
    // A damaged store without the kept tables (break-it trial): the moves
    // are computed from the history, not an error.
    store.conn().execute_batch("DROP TABLE drain_moves_kept").expect("test-only damage");
    assert_eq!(drain_timeline(&store, None, None).expect("timeline").operations, from_history.operations);
}

#[test]
fn demo_skew_at_the_failure_classifies_node_1_overutilized() {
    let scenario = generate(&ScenarioConfig { seed: 4, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 4).expect("ingest");
    let chart = Policy::from_yaml("deschedulerPolicy: null").expect("chart default");
    let r = skew(&store, Some(facts.failure_at), &chart).expect("skew");
    assert_eq!(r.nodes.len(), 5);
    let node = |n: &str| r.nodes.iter().find(|x| x.requested.node == n).expect("node");
    let cpu1 = node("node-1").requested.get("cpu").expect("cpu");
    assert_eq!((cpu1.requested, cpu1.allocatable), (1942, 2000));
    assert_eq!(node("node-1").class, Some(NodeClass::Overutilized));
    assert!(node("node-1").why.contains("cpu 97.1 % > 50"), "{}", node("node-1").why);
    assert_eq!(
        node("node-5").requested.get("cpu").map(|c| c.requested),
        Some(facts.usage("node-5").expect("n5").requested_cpu_millis)
    );
    let cpu = r.skew.iter().find(|s| s.resource == "cpu").expect("cpu skew");
    assert_eq!(
        (cpu.max_node.as_str(), cpu.min_node.as_str(), format!("{:.1}", cpu.skew)),
        ("node-1", "node-5", "68.1".into())
    );
    // The GPU nodes offer gpu.intel.com/i915; node-1 has plex's slot.
    assert_eq!(node("node-1").requested.get("gpu.intel.com/i915").map(|g| g.requested), Some(1));
    assert!(node("node-5").requested.get("gpu.intel.com/i915").is_none());
    // Thresholds from the command line: at cpu=40 node-3 (765m, 38.25 % cpu) is
    // underutilized and node-2 (875m, 43.75 %) is not.
    let t = |v: f64| [("cpu".to_string(), v), ("memory".to_string(), v)].into_iter().collect();
    let custom = policy_from_thresholds(t(40.0), t(60.0)).expect("policy");
    let r = skew(&store, Some(facts.failure_at), &custom).expect("skew");
    let class = |n: &str| {
        let x = r.nodes.iter().find(|x| x.requested.node == n).expect("node");
        (x.requested.get("cpu").map(|c| c.requested), x.class)
    };
    let cpu_of = |n: &str| facts.usage(n).map(|u| u.requested_cpu_millis);
    assert_eq!((cpu_of("node-3"), cpu_of("node-2")), (Some(765), Some(875)));
    assert_eq!(class("node-3"), (Some(765), Some(NodeClass::Underutilized)));
    assert_eq!(class("node-2"), (Some(875), Some(NodeClass::AppropriatelyUtilized)));
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn real_node_events_k8s_ha_master_goes_not_ready_and_the_node_controller_evicts() {
    let Some(real) = real_fixtures_or_skip("real_node_events_k8s_ha") else { return };
    let path = real.join("drains/node-events-TonyChengTW-k8s-ha-v1.8.1.tsv");
    let records = tsv_node_events(&path).expect("tsv");
    assert_eq!(records.len(), 15, "every event row of the file");
    let (_dir, store) = temp_store();
    ingest_records(&store, "file", &path.display().to_string(), records).expect("ingest");
    let tl = drain_timeline(&store, None, None).expect("timeline");
    // 2017-11-02: k8s-master1's earlier outage (DeletingAllPods 09:18:19, NotReady 10:31:51).
    // 2017-11-03: k8s-worker1 NotReady 03:14:17 → Ready 03:14:27; k8s-master1 NotReady 03:17:27,
    // the node controller deleting its pods at 03:21:47 (3 static pods marked for deletion).
    assert_eq!(tl.operations.len(), 2, "{:#?}", tl.operations);
    let first = &tl.operations[0];
    assert_eq!(first.order, vec!["k8s-master1"]);
    assert_eq!(first.started_at, t("2017-11-02T09:18:19Z"));
    assert_eq!(first.episodes[0].not_ready_at, Some(t("2017-11-02T10:31:51Z")));
    assert_eq!(first.episodes[0].end, EpisodeEnd::RecoveryUnseen);
    let second = &tl.operations[1];
    assert_eq!(second.kind, OperationKind::Outage);
    assert_eq!(second.order, vec!["k8s-worker1", "k8s-master1"]);
    let worker = second.episode("k8s-worker1").expect("worker1");
    assert_eq!(
        (worker.not_ready_at, worker.ready_at),
        (Some(t("2017-11-03T03:14:17Z")), Some(t("2017-11-03T03:14:27Z")))
    );
    assert_eq!(worker.end, EpisodeEnd::Closed);
    let master = second.episode("k8s-master1").expect("master1");
    assert_eq!(master.not_ready_at, Some(t("2017-11-03T03:17:27Z")));
    assert_eq!(master.node_controller_deleted_pods, vec![t("2017-11-03T03:21:47Z")]);
    assert_eq!(master.end, EpisodeEnd::Open, "never seen Ready again");
    let mut evicted: Vec<&str> = master.evicted.iter().map(|m| m.name.as_str()).collect();
    evicted.sort_unstable();
    assert_eq!(
        evicted,
        ["kube-apiserver-k8s-master1", "kube-controller-manager-k8s-master1", "kube-scheduler-k8s-master1"]
    );
    assert!(master
        .evicted
        .iter()
        .all(|m| m.evidence == ["NodeControllerEviction"] && m.evicted_at == t("2017-11-03T03:21:47Z")));
    assert_eq!(second.ended_at, None);
    // Kept (schema v9), the moves read back the same: the three static pods.
    assert_eq!(kdrift_tests::assert_kept_moves_agree(&store), 3);
}

#[test]
fn a_kept_move_row_edited_to_null_sends_the_timeline_back_to_the_history_with_the_same_answer() {
    // Break-it trial (session 22): a kept row with a NULL uid made the column
    // reader fail the whole command, where the row reader had fallen back.
    use kdrift_analyze::drains::{drain_timeline, keep_moves, read_kept_moves};
    let (_dir, store) = kdrift_tests::temp_store();
    let scenario = kdrift_ingest::scenario::generate(&kdrift_ingest::scenario::ScenarioConfig { seed: 1, scale: 1 });
    kdrift_ingest::demo::ingest_scenario(&store, scenario, 1).expect("ingest");
    keep_moves(&store).expect("keep");
    let expected = drain_timeline(&store, None, None).expect("from the kept rows");
    assert!(expected.operations.iter().map(|o| o.pods_moved).sum::<usize>() > 10, "moves to read");
    // Test fixture: a store edited by hand.
    store
        .conn()
        .execute_batch("UPDATE drain_moves SET uid = NULL WHERE rowid = (SELECT min(rowid) FROM drain_moves)")
        .expect("edit");
    let err = read_kept_moves(&store).expect_err("the column reader refuses the row");
    assert!(err.to_string().contains("column 5 (uid) is NULL where a value is required"), "{err}");
    assert_eq!(drain_timeline(&store, None, None).expect("from the history"), expected);
}
