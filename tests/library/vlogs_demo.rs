//! Done-when of the VictoriaLogs source: the demo scenario shipped into the
//! fake VictoriaLogs — every event version up to 30 minutes into the
//! pending window in each layout, pods and nodes through the OpenTelemetry
//! k8sobjects layout or, for the event-only layouts, from a dump file —
//! gives the same `why-pending` JSON for the CronJob pod as the dump-file
//! path: identical for raw and msg-json; for otel-k8sevents and kent
//! identical except the documented values those layouts cannot carry (see
//! [`expected`]); for otel-k8sobjects identical except where its Node
//! history is richer than a dump's last version (see [`with_node_history`]).
//! The pending pod's chain from its owner's template (issue 33) is checked
//! on the demo and on the generator's memory/taint variant.

use chrono::Duration;
use kdrift_analyze::why_pending;
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_ingest::{Auth, Layout};
use kdrift_scenario::{core_v1_view, generate, ObjectChange, Scenario, ScenarioConfig};
use kdrift_store::Store;
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
fn with_node_history(mut got: Value, reference: &Value, facts: &kdrift_scenario::ScenarioFacts) -> Value {
    let mut reference = reference.clone();
    let cordon = facts.drains[1].windows[0].cordoned_at;
    // The drain's start as the reference saw it (its first event), said in
    // the burst's summary and the next steps that quote it.
    let mut reference_start = None;
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
                    reference_start = t.as_str().and_then(|s| s.parse::<chrono::DateTime<chrono::Utc>>().ok());
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
    // The texts say the start to the second: node-1's cordon here.
    let Some(start) = reference_start else { return got };
    let text = serde_json::to_string(&got).expect("json");
    let ours = format!("from drain #2 ({})", kdrift_store::instant_text(cordon));
    let theirs = format!("from drain #2 ({})", kdrift_store::instant_text(start));
    serde_json::from_str(&text.replace(&ours, &theirs)).expect("json")
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

/// The latest version up to `until` of every object of `kind` still there
/// (what `kubectl get KIND -A -o json` lists then), as a `kind: List`.
fn list_of(scenario: &Scenario, until: chrono::DateTime<chrono::Utc>, kind: &str) -> Value {
    let mut latest: std::collections::BTreeMap<(String, String), Option<Value>> = Default::default();
    for r in scenario.records.iter().filter(|r| r.observed_at <= until) {
        if r.object.get("kind").and_then(Value::as_str) != Some(kind) {
            continue;
        }
        let text = |p: &str| r.object.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
        let key = (text("/metadata/namespace"), text("/metadata/name"));
        latest.insert(key, (r.change != ObjectChange::Deleted).then(|| r.object.clone()));
    }
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": latest.into_values().flatten().collect::<Vec<_>>()})
}

/// Two stores of a postmortem after the pod is gone: the events (shipped
/// through the VictoriaLogs raw layout, pulled from `start` − 1 h to `later`)
/// plus the later kubectl `snapshot`; the second also holds the pending
/// pod's own object (`own_file`).
fn events_and_snapshot(
    scenario: &Scenario,
    start: chrono::DateTime<chrono::Utc>,
    later: chrono::DateTime<chrono::Utc>,
    snapshot: &[std::path::PathBuf],
    own_file: std::path::PathBuf,
) -> [(tempfile::TempDir, Store); 2] {
    let vl = FakeVlogs::start();
    ship(&vl.url(), Layout::Raw, &sightings(scenario, later, &["Event"]), None);
    let options = test_options(start - Duration::hours(1), later + Duration::minutes(1), 2000);
    let load = |extra: Option<std::path::PathBuf>| {
        let (d, store) = temp_store();
        let files: Vec<_> = snapshot.iter().cloned().chain(extra).collect();
        assert_eq!(ingest_files(&store, &files, &mut NoProgress).expect("objects").error_count(), 0);
        let pulled = pull_blocking(&store, &vl.url(), Auth::default(), &options).expect("pull");
        assert_eq!((pulled.layout, pulled.error_count()), (Some(Layout::Raw), 0));
        (d, store)
    };
    [load(None), load(Some(own_file))]
}

#[test]
fn events_through_raw_and_a_later_snapshot_give_the_chain_of_the_pods_own_object_from_its_owners_template() {
    // Issue 33 item 1: the Job controller deleted the pending pod at the
    // deadline; the events sit in VictoriaLogs (raw layout) and pods, nodes,
    // jobs and cronjobs are dumped at the scenario's end. The chain from the
    // owner's template equals the chain with the pod's own object stored:
    // same node left, shortfall, excluded-node counts and drain.
    let Reference { scenario, .. } = reference();
    let facts = &scenario.facts;
    let later = facts.end;
    let (ns, pod) = (&facts.pending_pod.namespace, &facts.pending_pod.name);
    let dir = tempfile::tempdir().expect("tmp");
    let mut snapshot = write_dumps(scenario, later, dir.path(), &["pods.json", "nodes.json"]);
    for (file, kind) in [("jobs.json", "Job"), ("cronjobs.json", "CronJob")] {
        let p = dir.path().join(file);
        std::fs::write(&p, list_of(scenario, later, kind).to_string()).expect("write");
        snapshot.push(p);
    }
    // The pending pod's own last version, for the reference store only.
    let own = scenario
        .records
        .iter()
        .rev()
        .filter(|r| r.change != ObjectChange::Deleted)
        .filter(|r| r.object.get("kind").and_then(Value::as_str) == Some("Pod"))
        .find(|r| r.object.pointer("/metadata/name").and_then(Value::as_str) == Some(pod.as_str()))
        .expect("the pending pod's versions")
        .object
        .clone();
    assert!(!std::fs::read_to_string(&snapshot[0]).expect("pods").contains(pod.as_str()), "gone from the snapshot");
    let own_file = dir.path().join("pending-pod.json");
    std::fs::write(&own_file, own.to_string()).expect("write");

    let [(_d1, templated), (_d2, owned)] = events_and_snapshot(scenario, facts.start, later, &snapshot, own_file);
    let mut from_template = report(&templated, ns, pod);
    let with_object = report(&owned, ns, pod);

    let state = &from_template["state"];
    assert_eq!(state["pod_known"], true);
    assert_eq!(state["spec_from"]["source"], "owner's template", "{:#}", state["spec_from"]);
    assert_eq!(state["spec_from"]["kind"], "Job");
    assert_eq!(state["spec_from"]["name"], facts.job_name.as_str());
    assert_eq!(with_object["state"]["spec_from"], Value::Null);
    assert_eq!(state["left"], serde_json::json!(["node-1"]));
    assert_eq!(state["shortfalls"][0]["short"], 42, "node-1 is 42m short");
    let note =
        format!("the Pod object of {ns}/{pod} is not in the store: its spec is taken from its owner's template — Job");
    assert!(from_template["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .any(|n| n.as_str().is_some_and(|n| n.starts_with(&note))));
    // Apart from the marking and its note, the same chain.
    from_template["state"]["spec_from"] = Value::Null;
    for key in ["state", "why_full", "next_steps", "reasons"] {
        assert_eq!(from_template[key], with_object[key], "{key}");
    }
    // Its deletion is told by the Job's event instead of the pod's deletionTimestamp, at the same instant.
    assert_eq!(from_template["history"]["deleted_by"], format!("Job {} SuccessfulDelete", facts.job_name));
    from_template["history"]["deleted_by"] = with_object["history"]["deleted_by"].clone();
    assert_eq!(from_template["history"], with_object["history"]);
    let job = &facts.job_name;
    let chain_of = |store: &Store| {
        let pm = kdrift_analyze::postmortem_job(store, ns, job).expect("postmortem").expect("the Job");
        let mut v = serde_json::to_value(pm).expect("json");
        let runs = v["runs"].as_array_mut().into_iter().flatten();
        let chains: Vec<Value> = runs
            .flat_map(|r| r["pods"].as_array_mut().into_iter().flatten().map(|p| p["chain"].take()).collect::<Vec<_>>())
            .collect();
        chains.into_iter().find(|c| !c.is_null()).expect("a chain")
    };
    let (mut pm_template, pm_object) = (chain_of(&templated), chain_of(&owned));
    assert_eq!(pm_template["state"]["spec_from"]["kind"], "Job");
    pm_template["state"]["spec_from"] = Value::Null;
    for key in ["state", "why_full", "next_steps"] {
        assert_eq!(pm_template[key], pm_object[key], "postmortem job {job}: {key}");
    }
}

/// `why-pending` of the pending pod and the chain `postmortem job` shows for it, as JSON.
fn pending_and_postmortem(store: &Store, ns: &str, pod: &str, job: &str) -> (Value, Value) {
    let report = report(store, ns, pod);
    let pm = kdrift_analyze::postmortem_job(store, ns, job).expect("postmortem").expect("the Job");
    let mut v = serde_json::to_value(pm).expect("json");
    let runs = v["runs"].as_array_mut().into_iter().flatten();
    let chains: Vec<Value> = runs
        .flat_map(|r| r["pods"].as_array_mut().into_iter().flatten().map(|p| p["chain"].take()).collect::<Vec<_>>())
        .collect();
    (report, chains.into_iter().find(|c| !c.is_null()).expect("a chain"))
}

#[test]
fn memory_short_cronjob_pod_behind_a_taint_gets_the_same_chain_from_events_and_a_dump_after_a_scale_down() {
    // Issue 33, Done-when 1, with the generator's memory/taint variant: the
    // backup pod (3Gi memory, no CPU, required pod affinity to plex) stays
    // Pending until the Job's deadline; node-1 (plex's) is 50331648 bytes
    // short, node-2 carries dedicated=gpu:NoSchedule, node-3..5 have no plex.
    // At 07:00 queue-worker is scaled 14 → 4, deleting its 4 pods on node-1,
    // so the dump of pods, nodes, jobs and cronjobs taken two hours later
    // shows node-1 with room for the 3Gi. Store A: the events through the
    // VictoriaLogs raw layout + that dump; store B: the same plus the pod's
    // own last version. Same node left, shortfall in bytes, excluded-node
    // counts and drain; A marks what comes from the owner's template.
    let variant = kdrift_scenario::memory_taint(11);
    let (scenario, mem) = (&variant.scenario, &variant.facts);
    let facts = &scenario.facts;
    let later = facts.end + Duration::hours(2);
    let (ns, pod, job) = (&facts.pending_pod.namespace, &facts.pending_pod.name, &facts.job_name);
    let dir = tempfile::tempdir().expect("tmp");
    let mut snapshot = write_dumps(scenario, later, dir.path(), &["pods.json", "nodes.json"]);
    for (file, kind) in [("jobs.json", "Job"), ("cronjobs.json", "CronJob")] {
        let p = dir.path().join(file);
        std::fs::write(&p, list_of(scenario, later, kind).to_string()).expect("write");
        snapshot.push(p);
    }
    let dumped = std::fs::read_to_string(&snapshot[0]).expect("pods");
    assert!(!dumped.contains(pod.as_str()), "the pending pod is gone from the dump");
    for deleted in &mem.deleted_from_pinned_node {
        assert!(!dumped.contains(deleted.as_str()), "{deleted} was scaled away before the dump");
    }
    let own = scenario
        .records
        .iter()
        .rev()
        .filter(|r| r.change != ObjectChange::Deleted)
        .filter(|r| r.object.get("kind").and_then(Value::as_str) == Some("Pod"))
        .find(|r| r.object.pointer("/metadata/name").and_then(Value::as_str) == Some(pod.as_str()))
        .expect("the pending pod's versions")
        .object
        .clone();
    let own_file = dir.path().join("pending-pod.json");
    std::fs::write(&own_file, own.to_string()).expect("write");

    let [(dir_a, templated), (dir_b, owned)] = events_and_snapshot(scenario, facts.start, later, &snapshot, own_file);
    let (a, pm_a) = pending_and_postmortem(&templated, ns, pod, job);
    let (b, pm_b) = pending_and_postmortem(&owned, ns, pod, job);
    // The full object history (every version of every object, the pod's own included).
    let (_d3, full) = temp_store();
    kdrift_ingest::ingest_scenario(&full, scenario.clone(), 11).expect("full history");
    let (c, pm_c) = pending_and_postmortem(&full, ns, pod, job);

    // The figures of the story, in A as with the pod's own object (B) and with every version (C).
    let short = mem.memory_shortfall_bytes;
    assert_eq!(short, 50_331_648, "48Mi");
    let affinity = ["node-2", "node-3", "node-4", "node-5"];
    for (name, v) in
        [("A", &a), ("B", &b), ("C", &c), ("postmortem A", &pm_a), ("postmortem B", &pm_b), ("postmortem C", &pm_c)]
    {
        let state = &v["state"];
        assert_eq!(state["left"], serde_json::json!([mem.pinned_node]), "{name}: node-1 is left by the constraints");
        assert_eq!(
            state["pod_requests"],
            serde_json::json!([["memory", mem.pending_pod_memory_request_bytes]]),
            "{name}"
        );
        let expected = serde_json::json!([{
            "node": "node-1", "resource": "memory",
            "requested": 3_221_225_472_i64, "free": 3_170_893_824_i64, "short": short,
            "display": ["3 GiB", "2.95 GiB", "48 MiB"],
        }]);
        assert_eq!(state["shortfalls"], expected, "{name}: not fooled by the dump after the scale-down");
        let constraints: Vec<(String, Value)> = state["constraints"]
            .as_array()
            .expect("constraints")
            .iter()
            .map(|c| (c["plugin"].as_str().unwrap_or("").to_string(), c["nodes"].clone()))
            .collect();
        assert_eq!(
            constraints,
            [
                ("TaintToleration".to_string(), serde_json::json!(["node-2"])),
                ("InterPodAffinity".into(), serde_json::json!(affinity))
            ],
            "{name}"
        );
        let recorded = |reason: &str| {
            state["nodes"].as_array().into_iter().flatten().filter(|n| n["recorded_as"] == reason).count()
        };
        assert_eq!(
            (
                recorded("Insufficient memory"),
                recorded("node(s) had untolerated taint(s)"),
                recorded("node(s) didn't match pod affinity rules")
            ),
            (1, 1, 3),
            "{name}: excluded-node counts"
        );
        assert_eq!(state["matches_event"], true, "{name}");
        let counts: Vec<(String, Value)> = v["reasons"]
            .as_array()
            .expect("reasons")
            .iter()
            .map(|r| (r["kind"].as_str().unwrap_or("").to_string(), r["nodes"].clone()))
            .collect();
        assert_eq!(
            counts,
            [
                ("insufficient".to_string(), 1.into()),
                ("untolerated_taint".into(), 1.into()),
                ("pod_affinity".into(), 3.into())
            ],
            "{name}"
        );
        // Why node-1 is full: its memory requested at the failure (not the
        // dump's 4577034240), filled by drain #2's burst.
        let fill = &v["why_full"]["fills"][0];
        assert_eq!((&fill["node"], &fill["resource"]), (&"node-1".into(), &"memory".into()), "{name}");
        assert_eq!(fill["requested"], mem.requested_memory_bytes_at_failure, "{name}");
        assert_eq!(mem.requested_memory_bytes_at_failure, 5_113_905_152);
        assert_eq!(fill["bursts"][0]["operation"], 2, "{name}: drain #2");
        let plex = fill["holders"].as_array().into_iter().flatten().find(|h| h["name"] == facts.plex.name.as_str());
        let arrival = &plex.expect("plex holds node-1's memory")["arrival"];
        assert_eq!(
            (&arrival["kind"], &arrival["operation"], &arrival["in_burst"]),
            (&"drain".into(), &2.into(), &true.into()),
            "{name}"
        );
    }
    // The same holders and arrivals with every version stored; only the drain's start and the
    // anchor's story are finer there (Node history: the cordon instant, not the event 10 s later).
    let holders = |v: &Value| -> Vec<(Value, Value, Value, Value)> {
        let fill = &v["why_full"]["fills"][0];
        let holders = fill["holders"].as_array().into_iter().flatten();
        holders
            .map(|h| {
                (
                    h["name"].clone(),
                    h["request"].clone(),
                    h["arrival"]["kind"].clone(),
                    h["arrival"]["operation"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(holders(&a), holders(&c));
    assert_eq!(holders(&pm_a), holders(&pm_c));

    // A marks what comes from the template; the rest is B's, section by section.
    for (name, (mut x, y)) in [("why-pending", (a, b)), ("postmortem job", (pm_a, pm_b))] {
        let spec_from = &x["state"]["spec_from"];
        assert_eq!(spec_from["source"], "owner's template", "{name}: {spec_from:#}");
        assert_eq!((&spec_from["kind"], &spec_from["name"]), (&"Job".into(), &job.as_str().into()), "{name}");
        assert_eq!(y["state"]["spec_from"], Value::Null, "{name}: the pod's own object");
        let note = format!(
            "the Pod object of {ns}/{pod} is not in the store: its spec is taken from its owner's template — Job"
        );
        assert!(
            x["notes"].as_array().into_iter().flatten().any(|n| n.as_str().is_some_and(|n| n.starts_with(&note))),
            "{name}"
        );
        x["state"]["spec_from"] = Value::Null;
        for key in ["state", "why_full", "next_steps", "reasons", "relief"] {
            assert_eq!(x[key], y[key], "{name}: {key}");
        }
    }
    // The terminal tables mark the same values (`kdrift why-pending`, `kdrift postmortem job`).
    drop((templated, owned));
    let text = |dir: &tempfile::TempDir, args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("kdrift")
            .expect("binary")
            .arg("--db")
            .arg(dir.path().join("test.duckdb"))
            .args(args)
            .output()
            .expect("run kdrift");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let (pod_ref, job_ref) = (format!("{ns}/{pod}"), format!("{ns}/{job}"));
    for args in [["why-pending", pod_ref.as_str()], ["postmortem job", job_ref.as_str()]] {
        let args: Vec<&str> = args.iter().flat_map(|a| a.split(' ')).collect();
        let (a, b) = (text(&dir_a, &args), text(&dir_b, &args));
        for needle in [
            "left after the constraints: node-1",
            "node-1 memory: the pod requests 3 GiB, 2.95 GiB free → 48 MiB short",
        ] {
            assert!(a.contains(needle) && b.contains(needle), "{args:?}: {needle:?} in\n{a}\n---\n{b}");
        }
        assert!(a.contains("the pod requests: memory 3 GiB (from the owner's template)"), "{args:?}:\n{a}");
        assert!(!b.contains("(from the owner's template)"), "{args:?}:\n{b}");
    }
}

/// A store of the after-the-fact files ([`kdrift_tests::after_the_fact`]) named in `keep`.
fn after_the_fact_store(scenario: &Scenario, keep: &[&str]) -> (tempfile::TempDir, tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tmp");
    let files: Vec<_> = kdrift_tests::after_the_fact::write_files(scenario, dir.path())
        .into_iter()
        .filter(|p| keep.iter().any(|k| p.ends_with(k)))
        .collect();
    let (d, store) = temp_store();
    assert_eq!(ingest_files(&store, &files, &mut NoProgress).expect("ingest").error_count(), 0);
    (dir, d, store)
}

#[test]
fn postmortem_finds_the_gone_pod_of_the_job_from_its_deleted_pod_and_failed_scheduling_events() {
    // A new user's store: the pods/nodes/jobs/cronjobs dump at 05:30:01 on
    // day 2 and the last hour's events. The pending pod's object and the
    // Job's `Created pod:` event are gone; its `Deleted pod:` event and
    // FailedScheduling event remain. The postmortem finds it and carries
    // the why-pending chain of the full-history store (node-1 42m short).
    let Reference { scenario, answer, .. } = reference();
    let facts = &scenario.facts;
    let all = ["events.json", "pods.json", "nodes.json", "jobs.json", "cronjobs.json"];
    let (_f, _d, store) = after_the_fact_store(scenario, &all);
    let pm = kdrift_analyze::postmortem_job(&store, &facts.cronjob_namespace, &facts.cronjob_name)
        .expect("postmortem")
        .expect("the CronJob");
    assert_eq!(pm.runs.len(), 1);
    let run = &pm.runs[0];
    assert_eq!(run.name, facts.job_name);
    assert_eq!(run.no_pods, None);
    let names: Vec<&str> = run.pods.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, [facts.pending_pod.name.as_str()], "the run's one pod, no other run's");
    let pod = &run.pods[0];
    assert_eq!((pod.outcome.as_str(), pod.deleted, pod.reconstructed), ("never-started", true, true));
    assert_eq!(pod.found_by, ["deleted-event", "pod-events"]);
    let chain = serde_json::to_value(pod.chain.as_ref().expect("the why-pending chain")).expect("JSON");
    assert_eq!(chain["state"]["left"], serde_json::json!(["node-1"]));
    assert_eq!(chain["state"]["shortfalls"][0]["short"], 42, "node-1 is 42m short");
    assert_eq!(chain["state"]["shortfalls"], answer["state"]["shortfalls"], "the full-history store's shortfalls");
    assert_eq!(chain["state"]["spec_from"]["source"], "owner's template");
    assert_eq!(chain, report(&store, &facts.pending_pod.namespace, &facts.pending_pod.name), "why-pending's chain");

    // Without any event or pod: the Jobs alone, and one line of what was looked for.
    let (_f, _d, bare) = after_the_fact_store(scenario, &["jobs.json", "cronjobs.json"]);
    let pm = kdrift_analyze::postmortem_job(&bare, &facts.cronjob_namespace, &facts.job_name)
        .expect("postmortem")
        .expect("the Job");
    assert!(pm.runs[0].pods.is_empty());
    assert_eq!(
        pm.runs[0].no_pods.as_deref(),
        Some(
            "no pod of Job media/backup-29930640 in the store (looked for pods owned by the Job, its `Created pod:` \
             and `Deleted pod:` events, and events of pods named backup-29930640-xxxxx since its creation)"
        )
    );
}

#[test]
fn a_pasted_pending_pod_is_found_by_name_alone_and_pending_from_its_creation_to_the_listing() {
    // No event: the pod's PodScheduled condition (04:00) stands for the
    // failure, and it was still Pending when listed at 05:15 — 1h 15m.
    let Reference { scenario, .. } = reference();
    let facts = &scenario.facts;
    let (ns, name) = (&facts.pending_pod.namespace, &facts.pending_pod.name);
    let listed = facts.job_created_at + Duration::minutes(75);
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("pod.yaml");
    std::fs::write(&file, kdrift_tests::after_the_fact::pasted_pod_yaml(scenario, listed, None)).expect("write");
    let (_d, store) = temp_store();
    assert_eq!(ingest_files(&store, &[file], &mut NoProgress).expect("ingest").error_count(), 0);
    assert_eq!(kdrift_analyze::pod_name_namespaces(&store, name).expect("lookup"), [ns.as_str()]);
    let pending = kdrift_analyze::pending_pods(&store).expect("list");
    let row = pending.iter().find(|p| &p.name == name).expect("listed");
    let created: chrono::DateTime<chrono::Utc> = "2026-11-28T04:00:00Z".parse().expect("time");
    assert_eq!((row.first_failure, row.pending_seconds), (created, 4500));
    let chain = report(&store, ns, name);
    assert_eq!(chain["history"]["pending_seconds"], 4500);
    assert_eq!(chain["history"]["first_failure"], serde_json::json!(created));

    // The same pod pasted in a second namespace: the name alone is ambiguous.
    let other = dir.path().join("other.yaml");
    std::fs::write(&other, kdrift_tests::after_the_fact::pasted_pod_yaml(scenario, listed, Some("other")))
        .expect("write");
    assert_eq!(ingest_files(&store, &[other], &mut NoProgress).expect("ingest").error_count(), 0);
    assert_eq!(kdrift_analyze::pod_name_namespaces(&store, name).expect("lookup"), [ns.as_str(), "other"]);
}
