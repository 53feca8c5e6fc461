//! Pulls from the real VictoriaLogs server (`../shared/tools`, started by
//! [`kdrift_tests::real_vlogs`]): the demo scenario's events only, shipped
//! in the raw and msg-json layouts.
//! - Pods placed from their Scheduled events count on their node the same
//!   whatever the pull's windows or `--resume` runs (scheduled_coverage's
//!   source is the pull, not the window).
//! - A `--filter` matching nothing says so, naming the filter and the
//!   filter the layout needs, instead of blaming the range.

use chrono::{DateTime, Duration, Utc};
use kdrift_analyze::ClusterAt;
use kdrift_ingest::{Auth, Layout};
use kdrift_scenario::{core_v1_view, generate, Scenario, ScenarioConfig};
use kdrift_store::Store;
use kdrift_tests::real_vlogs::RealVlogs;
use kdrift_tests::shippers::{ship, Seen, Sighting};
use kdrift_tests::temp_store;
use kdrift_tests::vl_pull::{pull_blocking, test_options};
use serde_json::Value;

/// Every event version of the scenario, as a watch saw it.
fn events(scenario: &Scenario) -> Vec<Sighting> {
    scenario
        .records
        .iter()
        .filter(|r| r.object.get("kind").and_then(Value::as_str) == Some("Event"))
        .map(|r| Sighting {
            observed_at: r.observed_at,
            seen: match r.change {
                kdrift_scenario::ObjectChange::Added => Seen::Added,
                kdrift_scenario::ObjectChange::Modified => Seen::Modified,
                kdrift_scenario::ObjectChange::Deleted => Seen::Deleted,
            },
            object: core_v1_view(&r.object),
        })
        .collect()
}

/// The demo scenario's events in VictoriaLogs, in `layout`.
fn server_with_events(test: &str, layout: Layout) -> Option<(RealVlogs, Scenario)> {
    let vl = RealVlogs::start_or_skip(test)?;
    let scenario = generate(&ScenarioConfig { seed: 5, scale: 1 });
    assert!(ship(&vl.url(), layout, &events(&scenario), None) > 1000);
    vl.flush();
    Some((vl, scenario))
}

/// Pods on `node` at `at`.
fn pods_on(store: &Store, node: &str, at: DateTime<Utc>) -> usize {
    let state = ClusterAt::load(store, at).expect("state");
    state.pods.iter().filter(|p| p.node_name.as_deref() == Some(node)).count()
}

#[test]
fn pods_placed_from_scheduled_events_count_the_same_whatever_the_windows_or_resumed_pulls() {
    let Some((vl, scenario)) = server_with_events("pods_placed_from_scheduled_events_count_the_same", Layout::Raw)
    else {
        return;
    };
    let facts = &scenario.facts;
    let (start, end) = (facts.start - Duration::hours(1), facts.end + Duration::hours(1));
    // One window.
    let (_d1, one) = temp_store();
    let mut options = test_options(start, end, 100_000);
    options.max_window = Duration::days(30);
    let pulled = pull_blocking(&one, &vl.url(), Auth::default(), &options).expect("one window");
    assert_eq!(pulled.windows.len(), 1);
    let rows = pulled.rows();
    // Many windows: at most 100 rows each.
    let (_d2, many) = temp_store();
    let pulled = pull_blocking(&many, &vl.url(), Auth::default(), &test_options(start, end, 100)).expect("windows");
    assert!(pulled.windows.len() >= 10, "{} windows", pulled.windows.len());
    assert_eq!(pulled.rows(), rows);
    // Two pulls back to back, the second with --resume, both windowed.
    let (_d3, resumed) = temp_store();
    let middle = facts.failure_at - Duration::hours(2);
    let first = pull_blocking(&resumed, &vl.url(), Auth::default(), &test_options(start, middle, 100)).expect("first");
    let mut options = test_options(start, end, 100);
    options.resume = true;
    let second = pull_blocking(&resumed, &vl.url(), Auth::default(), &options).expect("resumed");
    assert_eq!(second.resumed_from, Some(middle));
    assert_eq!(first.rows() + second.rows(), rows);

    // The trial's pulls: the README's range, the default windows (at most
    // a day each), from the 27th and from the 28th.
    let utc = kdrift_tests::vl_pull::utc;
    let at = utc("2026-11-28T05:15:00Z");
    let mut trial = Vec::new();
    for from in ["2026-11-27T00:00:00Z", "2026-11-28T00:00:00Z"] {
        let (_dir, store) = temp_store();
        let mut options = test_options(utc(from), utc("2026-11-29T00:00:00Z"), 100_000);
        options.max_window = kdrift_ingest::PullOptions::default().max_window;
        let pulled = pull_blocking(&store, &vl.url(), Auth::default(), &options).expect("pull");
        trial.push((from, pulled.windows.len(), pulled.rows(), pods_on(&store, "node-1", at)));
    }
    // Two windows from the 27th (a day each; it used to be three, cut
    // before the night without events), one from the 28th; 18 pods on
    // node-1 either way (it used to be 0 from the 27th: the 18 were
    // placed in a window whose last event was the day before).
    assert_eq!(trial, vec![("2026-11-27T00:00:00Z", 2, rows, 18), ("2026-11-28T00:00:00Z", 1, 950, 18)]);
    assert_eq!(
        (pods_on(&one, "node-1", at), pods_on(&many, "node-1", at), pods_on(&resumed, "node-1", at)),
        (18, 18, 18)
    );

    // At every quarter hour of the scenario, the same count from all three.
    let node = &facts.nodes[0];
    let mut at = facts.start;
    while at <= facts.end {
        let (a, b, c) = (pods_on(&one, node, at), pods_on(&many, node, at), pods_on(&resumed, node, at));
        assert_eq!((b, c), (a, a), "pods on {node} at {at}: one window {a}, windows {b}, resumed {c}");
        at += Duration::minutes(15);
    }
    // An hour (the event TTL) after the pull's last event, its event-only pods are gone.
    let after = facts.end + Duration::minutes(75);
    assert_eq!((pods_on(&one, node, after), pods_on(&many, node, after), pods_on(&resumed, node, after)), (0, 0, 0));
}

const README_FILTER: &str = "reason:in(FailedScheduling, Scheduled)";
const MSG_JSON_ADVICE: &str = "for msg-json, filter with words or phrases of _msg (its fields are inside _msg, so a \
                               field filter such as reason:… matches nothing), e.g. --filter '_msg:FailedScheduling \
                               or _msg:Scheduled'";

#[test]
fn the_readme_field_filter_on_msg_json_rows_says_it_matched_nothing_and_which_filter_works() {
    let Some((vl, scenario)) = server_with_events("the_readme_field_filter_on_msg_json_rows", Layout::MsgJson) else {
        return;
    };
    let utc = kdrift_tests::vl_pull::utc;
    let (start, end) = (utc("2026-11-27T00:00:00Z"), utc("2026-11-29T00:00:00Z"));
    let mut options = test_options(start, end, 100_000);
    options.filter = Some(README_FILTER.into());
    let url = vl.url();

    // Detected: the filter is blamed, not the range.
    let (_d, store) = temp_store();
    let failed = pull_blocking(&store, &url, Auth::default(), &options).expect_err("no layout under the filter");
    assert_eq!(
        failed.to_string(),
        format!(
            "{url}/select/logsql/field_names: --filter '{README_FILTER}' matched no row in [2026-11-27T00:00:00Z, \
             2026-11-29T00:00:00Z), so no layout can be detected (without it the rows there are of the msg-json \
             layout); {MSG_JSON_ADVICE}"
        )
    );

    // Forced: 0 rows, and a warning saying why.
    options.layout = Some(Layout::MsgJson);
    let pulled = pull_blocking(&store, &url, Auth::default(), &options).expect("forced");
    assert_eq!(pulled.rows(), 0);
    assert_eq!(
        pulled.warnings,
        vec![format!(
            "--filter '{README_FILTER}' matched no row in [2026-11-27T00:00:00Z, 2026-11-29T00:00:00Z), while \
             without it the range holds 1551 row(s) of the msg-json layout; {MSG_JSON_ADVICE}"
        )]
    );

    // The suggested filter keeps exactly the FailedScheduling and Scheduled versions (detected).
    options.layout = None;
    options.filter = Some("_msg:FailedScheduling or _msg:Scheduled".into());
    let wanted = events(&scenario)
        .iter()
        .filter(|s| matches!(s.object["reason"].as_str(), Some("FailedScheduling" | "Scheduled")))
        .count() as u64;
    let pulled = pull_blocking(&store, &url, Auth::default(), &options).expect("suggested filter");
    assert_eq!((pulled.layout, pulled.rows(), pulled.warnings.len()), (Some(Layout::MsgJson), wanted, 0));
    assert!(wanted > 100, "{wanted}");

    // Nothing in the range, with or without the filter: the range is blamed, the filter named.
    options.filter = Some(README_FILTER.into());
    options.start = Some(utc("2026-11-20T00:00:00Z"));
    options.end = Some(utc("2026-11-21T00:00:00Z"));
    let failed = pull_blocking(&store, &url, Auth::default(), &options).expect_err("nothing there");
    assert_eq!(
        failed.to_string(),
        format!(
            "{url}/select/logsql/field_names: no rows in [2026-11-20T00:00:00Z, 2026-11-21T00:00:00Z) under \
             --filter '{README_FILTER}', so no layout to detect; widen --start/--end (by default the last 7 days), \
             or check --account-id/--project-id"
        )
    );
}
