//! Time travel when only events exist: the demo's events and owner objects
//! plus only the pod versions of pods created before the scenario started
//! (the bootstrap pods, whose Scheduled events are long gone). Placements of
//! every later pod come from Scheduled events, requests from the nearest
//! version of the same owner; the chain reaches the same numbers, marked
//! estimated.

use kdrift_analyze::why_pending;
use kdrift_analyze::ClusterAt;
use kdrift_ingest::ingest_records;
use kdrift_ingest::to_record;
use kdrift_rebalance::PodPhase;
use kdrift_scenario::{generate, ScenarioConfig};
use kdrift_tests::temp_store;

#[test]
fn events_and_owner_templates_rebuild_node_1_at_the_failure() {
    let scenario = generate(&ScenarioConfig { seed: 6, scale: 1 });
    let facts = scenario.facts.clone();
    let start = facts.start;
    let pending_key = (facts.pending_pod.namespace.clone(), facts.pending_pod.name.clone());
    let mut dropped = 0usize;
    let records: Vec<_> = scenario
        .records
        .into_iter()
        .filter(|r| {
            let o = &r.object;
            if o["kind"] != "Pod" {
                return true;
            }
            let created = o["metadata"]["creationTimestamp"].as_str().unwrap_or_default();
            let created_before = chrono::DateTime::parse_from_rfc3339(created).is_ok_and(|t| t < start);
            let key = (
                o["metadata"]["namespace"].as_str().unwrap_or_default().to_string(),
                o["metadata"]["name"].as_str().unwrap_or_default().to_string(),
            );
            let keep = created_before || key == pending_key;
            if !keep {
                dropped += 1;
            }
            keep
        })
        .map(|r| to_record(r, "partial"))
        .collect();
    assert!(dropped > 500, "most pod versions are dropped: {dropped}");
    let (_dir, store) = temp_store();
    ingest_records(&store, "file", "partial", records).expect("ingest");
    // The per-node aggregates (no pod loaded) add the same event-only pods, with the same requests.
    assert!(kdrift_tests::assert_amounts_agree(&store, 40) > 40);
    kdrift_tests::assert_filter_load_agrees(&store, 20);

    let at = facts.failure_at;
    let cluster = ClusterAt::load(&store, at).expect("state");
    // Every bound pod at the failure is either a bootstrap pod (its object
    // was kept) or known only from its Scheduled event.
    let bound: usize = facts.usage_at_failure.iter().map(|u| u.pods).sum();
    let bootstrap_bound = cluster
        .pods
        .iter()
        .filter(|p| p.node_name.is_some() && !matches!(p.phase, Some(PodPhase::Succeeded | PodPhase::Failed)))
        .filter(|p| !cluster.event_only_pods.contains(&format!("{}/{}", p.namespace, p.name)))
        .count();
    assert!(bootstrap_bound > 0, "some bootstrap pods are still bound at the failure");
    assert_eq!(cluster.event_only_pods.len(), bound - bootstrap_bound, "{:?}", cluster.event_only_pods);
    assert!(cluster.event_only_pods.len() > 40, "{}", cluster.event_only_pods.len());
    assert!(cluster.requests_unknown.is_empty(), "{:?}", cluster.requests_unknown);
    let plex = format!("media/{}", facts.plex.name);
    assert!(cluster.event_only_pods.contains(&plex));

    let r = why_pending(&store, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    let s = r.state.as_ref().expect("state");
    for u in &facts.usage_at_failure {
        let n = s.nodes.iter().find(|n| n.name == u.node).expect("node");
        let cpu = n.resources.iter().find(|x| x.resource == "cpu").expect("cpu");
        assert_eq!(cpu.requested, u.requested_cpu_millis, "{} cpu rebuilt from events", u.node);
        assert_eq!(n.pods, u.pods, "{} pods rebuilt from events", u.node);
        assert!(n.estimated, "{}: numbers from events are marked estimated", u.node);
    }
    let sf = s.shortfalls.first().expect("shortfall");
    assert_eq!((sf.node.as_str(), sf.free, sf.short), ("node-1", 58, 42));
    assert_eq!(s.left, ["node-1"], "plex (known only from its Scheduled event) anchors the pod affinity");
    assert_eq!(s.matches_event, Some(true));
    assert!(r.notes.iter().any(|n| n.contains("known only from events")), "{:?}", r.notes);
}

/// The contract of `first_seen_late` (schema v14, queries/schema/v14.sql),
/// test-only SQL on the raw table: (late first versions, those of them not
/// flagged, flagged versions that are no longer first).
fn first_seen_late_counts(store: &kdrift_store::Store) -> (i64, i64, i64) {
    store
        .conn()
        .query_row(
            "SELECT count(*) FILTER (WHERE late), count(*) FILTER (WHERE late AND NOT COALESCE(first_seen_late, false)), \
                    count(*) FILTER (WHERE first_seen_late AND NOT first_version) \
             FROM (SELECT *, first_version AND (created_at IS NULL OR observed_at - INTERVAL 1 HOUR > created_at) AS late \
                   FROM pod_versions)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("first_seen_late counts")
}

/// Estimated pods (stored at the instant, first observed after it) per
/// instant, from the checkpoints and `requested_extras_at`.
fn estimated_pods(store: &kdrift_store::Store, instants: &[chrono::DateTime<chrono::Utc>]) -> Vec<u64> {
    let amounts = kdrift_analyze::amounts_at(store, instants).expect("amounts_at");
    amounts.iter().map(|a| a.estimated_pods).collect()
}

#[test]
fn pods_first_observed_hours_after_their_creation_are_estimated_before_it_batch_by_batch_and_after_migration_14() {
    // The demo history in seven runs, the later part first: a pod whose
    // later versions arrive first is first observed late until its older
    // versions arrive (its flag then stays, no longer first).
    let scenario = generate(&ScenarioConfig { seed: 9, scale: 1 });
    let start = scenario.facts.start;
    let mut parts: Vec<Vec<_>> = scenario.records.chunks(scenario.records.len() / 7 + 1).map(<[_]>::to_vec).collect();
    parts.rotate_left(4);
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("late.duckdb");
    let store = kdrift_store::Store::open(&path).expect("create");
    for (i, part) in parts.into_iter().enumerate() {
        let location = format!("demo:part={i}");
        ingest_records(&store, "demo", &location, part.into_iter().map(|r| to_record(r, &location))).expect("ingest");
    }
    let (late, unflagged, stale) = first_seen_late_counts(&store);
    assert!(late > 20, "{late} pods first observed over an hour after their creation");
    assert_eq!(unflagged, 0, "every late first version is flagged, batch by batch");
    assert!(stale > 0, "the out-of-order parts leave flags on versions no longer first");
    // Instants more than an hour before those pods were first observed: the
    // flag finds them (the hour after the instant does not hold them).
    let instants: Vec<_> = [-48, -3, -2, 0, 5, 30].iter().map(|h| start + chrono::Duration::hours(*h)).collect();
    let before = estimated_pods(&store, &instants);
    assert!(before[1] > 20 && before[0] > 0, "estimated pods at {instants:?}: {before:?}");
    assert!(kdrift_tests::assert_amounts_agree(&store, 40) > 40);
    drop(store);
    // Test fixture: the store as schema 13 left it.
    kdrift_store::test_support::RawConnection::open(&path)
        .expect("open")
        .execute_batch(
            "ALTER TABLE pod_versions DROP COLUMN first_seen_late; \
             UPDATE kdrift_meta SET value = '13' WHERE key = 'schema_version';",
        )
        .expect("downgrade");
    let store = kdrift_store::Store::open(&path).expect("migrate");
    assert_eq!(first_seen_late_counts(&store), (late, 0, 0), "migration 14 flags exactly the late first versions");
    assert_eq!(estimated_pods(&store, &instants), before, "the same pods estimated");
    assert!(kdrift_tests::assert_amounts_agree(&store, 40) > 40);
}
