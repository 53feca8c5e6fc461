//! The real jgyy dump (488 core/v1 events, minikube 2021) shipped through
//! every layout into the fake VictoriaLogs and pulled back: the layout is
//! auto-detected, the store's events equal those of the dump-file path —
//! column by column, except the columns a layout cannot carry, which are
//! asserted to have the value that layout explains (never skipped) — and
//! pulling again adds nothing.

use std::collections::BTreeMap;

use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_ingest::{Auth, Layout};
use kdrift_tests::fake_vlogs::FakeVlogs;
use kdrift_tests::shippers::{ship, sightings_of_list};
use kdrift_tests::vl_pull::{pull_blocking, store_events, test_options, utc, EventRow};
use kdrift_tests::{real_fixtures_or_skip, temp_store};
use serde_json::Value;

const JGYY: &str = "dumps/jgyy__ckad__default__events.yaml";

/// What a layout gives for one column of one reference event.
fn expected(layout: Layout, column: &str, reference: &EventRow, dump_event: &Value) -> Value {
    let same = reference[column].clone();
    match (layout, column) {
        // k8s_events: no source component / reportingComponent, no firstTimestamp
        // (first = the event's creation time, seconds) unless `_time` was an eventTime.
        (Layout::OtelK8sevents, "reporting_component") => Value::Null,
        (Layout::OtelK8sevents, "first_time") => {
            let event_time = dump_event.get("eventTime").and_then(Value::as_str);
            if event_time.is_some_and(|t| t.contains('.')) {
                same
            } else {
                let created = dump_event.pointer("/metadata/creationTimestamp").and_then(Value::as_str);
                Value::String(created.unwrap_or_default().to_string())
            }
        }
        _ => same,
    }
}

fn compare(
    layout: Layout,
    reference: &BTreeMap<String, EventRow>,
    pulled: &BTreeMap<String, EventRow>,
    dump: &[Value],
) {
    assert_eq!(pulled.len(), reference.len(), "{layout}: number of events");
    let by_key: BTreeMap<String, &Value> = dump
        .iter()
        .map(|e| {
            let ns = e.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default();
            let name = e.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
            (format!("{ns}/{name}"), e)
        })
        .collect();
    for (key, want) in reference {
        let got = pulled.get(key).unwrap_or_else(|| panic!("{layout}: event {key} missing"));
        for column in want.keys() {
            let expect = expected(layout, column, want, by_key[key]);
            assert_eq!(got[column], expect, "{layout}: event {key}, column {column}");
        }
    }
}

/// KENT carries no event name: events are compared by client-go's
/// correlation key, each keeping its highest count (ties: the later one),
/// with the columns KENT cannot carry asserted empty and first = last time.
fn compare_kent(reference: &BTreeMap<String, EventRow>, pulled: &BTreeMap<String, EventRow>) {
    let key = |r: &EventRow| {
        ["reporting_component", "involved_kind", "involved_namespace", "involved_name", "type", "reason", "message"]
            .map(|c| r[c].to_string())
            .join("|")
    };
    let mut want: BTreeMap<String, &EventRow> = BTreeMap::new();
    for r in reference.values() {
        let better = |old: &&EventRow| {
            (old["count"].as_i64(), old["last_time"].as_str()) < (r["count"].as_i64(), r["last_time"].as_str())
        };
        if want.get(&key(r)).is_none_or(better) {
            want.insert(key(r), r);
        }
    }
    let got: BTreeMap<String, &EventRow> = pulled.values().map(|r| (key(r), r)).collect();
    assert_eq!(got.len(), want.len(), "kent: one event per correlation key");
    assert!(want.len() < reference.len(), "jgyy has repeated events (two kubelet starts) that KENT merges");
    for (k, w) in &want {
        let g = got.get(k).unwrap_or_else(|| panic!("kent: {k} missing"));
        for (column, value) in w.iter() {
            let expect = match column.as_str() {
                "event_key" | "name" | "uid" => continue,
                "involved_uid" | "source_host" | "action" => Value::Null,
                "first_time" => w["last_time"].clone(),
                _ => value.clone(),
            };
            assert_eq!(g[column], expect, "kent: {k}, column {column}");
        }
        assert!(g["name"].as_str().is_some_and(|n| n.contains(".kent-")), "{:?}", g["name"]);
    }
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn jgyy_events_through_every_layout_come_back_identical() {
    let Some(real) = real_fixtures_or_skip("jgyy_events_through_every_layout_come_back_identical") else { return };
    let path = real.join(JGYY);
    let (_d0, reference_store) = temp_store();
    let r = ingest_files(&reference_store, std::slice::from_ref(&path), &mut NoProgress).expect("dump ingest");
    assert_eq!(r.counts.records, 488);
    let reference = store_events(&reference_store);
    assert_eq!(reference.len(), 488);

    let text = std::fs::read_to_string(&path).expect("read jgyy");
    let list: Value = serde_yaml::from_str(&text).expect("jgyy YAML");
    let sightings = sightings_of_list(&list);
    let dump: Vec<Value> = list["items"].as_array().cloned().unwrap_or_default();
    let options = test_options(utc("2021-06-19T00:00:00Z"), utc("2021-06-22T00:00:00Z"), 150);

    for layout in Layout::ALL {
        let vl = FakeVlogs::start();
        assert_eq!(ship(&vl.url(), layout, &sightings, None), 488, "{layout}: shipped");
        let (_d, store) = temp_store();
        let first =
            pull_blocking(&store, &vl.url(), Auth::default(), &options).unwrap_or_else(|e| panic!("{layout}: {e:#?}"));
        assert_eq!((first.layout, first.layout_source), (Some(layout), "detected"), "auto-detection");
        assert!(first.windows.len() >= 3, "{layout}: {} windows", first.windows.len());
        assert_eq!(first.rows(), 488, "{layout}: rows");
        assert_eq!(
            first.error_count(),
            0,
            "{layout}: {:?}",
            first.windows.iter().flat_map(|w| &w.errors).collect::<Vec<_>>()
        );
        let pulled = store_events(&store);
        if layout == Layout::Kent {
            compare_kent(&reference, &pulled);
        } else {
            compare(layout, &reference, &pulled, &dump);
        }

        let again = pull_blocking(&store, &vl.url(), Auth::default(), &options).expect("second pull");
        assert_eq!(again.added(), 0, "{layout}: a re-run of the same pull adds nothing");
        assert_eq!(again.duplicates(), 488, "{layout}");
        assert_eq!(store_events(&store), pulled, "{layout}: the events are unchanged");
    }
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn a_forced_layout_that_does_not_match_reports_every_row() {
    let Some(real) = real_fixtures_or_skip("a_forced_layout_that_does_not_match_reports_every_row") else { return };
    let list: Value =
        serde_yaml::from_str(&std::fs::read_to_string(real.join(JGYY)).expect("read")).expect("jgyy YAML");
    let vl = FakeVlogs::start();
    ship(&vl.url(), Layout::Kent, &sightings_of_list(&list), None);
    let (_d, store) = temp_store();
    let mut options = test_options(utc("2021-06-19T00:00:00Z"), utc("2021-06-22T00:00:00Z"), 1000);
    // The raw layout's filter selects no KENT row: nothing to store, nothing wrong.
    options.layout = Some(Layout::Raw);
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &options).expect("pull");
    assert_eq!((r.layout_source, r.rows()), ("forced", 0));
    // Without the layout filter (msg-json's matches nothing either), detection says what it saw.
    let vl2 = FakeVlogs::start();
    let (_d2, store2) = temp_store();
    options.layout = None;
    let err = pull_blocking(&store2, &vl2.url(), Auth::default(), &options).expect_err("empty server");
    assert!(
        err.to_string().contains(": no rows in [2021-06-19T00:00:00Z, 2021-06-22T00:00:00Z), so no layout"),
        "{err}"
    );
    assert!(err.committed.windows.is_empty());
}
