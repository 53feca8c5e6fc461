//! The demo scenario through the real store and analysis: the chain names
//! node-1 as the only node the pod affinity allows, 58m free against 100m
//! requested, 42m short; the event's counts match a re-evaluation of the
//! scheduler's filters; the kubectl-dump form of the same history gives the
//! same answer.

use kdrift_analyze::failed_scheduling::ReasonKind;
use kdrift_analyze::{pending_pods, why_pending};
use kdrift_ingest::demo::ingest_scenario;
use kdrift_ingest::scenario::{generate, ScenarioConfig};
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_tests::temp_store;

#[test]
fn demo_chain_names_node_1_and_the_42m_shortfall() {
    let scenario = generate(&ScenarioConfig { seed: 7, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    let report = ingest_scenario(&store, scenario, 7).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);

    let pods = pending_pods(&store).expect("pending");
    let top = &pods[0];
    assert_eq!(
        (top.namespace.as_str(), top.name.as_str()),
        (facts.pending_pod.namespace.as_str(), facts.pending_pod.name.as_str())
    );
    assert_eq!(top.reasons, "1 Insufficient cpu, 4 node(s) didn't match pod affinity rules");
    assert_eq!(top.occurrences, u64::from(facts.failed_scheduling_count));
    assert!(top.scheduled_at.is_none());

    let r = why_pending(&store, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    assert_eq!(r.history.outcome, "deleted-unscheduled");
    assert_eq!(r.history.waited_seconds, (facts.pending_pod_deleted_at - r.history.first_failure).num_seconds());
    assert!(r.history.waited_seconds >= 89 * 60, "about 90 minutes: {}", r.history.waited_seconds);
    assert_eq!(r.total_nodes, Some(5));
    let affinity = r.reasons.iter().find(|l| l.kind == ReasonKind::PodAffinity).expect("pod affinity reason");
    assert_eq!(affinity.nodes, Some(4));
    assert!(!affinity.preemption_can_help);

    let s = r.state.as_ref().expect("state");
    assert!(s.pod_known);
    assert_eq!(s.pod_requests.iter().find(|(k, _)| k == "cpu").map(|(_, v)| *v), Some(100));
    assert_eq!(s.left, vec!["node-1".to_string()], "node-1 is the only node the pod affinity allows");
    let c = s.constraints.iter().find(|c| c.plugin == "InterPodAffinity").expect("InterPodAffinity constraint");
    assert_eq!(c.nodes, vec!["node-2", "node-3", "node-4", "node-5"]);
    assert_eq!(s.shortfalls.len(), 1);
    let sf = &s.shortfalls[0];
    assert_eq!(
        (sf.node.as_str(), sf.resource.as_str(), sf.requested, sf.free, sf.short),
        ("node-1", "cpu", 100, 58, 42)
    );
    let node1 = s.nodes.iter().find(|n| n.name == "node-1").expect("node-1");
    let cpu = node1.resources.iter().find(|x| x.resource == "cpu").expect("cpu");
    assert_eq!((cpu.requested, cpu.allocatable), (1942, 2000));
    let node5 = s.nodes.iter().find(|n| n.name == "node-5").expect("node-5");
    let cpu5 = node5.resources.iter().find(|x| x.resource == "cpu").expect("cpu");
    assert_eq!(cpu5.requested, facts.usage("node-5").expect("facts").requested_cpu_millis);
    assert_eq!(s.matches_event, Some(true), "{:?}", s.reconstructed_message);
    assert!(r.next_steps[0].action.contains("at most 58m"), "{:?}", r.next_steps[0]);
}

#[test]
fn demo_as_kubectl_dumps_during_the_pending_window_gives_the_same_shortfall() {
    let scenario = generate(&ScenarioConfig { seed: 3, scale: 1 });
    let facts = scenario.facts.clone();
    let dir = tempfile::tempdir().expect("tmp");
    let mut paths = Vec::new();
    for (name, list) in scenario.to_kubectl_lists_at(facts.failure_at + chrono::Duration::minutes(30)) {
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_vec_pretty(&list).expect("json")).expect("write");
        paths.push(p);
    }
    let (_d, store) = temp_store();
    let report = ingest_files(&store, &paths, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);
    let r = why_pending(&store, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    let s = r.state.as_ref().expect("state");
    let sf = s.shortfalls.first().expect("shortfall");
    assert_eq!((sf.node.as_str(), sf.short), ("node-1", 42));
}

#[test]
fn demo_ingest_is_idempotent() {
    let (_dir, store) = temp_store();
    let first = ingest_scenario(&store, generate(&ScenarioConfig { seed: 1, scale: 1 }), 1).expect("ingest");
    assert!(first.counts.added > 500, "{:?}", first.counts);
    let again = ingest_scenario(&store, generate(&ScenarioConfig { seed: 1, scale: 1 }), 1).expect("ingest");
    assert_eq!(again.counts.added, 0);
}

#[test]
fn demo_events_through_a_victorialogs_export_give_the_same_answer() {
    // The demo's events as a VictoriaLogs NDJSON export (kubernetes-event-exporter
    // webhook layout: core/v1 events, _msg = message, _time from
    // eventTime/lastTimestamp/firstTimestamp), plus the pod and node objects
    // from a kubectl dump: same shortfall.
    use kdrift_tests::victorialogs_flatten;
    let scenario = generate(&ScenarioConfig { seed: 5, scale: 1 });
    let facts = scenario.facts.clone();
    let at = facts.failure_at + chrono::Duration::minutes(30);
    let dir = tempfile::tempdir().expect("tmp");
    let mut paths = Vec::new();
    for (name, list) in scenario.to_kubectl_lists_at(at) {
        if name == "events.json" {
            let mut lines = String::new();
            for e in list["items"].as_array().expect("items") {
                let flat = victorialogs_flatten(e, "message", &["eventTime", "lastTimestamp", "firstTimestamp"]);
                lines.push_str(&flat.to_string());
                lines.push('\n');
            }
            let p = dir.path().join("vlogs-export.ndjson");
            std::fs::write(&p, lines).expect("write");
            paths.push(p);
        } else {
            let p = dir.path().join(name);
            std::fs::write(&p, serde_json::to_vec(&list).expect("json")).expect("write");
            paths.push(p);
        }
    }
    let (_d, store) = temp_store();
    let report = ingest_files(&store, &paths, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);
    let pods = pending_pods(&store).expect("pending");
    assert_eq!(pods[0].name, facts.pending_pod.name);
    assert_eq!(pods[0].reasons, "1 Insufficient cpu, 4 node(s) didn't match pod affinity rules");
    let r = why_pending(&store, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    let sf = r.state.as_ref().and_then(|s| s.shortfalls.first()).expect("shortfall");
    assert_eq!((sf.node.as_str(), sf.requested, sf.free, sf.short), ("node-1", 100, 58, 42));
}
