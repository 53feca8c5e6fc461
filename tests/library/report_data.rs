//! `kdrift report`'s data on the demo scenario: the store's span, the
//! requested % series sampled where it changes (node-1 jumps after drain #2
//! and stays at 97.1 % cpu until the failure), the nodes, and the Pending
//! chain of the backup pod; and on a store of every real fixture.

use chrono::{DateTime, Duration, Utc};
use kdrift_analyze::{amounts_at_by, PodAmountsRead, ONE_QUERY_FROM};
use kdrift_analyze::{change_instants, requested_series, requested_series_within};
use kdrift_analyze::{report_data, time_span, ReportOptions};
use kdrift_ingest::ingest_scenario;
use kdrift_ingest::{ingest_files, ingest_records, NoProgress};
use kdrift_scenario::{generate, ScenarioConfig};
use kdrift_tests::{real_fixtures_or_skip, temp_store, tsv_node_events};

fn at(series: &kdrift_analyze::RequestedSeries, node: &str, t: DateTime<Utc>) -> Option<f64> {
    // The value that holds at t: the last sample at or before it.
    let points = series.percent_of(node, "cpu");
    points.iter().rev().find(|(s, _)| *s <= t).map(|(_, p)| *p)
}

#[test]
fn demo_report_data_has_the_drains_the_series_and_the_chain() {
    let scenario = generate(&ScenarioConfig { seed: 5, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 5).expect("ingest");

    let (first, last) = time_span(&store).expect("span").expect("non-empty store");
    assert!(first <= facts.drains[0].started_at, "{first} starts before drain #1");
    assert!(last >= facts.failure_at, "{last} ends after the failure");

    let data = report_data(&store, None, None, &ReportOptions::default()).expect("report");
    assert_eq!((data.from, data.to), (Some(first), Some(last)));
    assert_eq!(data.nodes, ["node-1", "node-2", "node-3", "node-4", "node-5"]);
    assert_eq!(data.timeline.operations.len(), 2);
    assert_eq!(data.counts.nodes, 5);

    // Series: a point at the range's start and at every change (issue 38
    // item 5: it was the last change of each of 399 slices, 16 samples of
    // 1804 instants, most of them Pod versions that changed no request).
    let s = &data.requested;
    let changes = change_instants(&store, first, last).expect("changes");
    assert_eq!((s.coalesced, s.changes), (false, changes.len()));
    assert_eq!(s.changes, 732, "instants at which a request, a node or a binding changed");
    let instants: Vec<DateTime<Utc>> = s.samples.iter().map(|x| x.at).collect();
    assert_eq!(instants[0], first);
    assert_eq!(instants[1..], changes[..], "a sample at every change");
    // node-1: 1942m of 2000m (97.1 %) from drain #2's burst to the failure;
    // about half that before drain #2.
    let d2 = &facts.drains[1];
    let at_failure = at(s, "node-1", facts.failure_at).expect("node-1 at the failure");
    assert_eq!(format!("{at_failure:.1}"), "97.1");
    let before = at(s, "node-1", d2.started_at - Duration::minutes(1)).expect("before drain #2");
    assert!(before < 60.0, "node-1 before drain #2: {before:.1} %");
    assert!(s.percent_of("node-5", "memory").iter().all(|(_, p)| (0.0..=100.0).contains(p)));

    // Chains: the backup pod, node-1 left, 58m free.
    assert_eq!(data.pending.len(), 1);
    assert_eq!(data.chains.len(), 1);
    let chain = &data.chains[0];
    assert_eq!(chain.name, facts.pending_pod.name);
    let state = chain.state.as_ref().expect("state at the failure");
    assert_eq!(state.left, ["node-1"]);
    assert_eq!(state.shortfalls[0].free, 58);

    // A window: only drain #2, the series starts at --since.
    let since = d2.started_at - Duration::hours(1);
    let windowed = report_data(&store, Some(since), None, &ReportOptions::default()).expect("report");
    assert_eq!(windowed.timeline.operations.len(), 1);
    assert_eq!(windowed.timeline.operations[0].number, 2);
    assert_eq!(windowed.requested.samples[0].at, since);
    // A range after the history is said to be (it rendered a report of nothing without a word).
    let after = report_data(&store, Some(last + Duration::days(1)), None, &ReportOptions::default()).expect("report");
    let outside = |notes: &[String]| notes.iter().any(|n| n.contains("is outside the store's history"));
    assert!(outside(&after.notes) && after.outside_history, "{:?}", after.notes);
    // Nothing charted: it charted the last state at --since (5 nodes beside "nothing falls in it").
    assert_eq!((after.requested.samples.len(), after.nodes.len()), (0, 0));
    // Before it too (`from` and `to` are clamped to the history's first instant there).
    let before = report_data(&store, None, Some(first - Duration::days(1)), &ReportOptions::default()).expect("report");
    assert!(outside(&before.notes) && before.outside_history, "{:?}", before.notes);
    assert_eq!((before.requested.samples.len(), before.nodes.len()), (0, 0));
    assert!(!data.outside_history && !windowed.outside_history);
    assert!(!outside(&data.notes) && !outside(&windowed.notes), "{:?}", data.notes);

    // Coalesced: 10 samples at most, each the last change of its slice.
    let few = requested_series(&store, first, last, 10).expect("series");
    assert!(few.coalesced && few.samples.len() <= 10, "{}", few.samples.len());
    assert_eq!(few.samples.last().map(|x| x.at), changes.last().copied());
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn report_data_on_every_real_fixture() {
    let Some(real) = real_fixtures_or_skip("report_data_on_every_real_fixture") else { return };
    let (_dir, store) = temp_store();
    // Every file kdrift reads (the dumps; the other files are listed as
    // ignored), then the node-event TSV extractions as the events they are.
    let report = ingest_files(&store, std::slice::from_ref(&real), &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);
    for tsv in std::fs::read_dir(real.join("drains")).expect("drains").flatten() {
        let path = tsv.path();
        if path.extension().is_some_and(|e| e == "tsv") {
            let records = tsv_node_events(&path).expect("tsv");
            ingest_records(&store, "file", &path.display().to_string(), records).expect("ingest");
        }
    }
    let data = report_data(&store, None, None, &ReportOptions::default()).expect("report");
    assert!(data.store_first_at.is_some());
    assert!(!data.timeline.operations.is_empty(), "the k8s-ha outages");
    assert!(data.nodes.iter().any(|n| n == "k8s-master1"), "{:?}", data.nodes);
    assert!(data.nodes.iter().any(|n| n == "minikube"), "{:?}", data.nodes);
    assert!(!data.pending.is_empty(), "erwee402's Insufficient cpu pods");
    assert!(data.chains.len() <= 20);
}

/// New-user trial (session 29): the HTML report's "Requested % over time"
/// showed minikube at 38.8 % where `skew` says ≥ 38.8 % (the default
/// namespace's pods were not dumped); the series now carries the same
/// lower-bound note, and the demo's none.
#[test]
fn the_requested_series_says_when_its_values_are_lower_bounds() {
    let Some(real) = real_fixtures_or_skip("the_requested_series_says_when_its_values_are_lower_bounds") else {
        return;
    };
    let (_dir, store) = temp_store();
    let files: Vec<std::path::PathBuf> =
        ["default__events.json", "kube-system__events.json", "kube-system__pods.json", "nodes.json"]
            .iter()
            .map(|f| real.join("dumps").join(format!("erwee402__multi-k8s__{f}")))
            .collect();
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);
    let data = report_data(&store, None, None, &ReportOptions::default()).expect("report");
    let note = data.requested.lower_bound_note.as_deref().expect("a lower-bound note");
    assert!(
        note.starts_with("requested amounts are lower bounds (≥) on every node: events in the hour up to "),
        "{note}"
    );
    assert!(note.contains("of namespace default"), "{note}");
    let (_dir, demo) = temp_store();
    kdrift_ingest::ingest_scenario(
        &demo,
        kdrift_scenario::generate(&kdrift_scenario::ScenarioConfig { seed: 1, scale: 1 }),
        1,
    )
    .expect("demo");
    let data = report_data(&demo, None, None, &ReportOptions::default()).expect("report");
    assert_eq!(data.requested.lower_bound_note, None);
}

/// The hot-node cluster ([`kdrift_tests::hot_node`]): with its usage samples
/// the report charts each node's used % next to requested % (node-3's cpu
/// at 97.5 % from T0+1h to T0+3h while 50 % requested); without them,
/// nothing of usage is there.
#[test]
fn the_report_charts_used_percent_next_to_requested_only_when_the_store_has_usage_samples() {
    use kdrift_tests::hot_node::{self, at};
    let (_dir, store) = temp_store();
    hot_node::load_objects(&store);
    let options = ReportOptions { max_used_steps: 48, ..ReportOptions::default() };
    let without = report_data(&store, Some(at(0)), Some(at(4 * 3600)), &options).expect("report");
    assert_eq!(without.used, None);
    assert!(serde_json::to_value(&without).expect("json").get("used").is_none());

    hot_node::store_samples(&store);
    let data = report_data(&store, Some(at(0)), Some(at(4 * 3600)), &options).expect("report");
    let used = data.used.as_ref().expect("used % series");
    // 4 h in at most 48 points: 301 s steps.
    assert_eq!(used.step_seconds, 301);
    assert_eq!(used.nodes.keys().collect::<Vec<_>>(), ["node-1", "node-2", "node-3", "node-4"]);
    let node3 = used.percent_of("node-3", "cpu");
    let value_at = |t: DateTime<Utc>| node3.iter().rev().find(|(s, _)| *s <= t).map(|(_, p)| *p);
    assert_eq!(value_at(at(2 * 3600)), Some(97.5));
    assert_eq!(value_at(at(30 * 60)), Some(37.5));
    assert_eq!(value_at(at(4 * 3600)), Some(37.5));
    assert_eq!(used.percent_of("node-2", "memory").first().map(|p| p.1), Some(34.375));
    // Requested stays 50 % on node-3 the whole time.
    assert_eq!(at_percent(&data.requested, "node-3", at(2 * 3600)), Some(50.0));
    assert_eq!(without.requested, data.requested, "the requested series does not change");
}

fn at_percent(series: &kdrift_analyze::RequestedSeries, node: &str, t: DateTime<Utc>) -> Option<f64> {
    at(series, node, t)
}

/// New-user trial: a store holding nothing with a time (a real dump's
/// events List with `items: null`) gave the range 1970-01-01 → 1970-01-01 in the HTML and
/// `-o json`; it has none (`null`), and a range given stays as given.
#[test]
fn a_store_with_nothing_timed_has_no_range_and_a_given_one_stays() {
    let (_dir, store) = temp_store();
    let event = serde_json::json!({"apiVersion": "v1", "kind": "EventList", "items": null});
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("events.json");
    std::fs::write(&file, serde_json::to_string(&event).expect("json")).expect("write");
    ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!(time_span(&store).expect("span"), None);
    let data = report_data(&store, None, None, &ReportOptions::default()).expect("report");
    assert_eq!((data.from, data.to), (None, None));
    let json = serde_json::to_value(&data).expect("json");
    assert_eq!((&json["from"], &json["to"]), (&serde_json::Value::Null, &serde_json::Value::Null));
    let until: DateTime<Utc> = "2026-11-28T05:00:00Z".parse().expect("time");
    let data = report_data(&store, None, Some(until), &ReportOptions::default()).expect("report");
    assert_eq!((data.from, data.to), (None, Some(until)));
}

/// The report's requested % series reads the pods' amounts of its (up to
/// 5,000) instants in one query (`requested_at_instants`,
/// `requested_extras_at_instants`): 733 instants of the demo were ~1,466
/// queries, most of `kdrift report`'s time. Same numbers as the two
/// queries per instant: before the first checkpoint, at it, on the hour,
/// around the failure (node-1 at 1942m of its 2000m cpu), after the
/// history, and an instant given twice; and at every change the series samples.
#[test]
fn the_amounts_read_in_one_query_are_those_of_the_per_instant_queries() {
    let scenario = generate(&ScenarioConfig { seed: 1, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 1).expect("ingest");
    let (first, last) = time_span(&store).expect("span").expect("non-empty store");
    let failure = facts.failure_at + Duration::minutes(10);
    let instants = [
        first - Duration::hours(2),
        first,
        first + Duration::hours(1),
        facts.drains[0].started_at + Duration::seconds(30),
        failure,
        failure - Duration::microseconds(1),
        last,
        last + Duration::hours(2),
        failure,
    ];
    let one = amounts_at_by(&store, &instants, PodAmountsRead::OneQuery).expect("one query");
    let each = amounts_at_by(&store, &instants, PodAmountsRead::PerInstant).expect("per instant");
    let cpu = |a: &kdrift_analyze::AmountsAt, node: &str| a.usage_of(node).requested.get("cpu");
    assert_eq!(cpu(&one[4], "node-1"), 1942, "node-1 at the failure (the demo's story)");
    assert_eq!(cpu(&one[8], "node-1"), 1942, "the repeated instant");
    assert!(one[6].usage.values().map(|u| u.requested.get("pods")).sum::<i64>() > 20);
    for (i, (a, b)) in each.iter().zip(&one).enumerate() {
        assert_eq!(a.at, Some(instants[i]));
        assert_eq!(a.usage, b.usage, "instant {i}: {}", instants[i]);
        assert_eq!((a.estimated_pods, &a.unreadable), (b.estimated_pods, &b.unreadable), "instant {i}");
    }
    // Every instant of the report's series (733 on this demo).
    let changes = change_instants(&store, first, last).expect("changes");
    let mut sampled = vec![first];
    sampled.extend(changes);
    assert!(sampled.len() >= ONE_QUERY_FROM, "{} instants: read in one query", sampled.len());
    kdrift_tests::assert_pod_amounts_reads_agree(&store, &sampled);
}

/// The report lists at most `max_listed` Pending pods, the longest-pending,
/// and counts every one whose wait overlaps the range (kdrift issue 39: a
/// store with 200,000 of them); a chain only for a listed pod.
#[test]
fn the_pending_list_is_cut_to_the_longest_pending_and_counts_the_rest() {
    let (dir, store) = temp_store();
    let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").expect("t").with_timezone(&Utc);
    // Pod p{i} waited i minutes from 00:00.
    let lines: Vec<String> = (0..30)
        .map(|i| {
            serde_json::json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("p{i}.1"), "namespace": "d"},
                "involvedObject": {"kind": "Pod", "name": format!("p{i}"), "namespace": "d", "uid": format!("u{i}")},
                "reason": "FailedScheduling", "message": "0/2 nodes are available: 2 Insufficient cpu.",
                "count": 1, "firstTimestamp": start.to_rfc3339(),
                "lastTimestamp": (start + Duration::minutes(i)).to_rfc3339()})
            .to_string()
        })
        .collect();
    let file = dir.path().join("events.ndjson");
    std::fs::write(&file, lines.join("\n")).expect("write");
    ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    let options = ReportOptions { max_listed: 10, max_chains: 3, ..ReportOptions::default() };
    let data = report_data(&store, None, None, &options).expect("report");
    let listed: Vec<&str> = data.pending.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(listed, ["p29", "p28", "p27", "p26", "p25", "p24", "p23", "p22", "p21", "p20"]);
    assert_eq!(data.pending_total, 30);
    let chains: Vec<&str> = data.chains.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(chains, ["p29", "p28", "p27"]);
    // From 00:25: only the pods still waiting then (p25..p29) count.
    let late = report_data(&store, Some(start + Duration::minutes(25)), None, &options).expect("report");
    assert_eq!((late.pending_total, late.pending.len()), (5, 5));
    // Nothing cut: every pod listed, as `why-pending --all` lists them.
    let all = report_data(&store, None, None, &ReportOptions::default()).expect("report");
    assert_eq!((all.pending_total, all.pending.len()), (30, 30));
    assert_eq!(all.pending, kdrift_analyze::pending_pods(&store).expect("all"));
}

#[test]
fn the_report_bounds_the_series_in_samples_times_nodes() {
    // kdrift issue 39: 5,000 samples × 5,000 nodes ran DuckDB out of memory.
    let scenario = generate(&ScenarioConfig { seed: 5, scale: 1 });
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 5).expect("ingest");
    let (first, last) = time_span(&store).expect("span").expect("non-empty store");
    let nodes = usize::try_from(store.counts().expect("counts").nodes).expect("count");
    assert!(nodes > 0);

    // Under the bound: the same series as without one, not said to be bounded.
    let (within, bounded) = requested_series_within(&store, first, last, 5000, 5000).expect("series");
    assert!(!bounded);
    assert_eq!(within, requested_series(&store, first, last, 5000).expect("series"));
    let all = within.samples.len();
    assert!(all > 12, "{all} samples");

    // Over it: 12 slices, each sample its slice's last change.
    let options = ReportOptions { max_series_cells: nodes * 12, ..ReportOptions::default() };
    assert_eq!(options.samples_for(nodes), 12);
    let data = report_data(&store, None, None, &options).expect("report");
    let taken = data.requested.samples.len();
    assert!((2..=12).contains(&taken) && data.requested.coalesced, "{taken} samples of {all}");
    let said = format!("(at most 12 samples of the store's {nodes} nodes)");
    assert!(data.notes.iter().any(|n| n.contains(&said)), "{:?}", data.notes);

    // The default bound leaves the demo's series whole.
    let whole = report_data(&store, None, None, &ReportOptions::default()).expect("report");
    assert_eq!(whole.requested.samples.len(), all);
    assert!(!whole.notes.iter().any(|n| n.contains("samples of the store's")), "{:?}", whole.notes);
}
