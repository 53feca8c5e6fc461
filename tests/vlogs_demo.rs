//! Done-when of the VictoriaLogs source: the demo scenario shipped into the
//! fake VictoriaLogs — every event version up to 30 minutes into the
//! pending window in each layout, pods and nodes through the OpenTelemetry
//! k8sobjects layout or, for the event-only layouts, from a dump file —
//! gives the same `why-pending` JSON for the CronJob pod as the dump-file
//! path: identical for raw and msg-json; for otel-k8sevents and kent
//! identical except the documented values those layouts cannot carry (see
//! [`expected`]); for otel-k8sobjects identical except where its Node
//! history is richer than a dump's last version (see [`with_node_history`]).

use chrono::Duration;
use kdrift_analyze::why_pending;
use kdrift_ingest::scenario::{core_v1_view, generate, ObjectChange, Scenario, ScenarioConfig};
use kdrift_ingest::victorialogs::{Auth, Layout};
use kdrift_ingest::{ingest_files, NoProgress, Store};
use kdrift_tests::fake_vlogs::FakeVlogs;
use kdrift_tests::shippers::{ship, Seen, Sighting};
use kdrift_tests::temp_store;
use kdrift_tests::vl_pull::{pull_blocking, test_options};
use serde_json::Value;

/// What a watch of `kinds` saw up to `until`, events in their core/v1 form.
fn sightings(scenario: &Scenario, until: chrono::DateTime<chrono::Utc>, kinds: &[&str]) -> Vec<Sighting> {
    scenario
        .records
        .iter()
        .filter(|r| r.observed_at <= until)
        .filter(|r| kinds.contains(&r.object.get("kind").and_then(Value::as_str).unwrap_or("")))
        .map(|r| Sighting {
            observed_at: r.observed_at,
            seen: match r.change {
                ObjectChange::Added => Seen::Added,
                ObjectChange::Modified => Seen::Modified,
                ObjectChange::Deleted => Seen::Deleted,
            },
            object: core_v1_view(&r.object),
        })
        .collect()
}

fn report(store: &Store, ns: &str, name: &str) -> Value {
    let r = why_pending(store, ns, name).expect("why-pending").expect("a report");
    serde_json::to_value(r).expect("JSON")
}

/// The reference answer as `layout` can give it: the values its module
/// documents as not carried, set to what the store derives without them.
/// Everything else — reasons, constraints, the node left, the shortfall,
/// next steps — must be identical.
fn expected(layout: Layout, reference: &Value) -> Value {
    let mut e = reference.clone();
    let first = reference["history"]["first_failure"].clone();
    let last = reference["history"]["last_failure"].clone();
    match layout {
        // No series: the new-API FailedScheduling event counts once, at its first occurrence,
        // and the state is evaluated at that failure; no reporting component.
        Layout::OtelK8sevents => {
            e["history"]["last_failure"] = first.clone();
            e["history"]["occurrences"] = 1.into();
            e["history"]["pending_seconds"] = 0.into();
            for r in e["reasons"].as_array_mut().into_iter().flatten() {
                r["occurrences"] = 1.into();
            }
            e["failures"][0]["count"] = 1.into();
            e["failures"][0]["last_time"] = first.clone();
            e["failures"][0]["reporting_component"] = "".into();
            e["state"]["at"] = first;
        }
        // No involved uid, no first time: the event's first time is its last.
        Layout::Kent => {
            e["uid"] = "".into();
            e["history"]["first_failure"] = last.clone();
            e["history"]["pending_seconds"] = 0.into();
            e["failures"][0]["first_time"] = last;
        }
        Layout::Raw | Layout::MsgJson | Layout::OtelK8sobjects => {}
    }
    e
}

/// The scenario, the pull range, and the dump-file path's answer (computed once per test binary).
struct Reference {
    scenario: Scenario,
    at: chrono::DateTime<chrono::Utc>,
    answer: Value,
}

fn reference() -> &'static Reference {
    static REFERENCE: std::sync::OnceLock<Reference> = std::sync::OnceLock::new();
    REFERENCE.get_or_init(|| {
        let scenario = generate(&ScenarioConfig { seed: 5, scale: 1 });
        let at = scenario.facts.failure_at + Duration::minutes(30);
        let dir = tempfile::tempdir().expect("tmp");
        let dumps = write_dumps(&scenario, at, dir.path(), &["events.json", "pods.json", "nodes.json"]);
        let (_d0, store) = temp_store();
        assert_eq!(ingest_files(&store, &dumps, &mut NoProgress).expect("ingest").error_count(), 0);
        let pod = &scenario.facts.pending_pod;
        let answer = report(&store, &pod.namespace, &pod.name);
        Reference { scenario, at, answer }
    })
}

/// `kubectl get … -o json` dumps of the scenario at `at`, the named ones only.
fn write_dumps(
    scenario: &Scenario,
    at: chrono::DateTime<chrono::Utc>,
    dir: &std::path::Path,
    names: &[&str],
) -> Vec<std::path::PathBuf> {
    let mut paths = Vec::new();
    for (name, list) in scenario.to_kubectl_lists_at(at) {
        if names.contains(&name.as_str()) {
            let p = dir.join(&name);
            std::fs::write(&p, serde_json::to_vec(&list).expect("json")).expect("write");
            paths.push(p);
        }
    }
    paths
}

fn check(layout: Layout) {
    let Reference { scenario, at, answer: reference } = reference();
    let (at, facts) = (*at, &scenario.facts);
    let dir = tempfile::tempdir().expect("tmp");
    let objects = write_dumps(scenario, at, dir.path(), &["pods.json", "nodes.json"]);
    let (ns, pod) = (&facts.pending_pod.namespace, &facts.pending_pod.name);
    let options = test_options(facts.start - Duration::hours(1), at + Duration::minutes(1), 2000);
    {
        let vl = FakeVlogs::start();
        let kinds: &[&str] = if layout == Layout::OtelK8sobjects { &["Event", "Pod", "Node"] } else { &["Event"] };
        ship(&vl.url(), layout, &sightings(scenario, at, kinds), None);
        let (_d, store) = temp_store();
        if layout != Layout::OtelK8sobjects {
            assert_eq!(ingest_files(&store, &objects, &mut NoProgress).expect("objects").error_count(), 0);
        }
        let pulled = pull_blocking(&store, &vl.url(), Auth::default(), &options).expect("pull");
        assert_eq!(pulled.layout, Some(layout));
        assert_eq!(pulled.error_count(), 0, "{layout}");
        let mut got = report(&store, ns, pod);
        assert_eq!(got["state"]["shortfalls"][0]["short"], 42, "{layout}: node-1 is 42m short");
        if layout == Layout::OtelK8sobjects {
            got = with_node_history(got, reference, facts);
        }
        assert_eq!(got, expected(layout, reference), "{layout}: why-pending {ns}/{pod}");
    }
}

/// Every string value under `key` anywhere in `v`, with a mutable handle.
fn values_of<'a>(v: &'a mut Value, key: &str, out: &mut Vec<&'a mut Value>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == key {
                    out.push(x);
                } else {
                    values_of(x, key, out);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| values_of(x, key, out)),
        _ => {}
    }
}

/// otel-k8sobjects ships every Node version, where the dump holds only the
/// last one and the chain falls back on events: drain #2 then starts at
/// node-1's cordon (not at the NodeNotSchedulable event 10 s later), node-1
/// was back at its Ready condition's instant, and node-2..4 are seen
/// cordoned when plex was bound to node-1. Asserts those values, then puts
/// the dump path's values in their place so the rest compares whole.
fn with_node_history(mut got: Value, reference: &Value, facts: &kdrift_ingest::scenario::ScenarioFacts) -> Value {
    let mut reference = reference.clone();
    let cordon = facts.drains[1].windows[0].cordoned_at;
    for key in ["operation_started_at", "back_at", "unavailable_at_binding", "why"] {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        values_of(&mut got["why_full"], key, &mut ours);
        values_of(&mut reference["why_full"], key, &mut theirs);
        assert_eq!(ours.len(), theirs.len(), "{key}");
        for (o, t) in ours.into_iter().zip(theirs) {
            match key {
                "operation_started_at" => {
                    let at = o.as_str().and_then(|s| s.parse::<chrono::DateTime<chrono::Utc>>().ok());
                    assert_eq!(at, Some(cordon), "drain #2 starts at node-1's cordon");
                }
                "back_at" => assert!(o.as_str().is_some_and(|s| s.starts_with("2026-11-28T02:02:19")), "{o}"),
                "unavailable_at_binding" => {
                    assert_eq!(*o, serde_json::json!(["node-2 (cordoned)", "node-3 (cordoned)", "node-4 (cordoned)"]))
                }
                _ => assert!(o.to_string().contains("node-1 was the only schedulable node offering"), "{o}"),
            }
            *o = t.clone();
        }
    }
    got
}

#[test]
fn raw_layout_gives_the_dump_files_answer() {
    check(Layout::Raw);
}

#[test]
fn msg_json_layout_gives_the_dump_files_answer() {
    check(Layout::MsgJson);
}

#[test]
fn otel_k8sevents_layout_gives_the_dump_files_answer_less_what_it_cannot_carry() {
    check(Layout::OtelK8sevents);
}

#[test]
fn otel_k8sobjects_events_pods_and_nodes_give_the_dump_files_answer() {
    check(Layout::OtelK8sobjects);
}

#[test]
fn kent_layout_gives_the_dump_files_answer_less_what_it_cannot_carry() {
    check(Layout::Kent);
}
