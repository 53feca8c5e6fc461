//! `timeline drains` and `skew` on the demo scenario: both rolling drains
//! with the scenario's node order and times, the pods each node lost, where
//! they landed, and the skew each drain left; on the real node-event
//! sequences of `../shared/fixtures/real/drains`: which node went NotReady
//! when, and what the node controller evicted.

use chrono::{DateTime, Utc};
use kdrift_analyze::drain_timeline;
use kdrift_analyze::{policy_from_thresholds, skew};
use kdrift_analyze::{EpisodeEnd, OperationKind};
use kdrift_ingest::ingest_records;
use kdrift_ingest::{ingest_scenario, to_record};
use kdrift_rebalance::NodeClass;
use kdrift_rebalance::Policy;
use kdrift_scenario::{generate, ScenarioConfig};
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
    // Drain #1 cordoned one node after another; drain #2's node-2, node-3
    // and node-4 were cordoned within 4 s: no order among them, and node-1
    // and node-5 were the nodes left for their pods.
    assert!(d1.cordoned_together.is_empty(), "{:?}", d1.cordoned_together);
    let together: Vec<(&[String], &[String], i64)> = d2
        .cordoned_together
        .iter()
        .map(|t| (t.nodes.as_slice(), t.left.as_slice(), (t.last_at - t.first_at).num_seconds()))
        .collect();
    let (nodes, left) = (["node-2", "node-3", "node-4"].map(String::from), ["node-1", "node-5"].map(String::from));
    assert_eq!(together, [(&nodes[..], &left[..], 4)]);
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
    assert_eq!(d1.cpu_skew_after.map(|v| format!("{v:.1}")).as_deref(), Some("52.5"));
    assert_eq!(d2.cpu_skew_after.map(|v| format!("{v:.1}")).as_deref(), Some("97.1"));
    let s2 = d2.after.skew.iter().find(|s| s.resource == "cpu").expect("cpu skew");
    assert_eq!((s2.max_node.as_str(), s2.min_node.as_str()), ("node-1", "node-5"));
    assert!(d2.cpu_skew_after > d1.cpu_skew_after && d1.cpu_skew_after > d1.cpu_skew_before);
    assert!(d1.cpu_skew_before.is_some());

    // --since/--until keep the numbering.
    let only2 = drain_timeline(&store, Some(t("2026-11-28T00:00:00Z")), None).expect("timeline");
    assert_eq!(only2.operations.len(), 1);
    assert_eq!(only2.operations[0].number, 2);
    let none = drain_timeline(&store, Some(t("2026-11-29T00:00:00Z")), None).expect("timeline");
    assert!(none.operations.is_empty());
}

/// Every row of `pod_placements`, `pod_evictions` and `node_signals` over the whole history, as JSON values.
fn bindings_evidence_and_signals(store: &kdrift_store::Store) -> [Vec<Vec<serde_json::Value>>; 3] {
    let all = [("since_us".to_string(), "0".to_string()), ("until_us".to_string(), "9000000000000000".to_string())];
    let rows = |q: &str| kdrift_store::run_query(store, q, &all).expect(q).rows;
    [rows("pod_placements"), rows("pod_evictions"), rows("node_signals")]
}

/// Test-only read of the raw tables schema v8 adds (not product queries):
/// every row as text, sorted.
fn requested_tables(store: &kdrift_store::Store) -> [Vec<String>; 3] {
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
        kdrift_store::run_query(&store, "requested_since_checkpoint", &params).expect("query").rows
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
    use kdrift_analyze::moves_are_fresh;
    use kdrift_tests::keep_moves;
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
    use kdrift_analyze::{drain_timeline, read_kept_moves};
    use kdrift_tests::keep_moves;
    let (_dir, store) = kdrift_tests::temp_store();
    let scenario = kdrift_scenario::generate(&kdrift_scenario::ScenarioConfig { seed: 1, scale: 1 });
    kdrift_ingest::ingest_scenario(&store, scenario, 1).expect("ingest");
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

/// Issue 33, item 4: who filled the node when no drain did. `n1` (2000m)
/// holds 1700m when `apps/big-7f-abc` (600m) finds no room; its holders
/// arrived through every other cause of a move, each written as the
/// component writes its events:
/// - descheduler v0.36, `pkg/descheduler/evictions/evictions.go`
///   (`PodEvictor.EvictPod`): `eventRecorder.Eventf(pod, nil, Normal,
///   reason /* the plugin */, "Descheduled", "pod eviction from %v node by
///   sigs.k8s.io/descheduler", nodeName)` — an events.k8s.io/v1 Event,
///   reportingController `sigs.k8s.io.descheduler`;
/// - kdrift, `rebalance/src/execute/record.rs` (`attempt_event`): core/v1
///   `Evicted`, reportingComponent `kdrift`, "pod evicted from NODE node by
///   kdrift (rebalance RUN, eviction N): REASON";
/// - Karpenter, `pkg/controllers/node/termination/terminator/events/events.go`
///   (`EvictPod`): `Evicted` "Evicted pod: " + reason;
/// - cluster-autoscaler, `core/scaledown/actuation/drain.go`
///   (`Evictor.evictPod`): `ScaleDown` "deleting pod for node scale down";
/// - the node lifecycle controller's taint manager: `TaintManagerEviction`
///   "Marking for deletion Pod NS/NAME";
/// - the HPA controller's `SuccessfulRescale` "New size: N; reason: …" then
///   the Deployment controller's `ScalingReplicaSet` "Scaled up replica set
///   RS to N" (`pkg/controller/deployment/sync.go`, `scaleReplicaSetAndRecordEvent`);
/// - a rollout: `ScalingReplicaSet` for a second ReplicaSet of `shop`;
/// - a StatefulSet pod `db-0` evicted from `n1` by the descheduler and
///   recreated under its name on `n1`.
#[test]
fn who_filled_the_node_names_every_cause_of_a_move_with_its_node_count_and_time() {
    use kdrift_ingest::{ingest_files, NoProgress};
    use serde_json::{json, Value};
    let at = |hms: &str| format!("2026-02-01T{hms}Z");
    let mut events: Vec<Value> = Vec::new();
    let mut core = |kind: &str, name: &str, reason: &str, message: &str, when: &str, component: &str| {
        let n = events.len();
        events.push(json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{name}.{n:08x}"), "namespace": "apps", "uid": format!("ev-{n}"),
                         "creationTimestamp": when},
            "involvedObject": {"kind": kind, "namespace": "apps", "name": name, "uid": format!("uid-{name}")},
            "reason": reason, "message": message, "type": "Normal",
            "firstTimestamp": when, "lastTimestamp": when, "count": 1,
            "source": {"component": component}, "reportingComponent": component
        }));
    };
    let scheduled = |pod: &str, node: &str| format!("Successfully assigned apps/{pod} to {node}");
    // The evicted pods' bindings (Karpenter's, cluster-autoscaler's and the
    // taint manager's events name no node) and the StatefulSet pod's first life.
    for (pod, node) in [("cache-7b-e1", "n4"), ("q-8d-e1", "n5"), ("nc-9f-e1", "n6"), ("db-0", "n1")] {
        core("Pod", pod, "Scheduled", &scheduled(pod, node), &at("00:10:00"), "default-scheduler");
    }
    let kdrift_message = "pod evicted from n3 node by kdrift (rebalance rebalance-20260201-020000-000000, \
                          eviction 1): n3 is overutilized (above target: cpu 90.0 % > 50)";
    core("Pod", "api-6c-e1", "Evicted", kdrift_message, &at("02:00:00"), "kdrift");
    core("Pod", "cache-7b-e1", "Evicted", "Evicted pod: Underutilized", &at("02:30:00"), "karpenter");
    core("Pod", "q-8d-e1", "ScaleDown", "deleting pod for node scale down", &at("03:00:00"), "cluster-autoscaler");
    core(
        "Pod",
        "nc-9f-e1",
        "TaintManagerEviction",
        "Marking for deletion Pod apps/nc-9f-e1",
        &at("03:10:00"),
        "taint-eviction-controller",
    );
    let hpa = "New size: 4; reason: cpu resource utilization (percentage of request) above target";
    core("HorizontalPodAutoscaler", "front", "SuccessfulRescale", hpa, &at("03:20:00"), "horizontal-pod-autoscaler");
    let scaled = "Scaled up replica set front-55 to 4";
    core("Deployment", "front", "ScalingReplicaSet", scaled, &at("03:20:01"), "deployment-controller");
    let old = "Scaled up replica set shop-11 to 2";
    core("Deployment", "shop", "ScalingReplicaSet", old, &at("00:05:00"), "deployment-controller");
    let new = "Scaled up replica set shop-22 to 1";
    core("Deployment", "shop", "ScalingReplicaSet", new, &at("03:30:00"), "deployment-controller");
    let failed = "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: \
                  1 No preemption victims found for incoming pod.";
    core("Pod", "big-7f-abc", "FailedScheduling", failed, &at("04:00:00"), "default-scheduler");
    let descheduled = |pod: &str, plugin: &str, node: &str, when: &str| {
        json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": format!("{pod}.d{}", when.replace(':', "")), "namespace": "apps",
                         "uid": format!("desched-{pod}-{when}"), "creationTimestamp": when},
            "eventTime": when.replace('Z', ".000000Z"),
            "reportingController": "sigs.k8s.io.descheduler", "reportingInstance": "sigs.k8s.io.descheduler-7c9",
            "action": "Descheduled", "reason": plugin, "type": "Normal",
            "regarding": {"kind": "Pod", "namespace": "apps", "name": pod, "uid": format!("uid-{pod}")},
            "note": format!("pod eviction from {node} node by sigs.k8s.io/descheduler")
        })
    };
    for (i, pod) in ["web-5d-e1", "web-5d-e2", "web-5d-e3"].iter().enumerate() {
        events.push(descheduled(pod, "LowNodeUtilization", "n2", &at(&format!("01:30:0{i}"))));
    }
    events.push(descheduled("db-0", "RemovePodsHavingTooManyRestarts", "n1", &at("03:40:00")));

    let pod = |name: &str, owner: (&str, &str), cpu: &str, created: &str, bound: Option<&str>| {
        let mut spec = json!({"containers": [{"name": "c", "image": "x",
                                              "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]});
        let condition = match bound {
            Some(b) => {
                spec["nodeName"] = json!("n1");
                json!({"type": "PodScheduled", "status": "True", "lastTransitionTime": b})
            }
            None => json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                           "lastTransitionTime": created}),
        };
        json!({"apiVersion": "v1", "kind": "Pod",
            // db-0's second life: a new uid (its first is its Scheduled event's).
            "metadata": {"namespace": "apps", "name": name, "uid": format!("uid-{name}{}", if name == "db-0" { "-b" } else { "" }),
                         "creationTimestamp": created,
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": owner.0, "name": owner.1,
                                              "uid": format!("o-{}", owner.1), "controller": true}]},
            "spec": spec,
            "status": {"phase": if bound.is_some() { "Running" } else { "Pending" }, "conditions": [condition]}})
    };
    let mut pods =
        vec![pod("base-1-x", ("ReplicaSet", "base-1"), "700m", "2026-01-15T00:00:00Z", Some("2026-01-15T00:00:02Z"))];
    // Each replacement bound 2 s after its creation.
    for (name, owner, created, bound) in [
        ("web-5d-r1", "web-5d", "01:30:05", "01:30:07"),
        ("web-5d-r2", "web-5d", "01:30:06", "01:30:08"),
        ("web-5d-r3", "web-5d", "01:30:07", "01:30:09"),
        ("api-6c-r1", "api-6c", "02:00:03", "02:00:05"),
        ("cache-7b-r1", "cache-7b", "02:30:04", "02:30:06"),
        ("q-8d-r1", "q-8d", "03:00:05", "03:00:07"),
        ("nc-9f-r1", "nc-9f", "03:10:30", "03:10:32"),
        ("front-55-r1", "front-55", "03:20:01", "03:20:03"),
        ("shop-22-r1", "shop-22", "03:30:01", "03:30:03"),
    ] {
        pods.push(pod(name, ("ReplicaSet", owner), "100m", &at(created), Some(&at(bound))));
    }
    pods.push(pod("db-0", ("StatefulSet", "db"), "100m", &at("03:40:02"), Some(&at("03:40:03"))));
    pods.push(pod("big-7f-abc", ("ReplicaSet", "big-7f"), "600m", &at("03:50:00"), None));
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "uid": "uid-n1", "creationTimestamp": "2026-01-01T00:00:00Z",
                     "labels": {"kubernetes.io/hostname": "n1"}},
        "spec": {},
        "status": {"allocatable": {"cpu": "2000m", "memory": "8Gi", "pods": "110"},
                   "capacity": {"cpu": "2000m", "memory": "8Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
    let list = |items: Vec<Value>| json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let dir = tempfile::tempdir().expect("dir");
    let files: Vec<std::path::PathBuf> =
        [("events.json", list(events)), ("nodes.json", list(vec![node])), ("pods.json", list(pods))]
            .into_iter()
            .map(|(name, body)| {
                let path = dir.path().join(name);
                std::fs::write(&path, body).expect("write");
                path
            })
            .collect();
    let (_guard, store) = temp_store();
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files.iter().flat_map(|f| &f.errors).next());

    let report = kdrift_analyze::why_pending(&store, "apps", "big-7f-abc").expect("why-pending").expect("a report");
    let json = serde_json::to_value(&report).expect("json");
    let fill = &json["why_full"]["fills"][0];
    assert_eq!((fill["node"].as_str(), fill["requested"].as_i64()), (Some("n1"), Some(1700)), "{json:#}");
    let arrival = |pod: &str| -> Value {
        let holders = fill["holders"].as_array().expect("holders");
        holders.iter().find(|h| h["name"] == pod).unwrap_or_else(|| panic!("{pod} holds n1: {holders:#?}"))["arrival"]
            .clone()
    };
    let evicted = |pod: &str| {
        let a = arrival(pod);
        assert_eq!(a["kind"], "evicted", "{pod}: {a:#}");
        (
            a["cause"].as_str().map(str::to_string),
            a["by"].as_str().map(str::to_string),
            a["replaced"].as_str().map(str::to_string),
            a["from_node"].as_str().map(str::to_string),
            a["evicted_at"].as_str().map(str::to_string),
        )
    };
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        evicted("web-5d-r2"),
        (s("descheduler"), s("LowNodeUtilization"), s("apps/web-5d-e2"), s("n2"), s("2026-02-01T01:30:01Z"))
    );
    assert_eq!(
        evicted("api-6c-r1"),
        (s("kdrift"), s("rebalance-20260201-020000-000000"), s("apps/api-6c-e1"), s("n3"), s("2026-02-01T02:00:00Z"))
    );
    assert_eq!(
        evicted("cache-7b-r1"),
        (s("karpenter"), s("Underutilized"), s("apps/cache-7b-e1"), s("n4"), s("2026-02-01T02:30:00Z"))
    );
    assert_eq!(
        evicted("q-8d-r1"),
        (s("cluster-autoscaler"), s("scale-down"), s("apps/q-8d-e1"), s("n5"), s("2026-02-01T03:00:00Z"))
    );
    assert_eq!(
        evicted("nc-9f-r1"),
        (s("node-controller"), s("TaintManagerEviction"), s("apps/nc-9f-e1"), s("n6"), s("2026-02-01T03:10:00Z"))
    );
    assert_eq!(
        evicted("db-0"),
        (s("descheduler"), s("RemovePodsHavingTooManyRestarts"), s("apps/db-0"), s("n1"), s("2026-02-01T03:40:00Z"))
    );
    let front = arrival("front-55-r1");
    assert_eq!((front["kind"].as_str(), front["hpa"].as_str()), (Some("scale-up"), Some("apps/front")), "{front:#}");
    let shop = arrival("shop-22-r1");
    assert_eq!((shop["kind"].as_str(), shop["rollout"].as_bool()), (Some("scale-up"), Some(true)), "{shop:#}");
    assert_eq!(arrival("base-1-x")["kind"], "created");

    let runs: Vec<&str> = fill["runs"].as_array().expect("runs").iter().filter_map(|r| r["summary"].as_str()).collect();
    assert_eq!(
        runs,
        [
            "3 of its pods arrived in descheduler's LowNodeUtilization run at 2026-02-01T01:30:00Z (evicted from n2); \
             holding 300m of its 1700m cpu requested",
            "1 of its pods arrived in kdrift's rebalance rebalance-20260201-020000-000000 at 2026-02-01T02:00:00Z \
             (evicted from n3); holding 100m of its 1700m cpu requested",
            "1 of its pods arrived in Karpenter's disruption (Underutilized) at 2026-02-01T02:30:00Z (evicted from n4); \
             holding 100m of its 1700m cpu requested",
            "1 of its pods arrived in cluster-autoscaler's scale-down at 2026-02-01T03:00:00Z (evicted from n5); \
             holding 100m of its 1700m cpu requested",
            "1 of its pods arrived in the node controller's evictions at 2026-02-01T03:10:00Z (evicted from n6); \
             holding 100m of its 1700m cpu requested",
            "1 of its pods arrived in HPA apps/front's scale-up of apps/front at 2026-02-01T03:20:01Z; \
             holding 100m of its 1700m cpu requested",
            "1 of its pods arrived in the rollout of apps/shop at 2026-02-01T03:30:00Z; holding 100m of its 1700m cpu requested",
            "1 of its pods arrived in descheduler's RemovePodsHavingTooManyRestarts run at 2026-02-01T03:40:00Z \
             (evicted from n1); holding 100m of its 1700m cpu requested",
        ]
    );

    // The drain timeline lists the same evictions beside the drains (none here).
    let timeline = drain_timeline(&store, None, None).expect("timeline");
    assert!(timeline.operations.is_empty(), "{:#?}", timeline.operations);
    let runs: Vec<&str> = timeline.evictions.iter().map(|r| r.summary.as_str()).collect();
    assert_eq!(
        runs,
        [
            "descheduler's LowNodeUtilization run at 2026-02-01T01:30:00Z: 3 pods evicted from n2; \
             3 replacements landed on n1",
            "kdrift's rebalance rebalance-20260201-020000-000000 at 2026-02-01T02:00:00Z: 1 pod evicted from n3; \
             1 replacement landed on n1",
            "Karpenter's disruption (Underutilized) at 2026-02-01T02:30:00Z: 1 pod evicted from n4; \
             1 replacement landed on n1",
            "cluster-autoscaler's scale-down at 2026-02-01T03:00:00Z: 1 pod evicted from n5; \
             1 replacement landed on n1",
            "the node controller's evictions at 2026-02-01T03:10:00Z: 1 pod evicted from n6; \
             1 replacement landed on n1",
            "descheduler's RemovePodsHavingTooManyRestarts run at 2026-02-01T03:40:00Z: 1 pod evicted from n1; \
             1 replacement landed on n1",
        ]
    );
}

/// Issue 33, item 5: `n0`, an old cluster's control-plane node, is
/// unschedulable in its only stored version (no taint time): cordoned
/// before the history starts, not an open drain from its first
/// observation. `n1`'s drain (the kubelet's NodeNotSchedulable /
/// NodeSchedulable) is the only operation.
#[test]
fn a_node_unschedulable_when_first_seen_is_cordoned_before_the_history_not_a_drain() {
    use kdrift_ingest::{ingest_files, NoProgress};
    use serde_json::json;
    let node = |name: &str, unschedulable: bool| {
        json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": format!("uid-{name}"), "creationTimestamp": "2017-01-01T00:00:00Z"},
            "spec": {"unschedulable": unschedulable},
            "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2017-01-01T00:00:00Z"}]}})
    };
    let event = |reason: &str, when: &str| {
        json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("n1.{reason}"), "namespace": "default", "uid": format!("ev-{reason}"),
                         "creationTimestamp": when},
            "involvedObject": {"kind": "Node", "name": "n1", "uid": "uid-n1"},
            "reason": reason, "message": format!("Node n1 status is now: {reason}"), "type": "Normal",
            "firstTimestamp": when, "lastTimestamp": when, "count": 1,
            "source": {"component": "kubelet", "host": "n1"}})
    };
    let list = |items: Vec<serde_json::Value>| json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let dir = tempfile::tempdir().expect("dir");
    let nodes = dir.path().join("nodes.json");
    std::fs::write(&nodes, list(vec![node("n0", true), node("n1", false)])).expect("write");
    let events = dir.path().join("events.json");
    let body = list(vec![
        event("NodeNotSchedulable", "2017-06-01T01:00:00Z"),
        event("NodeSchedulable", "2017-06-01T01:10:00Z"),
    ]);
    std::fs::write(&events, body).expect("write");
    let (_guard, store) = temp_store();
    let report = ingest_files(&store, &[nodes, events], &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0);
    let timeline = drain_timeline(&store, None, None).expect("timeline");
    let ops: Vec<(Vec<String>, OperationKind, Option<DateTime<Utc>>)> =
        timeline.operations.iter().map(|o| (o.order.clone(), o.kind, o.ended_at)).collect();
    assert_eq!(ops, [(vec!["n1".to_string()], OperationKind::Drain, Some(t("2017-06-01T01:10:00Z")))]);
    let note = timeline.notes.iter().find(|n| n.starts_with("n0 (first seen ")).expect("a note on n0");
    assert!(
        note.ends_with(") was cordoned before the history starts (unschedulable when first seen): not a drain"),
        "{note}"
    );
}

/// Issue 33, item 5: a StatefulSet pod pinned to its node (nodeSelector)
/// is evicted by the drain of `n1` and recreated under its name on `n1`
/// after the uncordon: after the drain it counts on `n1` once, as before.
/// From events alone it does; and with a dump before the drain (uid db0-a)
/// and one taken later (uid db0-b, first observed at 02:00): db0-a's last
/// version ends when db0-b is created (01:00:20), so the amounts 1 min after
/// the drain count db0-b alone (1 pod, 400m; 2 pods / 800m before the fix),
/// whether both dumps come in one ingest or each in its own, in either
/// order; the requested changes and checkpoints the batches keep equal a
/// rebuild from the whole history.
#[test]
fn a_statefulset_pod_recreated_on_the_node_it_left_counts_there_after_the_drain() {
    use kdrift_ingest::{ingest_files, NoProgress};
    use serde_json::{json, Value};
    let mut events: Vec<Value> = Vec::new();
    let mut ev = |kind: &str, name: &str, uid: &str, reason: &str, message: &str, when: &str, component: &str| {
        let n = events.len();
        let ns = if kind == "Pod" { "apps" } else { "default" };
        events.push(json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{name}.{n:08x}"), "namespace": ns, "uid": format!("ev-{n}"), "creationTimestamp": when},
            "involvedObject": {"kind": kind, "namespace": if kind == "Pod" { json!("apps") } else { Value::Null }, "name": name, "uid": uid},
            "reason": reason, "message": message, "type": "Normal",
            "firstTimestamp": when, "lastTimestamp": when, "count": 1,
            "source": {"component": component, "host": if component == "kubelet" { "n1" } else { "" }}}));
    };
    ev(
        "StatefulSet",
        "db",
        "uid-db",
        "SuccessfulCreate",
        "create Pod db-0 in StatefulSet db successful",
        "2026-03-01T00:00:00Z",
        "statefulset-controller",
    );
    ev(
        "Pod",
        "db-0",
        "db0-a",
        "Scheduled",
        "Successfully assigned apps/db-0 to n1",
        "2026-03-01T00:00:01Z",
        "default-scheduler",
    );
    ev(
        "Pod",
        "web-1",
        "web1",
        "Scheduled",
        "Successfully assigned apps/web-1 to n2",
        "2026-03-01T00:00:01Z",
        "default-scheduler",
    );
    ev(
        "Node",
        "n1",
        "uid-n1",
        "NodeNotSchedulable",
        "Node n1 status is now: NodeNotSchedulable",
        "2026-03-01T01:00:00Z",
        "kubelet",
    );
    ev("Pod", "db-0", "db0-a", "Killing", "Stopping container db", "2026-03-01T01:00:10Z", "kubelet");
    ev(
        "StatefulSet",
        "db",
        "uid-db",
        "SuccessfulCreate",
        "create Pod db-0 in StatefulSet db successful",
        "2026-03-01T01:00:20Z",
        "statefulset-controller",
    );
    ev(
        "Pod",
        "db-0",
        "db0-b",
        "FailedScheduling",
        "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were unschedulable.",
        "2026-03-01T01:00:21Z",
        "default-scheduler",
    );
    ev(
        "Node",
        "n1",
        "uid-n1",
        "NodeSchedulable",
        "Node n1 status is now: NodeSchedulable",
        "2026-03-01T01:05:00Z",
        "kubelet",
    );
    ev(
        "Pod",
        "db-0",
        "db0-b",
        "Scheduled",
        "Successfully assigned apps/db-0 to n1",
        "2026-03-01T01:05:02Z",
        "default-scheduler",
    );
    let node = |name: &str| {
        json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": format!("uid-{name}"), "creationTimestamp": "2026-01-01T00:00:00Z",
                         "labels": {"kubernetes.io/hostname": name}},
            "spec": {},
            "status": {"allocatable": {"cpu": "1000m", "memory": "4Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})
    };
    let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"namespace": "apps", "name": "db", "uid": "uid-db", "creationTimestamp": "2026-02-01T00:00:00Z"},
        "spec": {"replicas": 1, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                 "template": {"metadata": {"labels": {"app": "db"}},
                              "spec": {"nodeSelector": {"kubernetes.io/hostname": "n1"},
                                       "containers": [{"name": "db", "image": "db",
                                                       "resources": {"requests": {"cpu": "400m", "memory": "1Gi"}}}]}}}});
    // The new db-0 as a kubectl dump taken at 02:00 shows it (uid db0-b).
    let db0 = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"namespace": "apps", "name": "db-0", "uid": "db0-b", "creationTimestamp": "2026-03-01T01:00:20Z",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "uid-db",
                                          "controller": true}]},
        "spec": {"nodeName": "n1", "nodeSelector": {"kubernetes.io/hostname": "n1"},
                 "containers": [{"name": "db", "image": "db", "resources": {"requests": {"cpu": "400m", "memory": "1Gi"}}}]},
        "status": {"phase": "Running",
                   "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-03-01T01:05:02Z"}],
                   "containerStatuses": [{"name": "db", "ready": true,
                                          "state": {"running": {"startedAt": "2026-03-01T02:00:00Z"}}}]}});
    let list = |items: Vec<Value>| json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let mut before = db0.clone();
    before["metadata"]["uid"] = json!("db0-a");
    before["metadata"]["creationTimestamp"] = json!("2026-03-01T00:00:00Z");
    before["status"]["conditions"][0]["lastTransitionTime"] = json!("2026-03-01T00:00:01Z");
    before["status"]["containerStatuses"][0]["state"]["running"]["startedAt"] = json!("2026-03-01T00:30:00Z");
    let base = vec![
        ("events.json", list(events)),
        ("nodes.json", list(vec![node("n1"), node("n2")])),
        ("statefulsets.json", list(vec![sts])),
    ];
    let (later, earlier) = (("pods.json", list(vec![db0])), ("pods-before.json", list(vec![before])));
    // Events only; with both dumps in one ingest; then each dump in a later
    // ingest of its own, in either order (a later batch brings the other uid).
    let cases = [
        ("events only", vec![base.clone()]),
        ("both dumps", vec![[base.clone(), vec![later.clone(), earlier.clone()]].concat()]),
        ("dump before, then later dump", vec![[base.clone(), vec![earlier.clone()]].concat(), vec![later.clone()]]),
        ("later dump, then dump before", vec![[base.clone(), vec![later.clone()]].concat(), vec![earlier.clone()]]),
    ];
    for (case, runs) in cases {
        let dir = tempfile::tempdir().expect("dir");
        let (_guard, store) = temp_store();
        for run in runs {
            let mut files = Vec::new();
            for (name, body) in run {
                let path = dir.path().join(name);
                std::fs::write(&path, body).expect("write");
                files.push(path);
            }
            let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
            assert_eq!(report.error_count(), 0, "{:?}", report.files.iter().flat_map(|f| &f.errors).next());
        }
        let timeline = drain_timeline(&store, None, None).expect("timeline");
        assert_eq!(timeline.operations.len(), 1, "{:#?}", timeline.operations);
        let op = &timeline.operations[0];
        let landed: Vec<(&str, usize)> = op.landed.iter().map(|l| (l.node.as_str(), l.pods)).collect();
        assert_eq!(landed, [("n1", 1)], "db-0 came back to n1 ({case})");
        let pods_cpu = |r: &kdrift_analyze::RequestedAt| {
            let n = r.node("n1").expect("n1");
            (n.pods, n.get("cpu").map(|c| c.requested))
        };
        assert_eq!(pods_cpu(&op.before), (1, Some(400)), "before ({case}): {:#?}", op.before);
        assert_eq!(pods_cpu(&op.after), (1, Some(400)), "after ({case}): {:#?}", op.after);
        // What the batches kept equals a rebuild from the whole history.
        let kept = requested_tables(&store);
        store.rederive_everything().expect("rederive");
        assert_eq!(kept, requested_tables(&store), "requested changes and checkpoints ({case})");
    }
}

/// Issue 33, item 5 (and 4): pods known only from their `Scheduled` events
/// stop counting on `n1` once another mover evicted them, as query
/// `move_causes` reads those events: the descheduler's events.k8s.io/v1
/// `Descheduled` (descheduler v0.36 `pkg/descheduler/evictions/evictions.go`,
/// `EvictPod`: reason = the plugin, note "pod eviction from NODE node by
/// sigs.k8s.io/descheduler"), cluster-autoscaler's `ScaleDown` "deleting pod
/// for node scale down" (`core/scaledown/actuation/drain.go`, `evictPod`)
/// and Karpenter's `Disrupted` "Deleting the pod to accommodate the
/// terminationTime …" (`pkg/controllers/node/termination/terminator/events/events.go`).
/// A failed descheduler eviction (`EvictionFailed`) leaves its pod there.
/// Before, query `pods_gone` knew none of them: all four pods counted at 02:00.
#[test]
fn pods_known_from_events_leave_their_node_when_the_descheduler_autoscaler_or_karpenter_evicts_them() {
    use kdrift_ingest::{ingest_files, NoProgress};
    use serde_json::{json, Value};
    let mut events: Vec<Value> = Vec::new();
    for (i, pod) in ["web-5d-e1", "q-8d-e1", "kp-7c-e1", "stay-9a-e1"].iter().enumerate() {
        events.push(json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{pod}.s"), "namespace": "apps", "uid": format!("ev-s{i}"),
                         "creationTimestamp": "2026-02-01T00:10:00Z"},
            "involvedObject": {"kind": "Pod", "namespace": "apps", "name": pod, "uid": format!("uid-{pod}")},
            "reason": "Scheduled", "message": format!("Successfully assigned apps/{pod} to n1"), "type": "Normal",
            "firstTimestamp": "2026-02-01T00:10:00Z", "lastTimestamp": "2026-02-01T00:10:00Z", "count": 1,
            "source": {"component": "default-scheduler"}}));
    }
    let descheduled = |pod: &str, reason: &str, kind: &str, note: &str, when: &str| {
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": format!("{pod}.d"), "namespace": "apps", "uid": format!("ev-d-{pod}"),
                         "creationTimestamp": when},
            "eventTime": when.replace('Z', ".000000Z"),
            "reportingController": "sigs.k8s.io.descheduler", "reportingInstance": "sigs.k8s.io.descheduler-7c9",
            "action": "Descheduled", "reason": reason, "type": kind,
            "regarding": {"kind": "Pod", "namespace": "apps", "name": pod, "uid": format!("uid-{pod}")},
            "note": note})
    };
    events.push(descheduled(
        "web-5d-e1",
        "LowNodeUtilization",
        "Normal",
        "pod eviction from n1 node by sigs.k8s.io/descheduler",
        "2026-02-01T01:30:00Z",
    ));
    events.push(descheduled(
        "stay-9a-e1",
        "EvictionFailed",
        "Warning",
        "pod eviction from n1 node by sigs.k8s.io/descheduler failed: Cannot evict pod as it would violate the pod's disruption budget.",
        "2026-02-01T01:35:00Z",
    ));
    let mut core = |pod: &str, reason: &str, message: &str, when: &str, component: &str| {
        events.push(json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{pod}.c"), "namespace": "apps", "uid": format!("ev-c-{pod}"),
                         "creationTimestamp": when},
            "involvedObject": {"kind": "Pod", "namespace": "apps", "name": pod, "uid": format!("uid-{pod}")},
            "reason": reason, "message": message, "type": "Normal",
            "firstTimestamp": when, "lastTimestamp": when, "count": 1,
            "source": {"component": component}, "reportingComponent": component}));
    };
    core("q-8d-e1", "ScaleDown", "deleting pod for node scale down", "2026-02-01T01:40:00Z", "cluster-autoscaler");
    core(
        "kp-7c-e1",
        "Disrupted",
        "Deleting the pod to accommodate the terminationTime 2026-02-01T01:50:00Z of the node. The pod was granted 0 seconds of grace-period of its 30 terminationGracePeriodSeconds.",
        "2026-02-01T01:50:00Z",
        "karpenter",
    );
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "uid": "uid-n1", "creationTimestamp": "2026-01-01T00:00:00Z",
                     "labels": {"kubernetes.io/hostname": "n1"}},
        "spec": {},
        "status": {"allocatable": {"cpu": "2000m", "memory": "8Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
    let list = |items: Vec<Value>| json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let dir = tempfile::tempdir().expect("dir");
    let mut files = Vec::new();
    for (name, body) in [("events.json", list(events)), ("nodes.json", list(vec![node]))] {
        let path = dir.path().join(name);
        std::fs::write(&path, body).expect("write");
        files.push(path);
    }
    let (_guard, store) = temp_store();
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files.iter().flat_map(|f| &f.errors).next());
    let on_n1 = |at: &str| {
        let state = kdrift_analyze::ClusterAt::load(&store, t(at)).expect("state loads");
        let mut names: Vec<String> =
            state.pods.iter().filter(|p| p.node_name.as_deref() == Some("n1")).map(|p| p.name.clone()).collect();
        names.sort();
        names
    };
    assert_eq!(on_n1("2026-02-01T01:00:00Z"), ["kp-7c-e1", "q-8d-e1", "stay-9a-e1", "web-5d-e1"]);
    assert_eq!(
        on_n1("2026-02-01T02:00:00Z"),
        ["stay-9a-e1"],
        "evicted by the descheduler, cluster-autoscaler, Karpenter"
    );
}
