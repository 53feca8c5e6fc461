//! The demo scenario through the real store and analysis: the chain names
//! node-1 as the only node the pod affinity allows, 58m free against 100m
//! requested, 42m short; the event's counts match a re-evaluation of the
//! scheduler's filters; the kubectl-dump form of the same history gives the
//! same answer.

use kdrift_analyze::ReasonKind;
use kdrift_analyze::{pending_pods, why_pending};
use kdrift_ingest::ingest_scenario;
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_scenario::{generate, ScenarioConfig};
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
    assert_eq!(r.history.pending_seconds, (facts.pending_pod_deleted_at - r.history.first_failure).num_seconds());
    assert!(r.history.pending_seconds >= 89 * 60, "about 90 minutes: {}", r.history.pending_seconds);
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
fn demo_chain_says_why_node_1_is_full_and_why_plex_is_there() {
    use kdrift_analyze::Arrival;
    let scenario = generate(&ScenarioConfig { seed: 8, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 8).expect("ingest");
    let r = why_pending(&store, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    let w = r.why_full.as_ref().expect("why node-1 is full");
    assert_eq!(w.fills.len(), 1);
    let f = &w.fills[0];
    assert_eq!((f.node.as_str(), f.resource.as_str(), f.requested, f.allocatable), ("node-1", "cpu", 1942, 2000));
    let usage = facts.usage("node-1").expect("facts");
    assert_eq!(f.holders.len(), usage.pods, "every pod counted on node-1");
    assert_eq!(f.holders.iter().map(|h| h.request).sum::<i64>(), 1942);
    assert!(f.holders.windows(2).all(|w| w[0].request >= w[1].request), "largest request first");
    // The burst: the scenario's burst pods, bound within 3 minutes after node-1 came back from drain #2.
    let b = f.bursts.first().expect("burst");
    assert_eq!(b.operation, 2);
    assert_eq!(b.back_at, Some(facts.burst_ready_at));
    assert_eq!(b.landed, facts.burst_pods.len());
    let in_burst: Vec<String> = f
        .holders
        .iter()
        .filter(|h| matches!(h.arrival, Arrival::Drain { operation: 2, in_burst: true, .. }))
        .map(|h| format!("{}/{}", h.namespace, h.name))
        .collect();
    assert_eq!(b.still_there, in_burst.len());
    assert!(in_burst.iter().all(|p| facts.burst_pods.contains(p)), "{in_burst:?}");
    assert!(
        b.summary.starts_with(&format!(
            "{} pods landed on node-1 within 3 minutes after it came back",
            facts.burst_pods.len()
        )),
        "{}",
        b.summary
    );
    assert!(b.summary.contains("from drain #2 (2026-11-28T02:00:00Z)"), "{}", b.summary);
    // DaemonSet pods were there all along.
    assert!(f.holders.iter().any(|h| matches!(&h.arrival, Arrival::DaemonSet { name } if name == "node-exporter")));

    // The anchor: plex, with its i915 request; the other GPU nodes were cordoned when it landed.
    assert_eq!(w.anchors.len(), 1);
    let a = &w.anchors[0];
    assert_eq!((a.namespace.as_str(), a.name.as_str(), a.node.as_str()), ("media", facts.plex.name.as_str(), "node-1"));
    // The Scheduled event's eventTime carries seeded microseconds within the millisecond.
    let bound = a.bound_at.expect("bound");
    assert!((bound - facts.plex_bound_at).num_milliseconds().abs() < 1, "{bound} vs {}", facts.plex_bound_at);
    assert!(a.requests.iter().any(|(r, v)| r == "gpu.intel.com/i915" && *v == 1));
    assert_eq!(
        a.offered_by,
        vec![(
            "gpu.intel.com/i915".to_string(),
            vec!["node-1".to_string(), "node-2".into(), "node-3".into(), "node-4".into()]
        )]
    );
    assert_eq!(a.preferred_nodes, ["node-1", "node-2", "node-3", "node-4"]);
    for n in ["node-2", "node-3", "node-4"] {
        assert!(a.unavailable_at_binding.contains(&format!("{n} (cordoned)")), "{:?}", a.unavailable_at_binding);
    }
    assert!(
        a.why.iter().any(|w| w.ends_with("node-1 was the only schedulable node offering gpu.intel.com/i915")),
        "{:?}",
        a.why
    );
    assert!(matches!(a.arrival, Arrival::Drain { operation: 2, in_burst: true, .. }));

    // Fixes, ranked: the request that fits, the default policy's
    // RemoveDuplicates freeing node-1 (with the drain that filled it; no
    // LowNodeUtilization threshold pair frees it for good: with
    // PodTopologySpread's system default spreading, replacements land back on
    // node-1, where no sibling of theirs runs), the affinity.
    assert!(r.next_steps[0].action.contains("at most 58m"), "{:?}", r.next_steps[0]);
    assert!(
        r.next_steps[1].action.contains("descheduler's default policy would, run once")
            && r.next_steps[1].action.contains("drain #2"),
        "{:?}",
        r.next_steps[1]
    );
    assert!(
        r.next_steps[2].action.contains(&facts.plex.name)
            && r.next_steps[2].action.contains("preferredDuringScheduling"),
        "{:?}",
        r.next_steps[2]
    );
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
    // Every pod and node version: the stored model fields read as the whole object.
    let compared = kdrift_tests::assert_model_fields_agree(&store);
    assert!(compared > 200, "{compared} pod/node versions");
    // The per-node requested amounts from the store's aggregates are those of the pods loaded one by one.
    assert!(kdrift_tests::assert_amounts_agree(&store, 80) > 80);
    // The cluster read for the filters (schema v10) is the one read pod by pod, as far as the filters tell.
    assert!(kdrift_tests::assert_filter_load_agrees(&store, 20) > 100);
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

#[test]
fn postmortem_of_the_cronjob_reaches_the_same_chain_as_why_pending() {
    use kdrift_analyze::postmortem_job;
    use kdrift_analyze::RunStatus;
    let scenario = generate(&ScenarioConfig { seed: 9, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 9).expect("ingest");
    let pm = postmortem_job(&store, &facts.cronjob_namespace, &facts.cronjob_name).expect("query").expect("found");
    assert!(pm.cronjob);
    assert_eq!(pm.runs.len(), 1, "only the failed run is explained");
    let run = &pm.runs[0];
    assert_eq!(run.name, facts.job_name);
    assert_eq!(run.status, RunStatus::Failed);
    let f = run.failure.as_ref().expect("failure");
    assert_eq!((f.reason.as_str(), f.source.as_str()), ("DeadlineExceeded", "condition"));
    assert_eq!(f.message, "Job was active longer than specified deadline");
    assert_eq!(run.active_deadline_seconds, Some(facts.active_deadline_seconds));
    assert!(run.events.iter().any(|e| e.reason == "DeadlineExceeded" && e.event_type == "Warning"));
    assert_eq!(pm.other_runs.len(), 1);
    assert_eq!(
        (pm.other_runs[0].name.as_str(), pm.other_runs[0].status),
        (facts.previous_job_name.as_str(), RunStatus::Succeeded)
    );
    assert_eq!(run.pods.len(), 1);
    let pod = &run.pods[0];
    assert_eq!(
        (pod.name.as_str(), pod.outcome.as_str(), pod.deleted),
        (facts.pending_pod.name.as_str(), "never-started", true)
    );
    let direct =
        why_pending(&store, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    assert_eq!(pod.chain.as_ref(), Some(&direct), "the same chain as why-pending");

    // A Job name explains that Job: day 1's run succeeded; its pod ran and exited 0.
    let pm = postmortem_job(&store, &facts.cronjob_namespace, &facts.previous_job_name).expect("query").expect("found");
    assert!(!pm.cronjob);
    let run = &pm.runs[0];
    assert_eq!(run.status, RunStatus::Succeeded);
    let pod = &run.pods[0];
    assert_eq!((pod.outcome.as_str(), pod.node.as_deref()), ("ran", facts.previous_pod.node.as_deref()));
    let c = &pod.containers[0];
    assert_eq!((c.name.as_str(), c.state.as_str(), c.exit_code), ("restic", "terminated", Some(0)));
    assert!(postmortem_job(&store, "media", "nope").expect("query").is_none());
}

#[test]
fn demo_preemption_verdict_follows_the_events_preemption_part_and_the_move_step_says_no_policy_frees_node_1() {
    // The demo printed "PREEMPTION CAN HELP yes" for Insufficient cpu beside
    // the event's "No preemption victims found for incoming pod", and sent
    // the user to `kdrift rebalance plan` whose default policy (20 → 50 %)
    // plans nothing on this cluster.
    let scenario = generate(&ScenarioConfig { seed: 7, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 7).expect("ingest");
    let r = why_pending(&store, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    assert!(r.latest_message.contains("preemption: 0/5 nodes are available: 1 No preemption victims found"));
    let cpu = r.reasons.iter().find(|l| l.kind == ReasonKind::Insufficient).expect("Insufficient cpu");
    assert!(!cpu.preemption_can_help, "{cpu:?}");
    assert!(r.reasons.iter().all(|l| !l.preemption_can_help), "{:?}", r.reasons);
    assert!(
        r.notes.contains(
            &"preemption cannot help: the event's own preemption part says \"1 No preemption victims found for \
              incoming pod, 4 Preemption is not helpful for scheduling\""
                .to_string()
        ),
        "{:?}",
        r.notes
    );

    // No threshold pair frees node-1 in the simulation: the evicted pods'
    // replacements land back on node-1, where none of their ReplicaSet's
    // other pods runs (PodTopologySpread's system default spreading), so
    // descheduler would evict them night after night. (Before the scheduler
    // model scored PodTopologySpread: 50 → 90 %, 5 evictions in 1 night.)
    assert_eq!(r.relief.len(), 1, "{:?}", r.relief);
    let relief = &r.relief[0];
    assert_eq!((relief.node.as_str(), relief.resource.as_str()), ("node-1", "cpu"));
    assert_eq!((relief.movable_pods, relief.fixed_pods, relief.movable_amount), (15, 2, 1852), "{relief:?}");
    assert_eq!(relief.policy, None);
    let why = "no LowNodeUtilization threshold pair frees cpu on node-1 in the simulation (one that evicts stalls: \
               round 4 finds every node in the same class with the same requests as round 3: the pods evicted each \
               night (LowNodeUtilization 4) land back where they were, descheduler would evict them night after night)";
    assert_eq!(relief.no_policy.as_deref(), Some(why));
    // The chart default policy, whole, frees node-1 in one run: its
    // RemoveDuplicates evicts 3 copies there, landing elsewhere (new-user
    // trial 39: `kdrift rebalance plan --simulate` said 97.1 → 88.4 %).
    let default = relief.default_policy.as_ref().expect("the default policy evicts from node-1");
    assert_eq!((default.evictions, default.freed), (3, 175), "{default:?}");
    assert_eq!(default.plugins, ["RemoveDuplicates"]);
    let step = &r.next_steps[1].action;
    assert!(
        step.starts_with(
            "free 42m of cpu on node-1: descheduler's default policy would, run once — `kdrift rebalance plan \
             --simulate` evicts 3 pods off node-1 (RemoveDuplicates) and frees 175m of cpu there in one run"
        ),
        "{step}"
    );
}
