//! The scale generator at a small size: exact counts, order, and the story's parts.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::{KubectlDump, ScaleConfig, ScaleGen};
use crate::ScenarioRecord;

fn small() -> ScaleConfig {
    ScaleConfig { seed: 7, nodes: 40, pods: 1_200, events: 20_000, days: 3, failures: None }
}

fn text<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn generate(c: &ScaleConfig) -> (Vec<ScenarioRecord>, super::ScaleFacts) {
    let mut records = Vec::new();
    let facts = ScaleGen::new(c).run(&mut |r| records.push(r));
    (records, facts)
}

#[test]
fn the_event_budget_is_exact_and_the_stream_is_ordered() {
    let c = small();
    let (records, facts) = generate(&c);
    let events = records.iter().filter(|r| text(&r.object, "/kind") == "Event").count() as u64;
    assert_eq!((events, facts.events), (20_000, 20_000));
    assert_eq!(facts.objects + facts.events, records.len() as u64);
    let mut last_rv = 0u64;
    for w in records.windows(2) {
        assert!(w[0].observed_at <= w[1].observed_at, "out of order at {}", w[1].observed_at);
    }
    for r in &records {
        let rv: u64 = text(&r.object, "/metadata/resourceVersion").parse().expect("numeric resourceVersion");
        assert!(rv > last_rv);
        last_rv = rv;
    }
    assert!(facts.end > facts.start + chrono::Duration::days(2), "spans the days: ends {}", facts.end);
    assert!(facts.end <= facts.start + chrono::Duration::days(3) + chrono::Duration::hours(1));
}

#[test]
fn nodes_pods_drains_and_failures_are_all_there() {
    let c = small();
    let (records, facts) = generate(&c);
    let listed: Vec<&ScenarioRecord> = records.iter().take_while(|r| r.observed_at == facts.start).collect();
    let nodes: BTreeSet<&str> = listed
        .iter()
        .filter(|r| text(&r.object, "/kind") == "Node")
        .map(|r| text(&r.object, "/metadata/name"))
        .collect();
    let pods = listed.iter().filter(|r| text(&r.object, "/kind") == "Pod").count();
    assert_eq!((nodes.len(), pods), (40, 1_200));
    assert_eq!((facts.drained_nodes, facts.failed_pods), (10, 4));
    let mut reasons: HashMap<&str, usize> = HashMap::new();
    for r in &records {
        *reasons.entry(text(&r.object, "/reason")).or_default() += 1;
    }
    assert_eq!(reasons["NodeNotSchedulable"], 10);
    assert_eq!(reasons["NodeSchedulable"], 10);
    assert_eq!(reasons["Rebooted"], 10);
    assert_eq!(reasons["FailedScheduling"], 4 * 6, "six versions per failing pod");
    assert!(reasons["Killing"] as u64 > facts.evicted_pods, "evictions plus the churn's replacements");
    assert!(facts.evicted_pods >= 10 * 20, "about 30 pods per drained node: {}", facts.evicted_pods);
    // The last failing pod is named by the facts, with the cluster-wide message.
    let (ns, name) = facts.last_failed_pod.clone().expect("a failure");
    let note = records
        .iter()
        .find(|r| text(&r.object, "/reason") == "FailedScheduling" && text(&r.object, "/regarding/name") == name)
        .map(|r| text(&r.object, "/note").to_string())
        .expect("its FailedScheduling");
    assert_eq!(ns, "batch-jobs");
    assert!(note.starts_with("0/40 nodes are available: "), "{note}");
    assert!(note.contains("Insufficient cpu"), "{note}");
}

#[test]
fn the_same_seed_gives_the_same_history_and_the_end_state_lists_every_node() {
    let c = ScaleConfig { events: 3_000, ..small() };
    let (a, _) = generate(&c);
    let (b, _) = generate(&c);
    assert_eq!(a, b);
    let mut g = ScaleGen::new(&c);
    g.run(&mut |_| {});
    assert_eq!(g.final_nodes().count(), 40);
    assert_eq!(g.final_pods().count(), 1_200, "replacements take their pod's slot");
}

#[test]
fn the_kubectl_dump_has_the_last_hours_events_in_core_v1_and_every_node_and_pod() {
    let c = ScaleConfig { events: 3_000, ..small() };
    let (records, facts) = generate(&c);
    let since = facts.end - chrono::Duration::hours(1);
    let key = |o: &Value| (text(o, "/metadata/namespace").to_string(), text(o, "/metadata/name").to_string());
    let events = records.iter().filter(|r| text(&r.object, "/kind") == "Event");
    let all: BTreeSet<(String, String)> = events.clone().map(|r| key(&r.object)).collect();
    let last_hour: BTreeSet<(String, String)> =
        events.filter(|r| r.observed_at >= since).map(|r| key(&r.object)).collect();

    let mut dump = KubectlDump::new();
    let mut g = ScaleGen::new(&c);
    g.run(&mut |r| dump.observe(&r));
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("kubectl");
    dump.write(&dir, &g, facts.end).expect("write");
    let read = |file: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(file)).expect("read")).expect("JSON")
    };

    let listed = read("events.json");
    assert_eq!((listed["kind"].as_str(), listed["apiVersion"].as_str()), (Some("List"), Some("v1")));
    let items = listed["items"].as_array().expect("items");
    assert!(items.iter().all(|e| text(e, "/apiVersion") == "v1"), "events in their core/v1 form");
    let got: BTreeSet<(String, String)> = items.iter().map(key).collect();
    assert_eq!(got.len(), items.len(), "one item per event");
    assert_eq!(got, last_hour);
    assert!(!got.is_empty() && got.len() < all.len(), "{} of {} events", got.len(), all.len());
    assert_eq!(read("nodes.json")["items"].as_array().map(Vec::len), Some(40));
    assert_eq!(read("pods.json")["items"].as_array().map(Vec::len), Some(1_200));
}
