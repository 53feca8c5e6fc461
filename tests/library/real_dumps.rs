//! Every real dump in `../shared/fixtures/real/dumps` loads into a real
//! DuckDB store with zero errors; loading it again adds nothing and changes no
//! answer; `why-pending` answers from it with correctly summed counts.

use kdrift_analyze::{pending_pods, why_pending};
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_tests::{real_fixtures_or_skip, temp_store};

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn every_real_dump_loads_once_and_only_once() {
    let Some(real) = real_fixtures_or_skip("every_real_dump_loads_once_and_only_once") else { return };
    let dumps = real.join("dumps");
    let (_dir, store) = temp_store();
    let first = ingest_files(&store, std::slice::from_ref(&dumps), &mut NoProgress).expect("ingest");
    for f in &first.files {
        assert!(f.errors.is_empty(), "{}: {:?}", f.location, f.errors);
        let name = f.location.rsplit('/').next().unwrap_or_default();
        if name.starts_with("global-cloudwork") {
            assert_eq!(f.records, 0, "items: null is an empty list");
        } else {
            assert!(f.records > 0, "{} loaded nothing", f.location);
        }
    }
    assert_eq!(first.files.len(), 14, "every file in dumps/ is read");
    assert_eq!(first.error_count(), 0);
    // erwee402 default events: 430 events in the old internal-type format.
    let erwee = first
        .files
        .iter()
        .find(|f| f.location.ends_with("erwee402__multi-k8s__default__events.json"))
        .expect("erwee file");
    assert_eq!(erwee.events, 430);
    // jgyy: the same 488 events through both APIs.
    for suffix in ["jgyy__ckad__default__events.yaml", "jgyy__ckad__default__events.events.k8s.io.yaml"] {
        let f = first.files.iter().find(|f| f.location.ends_with(suffix)).expect("jgyy file");
        assert_eq!(f.events, 488, "{suffix}");
    }
    // Every pod and node version of the real dumps: the stored model fields read as the whole object.
    let compared = kdrift_tests::assert_model_fields_agree(&store);
    // Per-node requested amounts from the aggregates = from the pods loaded one by one.
    assert!(kdrift_tests::assert_amounts_agree(&store, 40) > 10);
    kdrift_tests::assert_filter_load_agrees(&store, 20);
    assert_eq!(compared, 14, "the pod and node versions of the real dumps");
    let before = pending_pods(&store).expect("pending");

    let second = ingest_files(&store, &[dumps], &mut NoProgress).expect("re-ingest");
    assert_eq!(second.counts.added, 0, "re-ingesting the same files adds nothing");
    assert_eq!(second.counts.duplicates, first.counts.records);
    let after = pending_pods(&store).expect("pending");
    assert_eq!(before, after, "re-ingesting changes no answer");
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn why_pending_all_sums_erwee402_occurrences() {
    let Some(real) = real_fixtures_or_skip("why_pending_all_sums_erwee402_occurrences") else { return };
    let (_dir, store) = temp_store();
    let dumps = real.join("dumps");
    ingest_files(&store, std::slice::from_ref(&dumps), &mut NoProgress).expect("ingest");
    // Twice: still the same sums (re-sent copies are never added).
    ingest_files(&store, &[dumps], &mut NoProgress).expect("ingest");
    let pods = pending_pods(&store).expect("pending");
    let erwee: Vec<_> = pods.iter().filter(|p| p.namespace == "default" && p.reasons == "1 Insufficient cpu").collect();
    // 100 events of `0/1 nodes are available: 1 Insufficient cpu.` over 98 pods (counted by hand from the file).
    assert!(erwee.len() >= 95, "found {}", erwee.len());
    let redis = pods.iter().find(|p| p.name == "redis-868ff4679d-l7cr6").expect("redis pod");
    assert_eq!(redis.occurrences, 27);
    assert_eq!(redis.failure_events, 1);
    let hd7wc = pods.iter().find(|p| p.name == "client-deployment-6c68fd7497-hd7wc").expect("hd7wc");
    assert_eq!(hd7wc.occurrences, 9);
    // Two distinct events, one of them a PVC being deleted: counts add up per event.
    let pg = pods.iter().find(|p| p.name == "postgres-deployment-5cb56b774f-55z9s").expect("postgres pod");
    assert_eq!(pg.occurrences, 25);
    assert_eq!(pg.failure_events, 2);
    // Longest-pending first.
    assert!(pods.windows(2).all(|w| w[0].pending_seconds >= w[1].pending_seconds));
    // Deleted by its ReplicaSet in a rollout ("Deleted pod: …", and the
    // scheduler's "skip schedule deleting pod"): not still pending.
    let deleted_at = chrono::DateTime::parse_from_rfc3339("2019-03-08T08:55:29Z").expect("time").to_utc();
    let d9j6g = pods.iter().find(|p| p.name == "client-deployment-85b74f5bb8-d9j6g").expect("d9j6g");
    assert_eq!((d9j6g.deleted_at, d9j6g.pending_is_lower_bound), (Some(deleted_at), false));
    let never_seen_ended = pods.iter().filter(|p| p.namespace == "default" && p.pending_is_lower_bound).count();
    assert!(never_seen_ended <= 1, "{never_seen_ended} default pods still pending at the end");
    let report = why_pending(&store, "default", "client-deployment-85b74f5bb8-d9j6g").expect("query").expect("report");
    assert_eq!(
        (report.history.outcome, report.history.deleted_at, report.history.deleted_by.as_deref()),
        ("deleted-unscheduled", Some(deleted_at), Some("ReplicaSet client-deployment-85b74f5bb8 SuccessfulDelete"))
    );

    let report = why_pending(&store, "default", "redis-868ff4679d-l7cr6").expect("query").expect("report");
    assert_eq!(report.history.occurrences, 27);
    assert_eq!(report.total_nodes, Some(1));
    assert_eq!(report.reasons[0].reason, "Insufficient cpu");
    assert_eq!(report.reasons[0].nodes, Some(1));
    assert!(report.reasons[0].preemption_can_help);
    let state = report.state.expect("minikube node is in the store");
    assert_eq!(state.nodes.len(), 1);
    assert_eq!(state.nodes[0].name, "minikube");
    let cpu = state.nodes[0].resources.iter().find(|r| r.resource == "cpu").expect("cpu");
    assert_eq!(cpu.allocatable, 2000);
    // The pod's own object is not in these dumps: the note counts the pods
    // with objects, not those known only from their Scheduled event.
    let event_only = report.notes.iter().find(|n| n.contains("known only from events")).expect("event-only note");
    assert!(event_only.starts_with("1 pod is known only from events"), "{event_only}");
    assert!(
        event_only
            .ends_with("; the store has no version of its owner either, so it counts with no requests (a lower bound)"),
        "{event_only}"
    );
    assert_eq!(state.pods_counted, 12);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.starts_with("requested amounts count only the 11 pods whose objects are in the store")),
        "{:?}",
        report.notes
    );
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn jgyy_same_events_through_both_apis_count_once() {
    let Some(real) = real_fixtures_or_skip("jgyy_same_events_through_both_apis_count_once") else { return };
    let dumps = real.join("dumps");
    let core = dumps.join("jgyy__ckad__default__events.yaml");
    let new_api = dumps.join("jgyy__ckad__default__events.events.k8s.io.yaml");
    let (_d1, one) = temp_store();
    ingest_files(&one, std::slice::from_ref(&core), &mut NoProgress).expect("ingest");
    let (_d2, both) = temp_store();
    ingest_files(&both, &[core, new_api], &mut NoProgress).expect("ingest");
    let count = |s: &kdrift_store::Store| -> i64 { s.counts().expect("counts").events };
    assert_eq!(count(&one), 488);
    assert_eq!(count(&both), 488, "the events.k8s.io copies are the same events");
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn every_forensics_command_runs_on_a_store_of_every_real_file() {
    use kdrift_analyze::skew;
    use kdrift_analyze::{drain_timeline, postmortem_job, requested_at};
    let Some(real) = real_fixtures_or_skip("every_forensics_command_runs_on_a_store_of_every_real_file") else {
        return;
    };
    let (_dir, store) = temp_store();
    // Every file: the dumps load, the rest is reported as not a dump; the
    // node-event extraction goes in as the events it lists.
    let report = ingest_files(&store, std::slice::from_ref(&real), &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0);
    let tsv = real.join("drains/node-events-TonyChengTW-k8s-ha-v1.8.1.tsv");
    let records = kdrift_tests::tsv_node_events(&tsv).expect("tsv");
    kdrift_ingest::ingest_records(&store, "file", &tsv.display().to_string(), records).expect("ingest tsv");

    let tl = drain_timeline(&store, None, None).expect("timeline drains");
    assert_eq!(tl.operations.len(), 2, "the k8s-ha outages; the dumps hold no cordon, NotReady or reboot");
    assert!(tl.operations.iter().all(|o| o.after.nodes.len() == o.before.nodes.len()));

    let chart = kdrift_rebalance::Policy::from_yaml("deschedulerPolicy: null").expect("policy");
    let s = skew(&store, None, &chart).expect("skew");
    let names: Vec<&str> = s.nodes.iter().map(|n| n.requested.node.as_str()).collect();
    assert_eq!(names, ["aks-nodepool1-28869405-vmss000000", "minikube"]);
    // Two clusters' "minikube" in one store (the README says: one store per
    // cluster): now it is jgyy's 2021 node (4 CPUs), in 2019 erwee402's (2 CPUs).
    let minikube = &s.nodes[1].requested;
    assert_eq!(minikube.get("cpu").map(|c| c.allocatable), Some(4000));
    let at_failure =
        requested_at(&store, chrono::DateTime::parse_from_rfc3339("2019-03-08T08:59:00Z").expect("t").into())
            .expect("requested at");
    let cpu2019 = at_failure.node("minikube").and_then(|n| n.get("cpu")).expect("minikube cpu in 2019");
    assert_eq!(cpu2019.allocatable, 2000);

    let pods = pending_pods(&store).expect("why-pending --all");
    assert!(pods.len() >= 95);
    // The chain of the longest-pending ones (every pod's would take minutes).
    for p in pods.iter().take(8) {
        why_pending(&store, &p.namespace, &p.name).expect("why-pending").expect("report");
    }
    assert!(postmortem_job(&store, "default", "redis").expect("postmortem").is_none(), "no Job in the real dumps");
}

/// The erwee402 files only: its default namespace's pods are known only
/// from events (the dump holds kube-system's Pod objects).
fn erwee402_store(real: &std::path::Path) -> (tempfile::TempDir, kdrift_store::Store) {
    let (dir, store) = temp_store();
    let dumps = real.join("dumps");
    let files: Vec<std::path::PathBuf> =
        ["default__events.json", "kube-system__events.json", "kube-system__pods.json", "nodes.json"]
            .iter()
            .map(|f| dumps.join(format!("erwee402__multi-k8s__{f}")))
            .collect();
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0);
    (dir, store)
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn skew_and_plan_on_erwee402_say_the_requested_amounts_are_a_lower_bound() {
    // skew said minikube 38.8 % cpu with no caveat, while the kubelet's
    // OutOfcpu events of the same store say 1775m of 2000m were requested:
    // the default namespace's pods were never dumped.
    let Some(real) = real_fixtures_or_skip("skew_and_plan_on_erwee402_say_the_requested_amounts_are_a_lower_bound")
    else {
        return;
    };
    let (_dir, store) = erwee402_store(&real);
    let chart = kdrift_rebalance::Policy::from_yaml("deschedulerPolicy: null").expect("policy");
    let s = kdrift_analyze::skew(&store, None, &chart).expect("skew");
    assert_eq!(s.at.to_rfc3339(), "2019-03-08T08:59:58+00:00");
    let minikube = &s.nodes[0].requested;
    let cpu = minikube.get("cpu").expect("cpu");
    assert_eq!((cpu.requested, cpu.allocatable), (775, 2000), "kube-system's pods only");
    assert!(minikube.lower_bound, "{minikube:?}");
    let note = "requested amounts are lower bounds (≥) on every node: events in the hour up to 2019-03-08T08:59:58Z \
                name 115 pods of namespace default, of which the store holds no Pod object (not dumped): pods there \
                count only when a Scheduled event places them, other pods there not at all (ingest `kubectl get pods \
                -A -o json`)";
    assert_eq!(s.notes[0], note);

    let loaded = kdrift_analyze::load_snapshot(&store, None).expect("snapshot");
    assert_eq!(loaded.lower_bound_nodes, ["minikube"]);
    assert_eq!(loaded.notes[0], note);
    // An --at after the history shows the same last state, still a lower
    // bound (the events of the history's last hour name the same pods).
    let later = chrono::DateTime::parse_from_rfc3339("2030-01-01T00:00:00Z").expect("time").to_utc();
    let after = kdrift_analyze::skew(&store, Some(later), &chart).expect("skew");
    assert!(after.nodes[0].requested.lower_bound, "{:?}", after.nodes[0]);
    assert!(after.notes.iter().any(|n| n == note), "{:?}", after.notes);
    let loaded = kdrift_analyze::load_snapshot(&store, Some(later)).expect("snapshot");
    assert_eq!(loaded.lower_bound_nodes, ["minikube"]);
    // Kube-system alone, with every pod's object: no lower bound.
    let (_d2, only_system) = temp_store();
    let dumps = real.join("dumps");
    let system = ["kube-system__events.json", "kube-system__pods.json", "nodes.json"]
        .map(|f| dumps.join(format!("erwee402__multi-k8s__{f}")));
    ingest_files(&only_system, &system, &mut NoProgress).expect("ingest");
    let s = kdrift_analyze::skew(&only_system, None, &chart).expect("skew");
    assert!(!s.nodes[0].requested.lower_bound);
    assert!(!s.notes.iter().any(|n| n.contains("lower bound")), "{:?}", s.notes);
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn why_pending_on_erwee402_says_a_last_skip_deleting_pod_message_is_no_failure() {
    // New-user trial 42: "failed to schedule 13 times", 12 attempts in the
    // reasons, the latest message kube-scheduler's deleting-pod skip.
    let Some(real) =
        real_fixtures_or_skip("why_pending_on_erwee402_says_a_last_skip_deleting_pod_message_is_no_failure")
    else {
        return;
    };
    let (_dir, store) = erwee402_store(&real);
    let report = why_pending(&store, "default", "client-deployment-85b74f5bb8-d9j6g").expect("query").expect("report");
    assert_eq!(report.history.occurrences, 13);
    // A pod the scheduler placed at once and the kubelet refused has no
    // FailedScheduling: its rejection is still found (why-pending explains it).
    let placed = why_pending(&store, "default", "client-deployment-85b74f5bb8-lk2qn").expect("query").expect("chain");
    assert_eq!((placed.history.failure_events, placed.history.outcome), (0, "rejected-by-kubelet"));
    let rejected = kdrift_analyze::pod_rejections(&store, "default", "client-deployment-85b74f5bb8-lk2qn").expect("q");
    let r = rejected.last().expect("a rejection");
    assert_eq!(
        (r.node.as_str(), r.reason.as_str(), r.at.to_rfc3339()),
        ("minikube", "OutOfcpu", "2019-03-08T08:48:39+00:00".into())
    );
    assert_eq!(r.counted.as_ref().map(|c| c.short()), Some(275));
    let reasons: Vec<(&str, u64)> = report.reasons.iter().map(|r| (r.reason.as_str(), r.occurrences)).collect();
    assert_eq!(reasons, [("Insufficient cpu", 12)]);
    assert!(
        report.notes.iter().any(|n| {
            n
            == "the latest message (2019-03-08T08:55:29Z) is kube-scheduler's \"skip schedule deleting pod\": the pod \
                was being deleted, not a failure to place it; the reasons above are those of the 12 attempts before it"
        }),
        "{:?}",
        report.notes
    );
}

/// New-user trial 43: on erwee402's one-node cluster (minikube's Node
/// stored), the pods whose latest message names no node count (the
/// scheduler's deleting-pod skip, a PVC being deleted) were sent to
/// `kdrift rebalance plan` (which says descheduler skips a one-node
/// cluster) and told to ingest the Node object the store holds.
#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn why_pending_on_erwee402_gives_the_one_node_step_whatever_the_latest_message() {
    let Some(real) =
        real_fixtures_or_skip("why_pending_on_erwee402_gives_the_one_node_step_whatever_the_latest_message")
    else {
        return;
    };
    let (_dir, store) = erwee402_store(&real);
    let only_node = "minikube is the cluster's only node: no other node can take its pods; lower the pod's request or \
                     add a node; ingest the Pod object for exact numbers";
    for name in [
        "client-deployment-85b74f5bb8-d9j6g",
        "worker-deployment-7c65c9fcf8-c8z8w",
        "redis-5fd75d8cc6-2nvkh",
        "postgres-deployment-5cb56b774f-55z9s",
        "postgres-deployment-594dbb9cdc-xxwdn",
    ] {
        let report = why_pending(&store, "default", name).expect("query").expect("report");
        let steps: Vec<(&str, &str)> =
            report.next_steps.iter().map(|n| (n.addresses.as_str(), n.action.as_str())).collect();
        let cpu = steps.iter().find(|(a, _)| *a == "Insufficient cpu").expect("a cpu step");
        assert_eq!(cpu.1, only_node, "{name}: {steps:#?}");
        assert!(
            !steps.iter().any(|(_, a)| a.contains("rebalance") || a.contains("Node objects")),
            "{name}: {steps:#?}"
        );
    }
    // The list and the chain name one latest message (2nvkh's two events end
    // in the same second), and the list gives the attempts' reasons, never
    // the skip's text (new-user trial 43 #2).
    let pods = pending_pods(&store).expect("pending");
    for name in ["client-deployment-85b74f5bb8-d9j6g", "worker-deployment-7c65c9fcf8-c8z8w", "redis-5fd75d8cc6-2nvkh"] {
        let row = pods.iter().find(|p| p.name == name).expect("row");
        let report = why_pending(&store, "default", name).expect("query").expect("report");
        assert_eq!(row.latest_message, report.latest_message, "{name}");
        assert_eq!(row.latest_message, format!("skip schedule deleting pod: default/{name}"));
        assert_eq!(row.reasons_shown(), "1 Insufficient cpu (then skipped: being deleted)", "{name}");
    }
    assert!(!pods.iter().any(|p| p.reasons.contains("skip schedule")));
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn why_pending_on_erwee402_says_the_kubelet_rejected_a_bound_pod() {
    // It said "scheduled on minikube after waiting 9s": the kubelet's
    // OutOfcpu refused the pod at the binding's second; it never ran.
    let Some(real) = real_fixtures_or_skip("why_pending_on_erwee402_says_the_kubelet_rejected_a_bound_pod") else {
        return;
    };
    let (_dir, store) = erwee402_store(&real);
    let name = "server-deployment-56d5dd7646-qzjv8";
    let report = why_pending(&store, "default", name).expect("query").expect("report");
    let h = &report.history;
    assert_eq!(h.outcome, "rejected-by-kubelet");
    assert_eq!(h.pending_seconds, 9);
    let r = h.rejected.as_ref().expect("rejected");
    assert_eq!(r.at.to_rfc3339(), "2019-03-08T08:48:48+00:00");
    assert_eq!((r.node.as_str(), r.reason.as_str()), ("minikube", "OutOfcpu"));
    assert_eq!(r.message, "Node didn't have enough resource: cpu, requested: 500, used: 1775, capacity: 2000");
    // The kubelet's numbers are the exact shortfall where the store's are a
    // lower bound (default's pods were not dumped): it had none at all.
    let c = r.counted.as_ref().expect("the kubelet's count");
    assert_eq!((c.resource.as_str(), c.requested, c.used, c.capacity), ("cpu", 500, 1775, 2000));
    let s = report.state.as_ref().expect("state");
    assert!(s.requested_is_lower_bound);
    let sf: Vec<_> =
        s.shortfalls.iter().map(|x| (x.node.as_str(), x.resource.as_str(), x.requested, x.free, x.short)).collect();
    assert_eq!(sf, [("minikube", "cpu", 500, 225, 275)]);
    assert_eq!(s.shortfalls[0].exact_from.as_deref(), Some("the kubelet's count at admission, 2019-03-08T08:48:48Z"));
    assert!(
        report.notes.iter().any(|n| n.starts_with(
            "minikube cpu: the kubelet's count at admission, 2019-03-08T08:48:48Z says 1775m used of 2000m (225m free \
             for the pod's 500m, 275m short)"
        )),
        "{:?}",
        report.notes
    );
    // No note says the shortfall it just printed cannot be computed (new-user trial, session 29).
    assert!(!report.notes.iter().any(|n| n.contains("shortfalls cannot be computed")), "{:?}", report.notes);
    assert!(
        report.notes.iter().any(|n| n.ends_with(
            "is not in the store: its requests are unknown but for the one the kubelet's admission refusal names \
             (its shortfall below)"
        )),
        "{:?}",
        report.notes
    );
    // Next steps (new-user trial 39: 88 of the 101 pods like this had none):
    // the node the scheduler bound it to is left, so the request that fits
    // and the one-node cluster's step, then the kubelet's count.
    assert_eq!(s.left, ["minikube"]);
    let steps: Vec<(&str, &str)> =
        report.next_steps.iter().map(|n| (n.addresses.as_str(), n.action.as_str())).collect();
    assert_eq!(steps.len(), 3, "{steps:#?}");
    assert_eq!(
        steps[0],
        ("Insufficient cpu", "lower the pod's cpu request from 500m to at most 225m (it fits minikube then)")
    );
    assert!(steps[1].1.starts_with("minikube is the cluster's only node"), "{steps:#?}");
    assert_eq!(steps[2].0, "OutOfcpu");
    assert!(
        steps[2].1.starts_with(
            "the scheduler bound the pod to minikube but the kubelet counted 1775m of 2000m cpu already requested \
             there (275m short)"
        ),
        "{steps:#?}"
    );
    let pods = pending_pods(&store).expect("pending");
    let row = pods.iter().find(|p| p.name == name).expect("row");
    assert_eq!(row.rejected_reason.as_deref(), Some("OutOfcpu"));
    // Never bound: no rejection.
    let hd7wc = pods.iter().find(|p| p.name == "client-deployment-6c68fd7497-hd7wc").expect("hd7wc");
    assert_eq!((hd7wc.scheduled_at, hd7wc.rejected_at), (None, None));
    let default: Vec<_> = pods.iter().filter(|p| p.namespace == "default").collect();
    let rejected = default.iter().filter(|p| p.rejected_reason.as_deref() == Some("OutOfcpu")).count();
    let scheduled = default.iter().filter(|p| p.scheduled_at.is_some()).count();
    assert_eq!((rejected, scheduled), (89, 89), "every default pod bound after a failure was refused");
    // kube-system's coredns was scheduled and ran.
    let coredns = pods.iter().find(|p| p.name == "coredns-86c58d9df4-mnjkg").expect("coredns");
    assert_eq!((coredns.scheduled_node.as_deref(), coredns.rejected_reason.as_deref()), (Some("minikube"), None));
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn timeline_on_erwee402_says_why_it_finds_no_drain() {
    // `timeline drains` said only "no drain, reboot or outage found".
    let Some(real) = real_fixtures_or_skip("timeline_on_erwee402_says_why_it_finds_no_drain") else { return };
    let (_dir, store) = erwee402_store(&real);
    let tl = kdrift_analyze::drain_timeline(&store, None, None).expect("timeline");
    assert!(tl.operations.is_empty());
    assert_eq!(
        tl.why_none.as_deref(),
        Some(
            "the store's time span, 2019-03-08T08:48:01Z → 2019-03-08T08:59:58Z, holds no cordon, NotReady or \
             reboot of any node (node signals: 1 RegisteredNode, 1 Starting); its eviction evidence (Killing: 3 \
             pods) is no drain without one; ingest what shows a drain: Node versions over time (`kdrift record`, \
             or `kubectl get nodes -o json` taken while it drains) and the nodes' events (`kubectl get events -A -o \
             json` within an hour of the drain, before they expire, or `kdrift ingest victorialogs`)"
        )
    );
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn a_whole_cluster_info_dump_tree_and_the_real_erwee402_files_load_with_zero_errors() {
    // A kubectl 1.8 `cluster-info dump --output-directory` tree (namespace
    // folders, every resource file, container logs in POD/logs.txt) given
    // with the real 2019 minikube dump (internal types) read in place.
    let Some(real) =
        real_fixtures_or_skip("a_whole_cluster_info_dump_tree_and_the_real_erwee402_files_load_with_zero_errors")
    else {
        return;
    };
    let (dir, store) = temp_store();
    let tree = kdrift_tests::cluster_info_dump::write_tree(&dir.path().join("cluster-state"));
    let mut inputs = vec![tree.clone()];
    inputs.extend(
        ["default__events.json", "kube-system__events.json", "kube-system__pods.json", "nodes.json"]
            .iter()
            .map(|f| real.join("dumps").join(format!("erwee402__multi-k8s__{f}"))),
    );
    let report = ingest_files(&store, &inputs, &mut NoProgress).expect("ingest");
    for f in &report.files {
        assert!(f.errors.is_empty(), "{}: {:?}", f.location, f.errors);
    }
    assert_eq!((report.status, report.error_count()), (kdrift_store::RunStatus::Ok, 0));
    assert_eq!(report.files.len(), 22 + 4);
    assert_eq!(report.ignored.len(), 2, "the two logs.txt: {:?}", report.ignored);
    // Objects per kind: the tree's, plus erwee402's 11 kube-system pods and its node.
    let per_kind: Vec<(&str, usize)> = [
        "Event",
        "Node",
        "Pod",
        "Deployment",
        "ReplicaSet",
        "DaemonSet",
        "ReplicationController",
        "StatefulSet",
        "Job",
        "CronJob",
        "PodDisruptionBudget",
        "Namespace",
        "PriorityClass",
        "Service",
    ]
    .iter()
    .map(|kind| {
        let params =
            [("kind".to_string(), kind.to_string()), ("at_us".to_string(), "2100-01-01T00:00:00Z".to_string())];
        (*kind, kdrift_store::run_query(&store, "objects_at", &params).expect("objects_at").rows.len())
    })
    .collect();
    assert_eq!(
        per_kind,
        [
            ("Event", 1 + 430 + 59),
            ("Node", 2),
            ("Pod", 5 + 11),
            ("Deployment", 1),
            ("ReplicaSet", 1),
            ("DaemonSet", 1),
            ("ReplicationController", 1),
            ("StatefulSet", 1),
            ("Job", 1),
            ("CronJob", 1),
            ("PodDisruptionBudget", 1),
            ("Namespace", 1),
            ("PriorityClass", 1),
            ("Service", 0),
        ]
    );
    let events: u64 = report.files.iter().map(|f| f.events).sum();
    let skipped: u64 = report.files.iter().map(|f| f.skipped).sum();
    assert_eq!((events, skipped), (1 + 430 + 59, 1), "one Service skipped");

    // `kdrift ingest file` of the same inputs exits 0 (2 with any input error).
    match assert_cmd::Command::cargo_bin("kdrift") {
        Ok(mut kdrift) => {
            let out = kdrift
                .arg("--db")
                .arg(dir.path().join("cli.duckdb"))
                .args(["ingest", "file"])
                .args(&inputs)
                .env_remove("KDRIFT_DB")
                .assert()
                .code(0);
            let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
            assert!(
                stdout.contains("run 1 (ok): 518 object versions read, 518 new, 0 already stored, 0 input errors"),
                "{stdout}"
            );
        }
        Err(e) => eprintln!("the kdrift binary is not built ({e}): its exit status is not checked"),
    }
}

/// New-user trial 46: `why-pending --all` sends each pod the scheduler
/// placed at once and the kubelet refused (no FailedScheduling) to
/// `why-pending NAMESPACE/NAME`, which exited 1. It gets the chain of a pod
/// refused after a wait: the node, the kubelet's exact free amount and
/// shortfall, the same fixes addressed to `OutOfcpu`.
#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn why_pending_on_erwee402_explains_a_pod_the_kubelet_refused_without_failed_scheduling() {
    let Some(real) =
        real_fixtures_or_skip("why_pending_on_erwee402_explains_a_pod_the_kubelet_refused_without_failed_scheduling")
    else {
        return;
    };
    let (_dir, store) = erwee402_store(&real);
    let report = why_pending(&store, "default", "client-deployment-85b74f5bb8-r5dq2").expect("query").expect("chain");
    let h = &report.history;
    assert_eq!(report.uid, "f7902d91-417e-11e9-9e86-00155d700139");
    assert_eq!((h.occurrences, h.failure_events, h.pending_seconds, h.outcome), (0, 0, 0, "rejected-by-kubelet"));
    let s = h.scheduled.as_ref().expect("bound");
    assert_eq!((s.node.as_str(), s.at.to_rfc3339()), ("minikube", "2019-03-08T08:48:38+00:00".to_string()));
    let r = h.rejected.as_ref().expect("refused");
    assert_eq!((r.node.as_str(), r.reason.as_str(), r.at), ("minikube", "OutOfcpu", s.at));
    assert!(report.reasons.is_empty() && report.failures.is_empty() && report.latest_message.is_empty());
    let state = report.state.as_ref().expect("state at the refusal");
    assert_eq!(state.at, r.at);
    assert_eq!(state.left, ["minikube"]);
    let sf: Vec<_> = state
        .shortfalls
        .iter()
        .map(|x| (x.node.as_str(), x.resource.as_str(), x.requested, x.free, x.short, x.exact_from.is_some()))
        .collect();
    assert_eq!(sf, [("minikube", "cpu", 500, 225, 275, true)]);
    let steps: Vec<(&str, &str)> =
        report.next_steps.iter().map(|n| (n.addresses.as_str(), n.action.as_str())).collect();
    assert_eq!(steps.len(), 3, "{steps:#?}");
    assert_eq!(steps[0], ("OutOfcpu", "lower the pod's cpu request from 500m to at most 225m (it fits minikube then)"));
    assert!(steps[1].1.starts_with("minikube is the cluster's only node"), "{steps:#?}");
    assert_eq!(steps[2].0, "OutOfcpu");
    assert!(
        steps[2].1.starts_with(
            "the scheduler bound the pod to minikube but the kubelet counted 1775m of 2000m cpu already requested \
             there (275m short)"
        ),
        "{steps:#?}"
    );
    assert_eq!(
        report.notes[0],
        "no FailedScheduling event: the scheduler found room on minikube and bound the pod at once; the kubelet's \
         own count at admission did not"
    );
    // A pod neither failed nor refused: still nothing.
    assert!(why_pending(&store, "default", "no-such-pod").expect("query").is_none());
}

/// New-user trial 46: coredns waited 1 s on the booting minikube (`1
/// node(s) had taints that the pod didn't tolerate.`) and was scheduled;
/// its next step was to remove the taint by hand.
#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn why_pending_on_erwee402_says_a_one_second_taint_wait_resolved_by_itself() {
    let Some(real) = real_fixtures_or_skip("why_pending_on_erwee402_says_a_one_second_taint_wait_resolved_by_itself")
    else {
        return;
    };
    let (_dir, store) = erwee402_store(&real);
    let report = why_pending(&store, "kube-system", "coredns-86c58d9df4-mnjkg").expect("query").expect("chain");
    assert_eq!((report.history.outcome, report.history.pending_seconds), ("scheduled", 1));
    let steps: Vec<(&str, &str)> =
        report.next_steps.iter().map(|n| (n.addresses.as_str(), n.action.as_str())).collect();
    assert_eq!(
        steps,
        [(
            "node(s) had untolerated taint(s)",
            "resolved by itself after 1s: the scheduler bound the pod to minikube at 2019-03-08T08:48:31Z; the node \
             was likely not yet Ready (a booting or recovering node carries node.kubernetes.io/not-ready until its \
             kubelet reports Ready, and the node controller then removes it): no toleration or taint removal needed \
             unless it recurs"
        )]
    );
}

/// New-user trial 46: about 100 pods of 5 ReplicaSets refused OutOfcpu by
/// minikube's kubelet within 40 s read as 101 unrelated rows; the loop per
/// owner is said first (query `refusal_loops`).
#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn erwee402s_create_refuse_loop_is_summed_per_replicaset() {
    let Some(real) = real_fixtures_or_skip("erwee402s_create_refuse_loop_is_summed_per_replicaset") else { return };
    let (_dir, store) = erwee402_store(&real);
    let loops = kdrift_analyze::refusal_loops(&store).expect("query");
    let rows: Vec<(&str, &str, &str, &str, u64, i64)> = loops
        .iter()
        .map(|l| {
            (
                l.owner_kind.as_str(),
                l.owner_name.as_str(),
                l.node.as_str(),
                l.reason.as_str(),
                l.pods,
                (l.last_at - l.first_at).num_seconds(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("ReplicaSet", "server-deployment-56d5dd7646", "minikube", "OutOfcpu", 41, 44),
            ("ReplicaSet", "client-deployment-85b74f5bb8", "minikube", "OutOfcpu", 17, 43),
            ("ReplicaSet", "worker-deployment-777cd8f685", "minikube", "OutOfcpu", 15, 39),
            ("ReplicaSet", "postgres-deployment-5cb56b774f", "minikube", "OutOfcpu", 15, 36),
            ("ReplicaSet", "redis-868ff4679d", "minikube", "OutOfcpu", 12, 40),
        ]
    );
    // The 89 refused after a FailedScheduling and the 11 placed at once: 100.
    assert_eq!(loops.iter().map(|l| l.pods).sum::<u64>(), 100);
    assert!(loops.iter().all(|l| l.namespace == "default"));
    let c = loops[0].counted.as_ref().expect("the kubelet's count");
    assert_eq!((c.resource.as_str(), c.used, c.capacity, c.free(), c.requested), ("cpu", 1775, 2000, 225, 500));
}
