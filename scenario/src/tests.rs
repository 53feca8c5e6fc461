//! Tests of the demo scenario: determinism, the story's numbers recomputed
//! from the emitted objects (never from the generator's own bookkeeping),
//! event shapes, resourceVersions, kubectl lists and scale.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use super::*;

const NOTE: &str = "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match pod affinity rules. preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.";

fn scenario(seed: u64) -> Scenario {
    generate(&ScenarioConfig { seed, scale: 1 })
}

/// The seed-1 scenario, generated once for the read-only tests.
fn seed1() -> &'static Scenario {
    static SCENARIO: std::sync::OnceLock<Scenario> = std::sync::OnceLock::new();
    SCENARIO.get_or_init(|| scenario(1))
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn t(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).expect("valid time").with_timezone(&Utc)
}

fn rv(r: &ScenarioRecord) -> u64 {
    s(&r.object, "/metadata/resourceVersion").parse().expect("numeric resourceVersion")
}

/// CPU quantity in millicores: `100m`, `2`, `1.5`.
fn millis(q: &str) -> i64 {
    match q.strip_suffix('m') {
        Some(m) => m.parse().expect("millicores"),
        None => (q.parse::<f64>().expect("cores") * 1000.0).round() as i64,
    }
}

fn pod_cpu(pod: &Value) -> i64 {
    pod["spec"]["containers"]
        .as_array()
        .expect("containers")
        .iter()
        .map(|c| c.pointer("/resources/requests/cpu").and_then(Value::as_str).map_or(0, millis))
        .sum()
}

/// Latest version of every pod present at `at` (by uid).
fn pods_at(sc: &Scenario, at: DateTime<Utc>) -> BTreeMap<String, Value> {
    let mut pods = BTreeMap::new();
    for r in sc.records.iter().take_while(|r| r.observed_at <= at) {
        if r.object["kind"] != "Pod" {
            continue;
        }
        let uid = s(&r.object, "/metadata/uid").to_string();
        match r.change {
            ObjectChange::Deleted => {
                pods.remove(&uid);
            }
            _ => {
                pods.insert(uid, r.object.clone());
            }
        }
    }
    pods
}

/// CPU requested per node by non-terminal bound pods at `at`.
fn requested_at(sc: &Scenario, at: DateTime<Utc>) -> BTreeMap<String, i64> {
    let mut sums = BTreeMap::new();
    for pod in pods_at(sc, at).values() {
        let node = s(pod, "/spec/nodeName");
        let phase = s(pod, "/status/phase");
        if node.is_empty() || phase == "Succeeded" || phase == "Failed" {
            continue;
        }
        *sums.entry(node.to_string()).or_insert(0) += pod_cpu(pod);
    }
    sums
}

fn is_uuid(u: &str) -> bool {
    let parts: Vec<&str> = u.split('-').collect();
    parts.iter().map(|p| p.len()).collect::<Vec<_>>() == [8, 4, 4, 4, 12]
        && u.chars().all(|c| c == '-' || c.is_ascii_hexdigit())
}

#[test]
fn same_seed_gives_identical_records() {
    assert_eq!(scenario(7), scenario(7));
}

#[test]
fn other_seed_changes_identifiers_not_the_story() {
    let (a, b) = (scenario(1), scenario(2));
    assert_eq!(a.records.len(), b.records.len());
    assert_ne!(a.facts.pending_pod.name, b.facts.pending_pod.name);
    assert_ne!(a.facts.pending_pod.uid, b.facts.pending_pod.uid);
    assert_eq!(a.facts.usage_at_failure, b.facts.usage_at_failure);
    assert_eq!(a.facts.drains, b.facts.drains);
    assert_eq!(a.facts.failed_scheduling_note, b.facts.failed_scheduling_note);
    assert_eq!(a.facts.failure_at, b.facts.failure_at);
    assert_eq!(a.facts.burst_pods.len(), b.facts.burst_pods.len());
    for (x, y) in a.records.iter().zip(&b.records) {
        assert_eq!((x.observed_at, x.change, rv(x)), (y.observed_at, y.change, rv(y)));
        assert_eq!(x.object["kind"], y.object["kind"]);
    }
    assert_eq!(requested_at(&a, a.facts.failure_at), requested_at(&b, b.facts.failure_at));
}

#[test]
fn end_state_recomputed_from_pod_objects() {
    let sc = seed1();
    let f = &sc.facts;
    let sums = requested_at(sc, f.failure_at);
    assert_eq!(sums["node-1"], 1942);
    assert_eq!(sums["node-5"], 580);
    assert_eq!(2000 - sums["node-1"], 58);
    assert_eq!(sums["node-1"] * 100 / 2000, 97);
    assert_eq!(sums["node-5"] * 100 / 2000, 29);
    for n in ["node-2", "node-3", "node-4"] {
        let pct = sums[n] * 100 / 2000;
        assert!((30..=60).contains(&pct), "{n} at {pct} %");
    }
    // The facts agree with the objects.
    for u in &f.usage_at_failure {
        assert_eq!(u.requested_cpu_millis, sums[&u.node], "{}", u.node);
    }
    let n1 = f.usage("node-1").expect("node-1");
    assert_eq!((n1.requested_cpu_millis, n1.free_cpu_millis, n1.requested_percent), (1942, 58, 97));
    assert_eq!(f.usage("node-5").map(|u| u.requested_percent), Some(29));
    // The day-1 backup pod still exists, Succeeded, and is not counted.
    let pods = pods_at(sc, f.failure_at);
    let prev = pods.get(&f.previous_pod.uid).expect("previous backup pod");
    assert_eq!(s(prev, "/status/phase"), "Succeeded");
    // The pending pod asks for 100m and plex sits on node-1.
    let pending = pods.get(&f.pending_pod.uid).expect("pending pod");
    assert_eq!(pod_cpu(pending), 100);
    assert_eq!(f.pending_pod_cpu_request_millis, 100);
    assert_eq!(s(pending, "/spec/nodeName"), "");
    let plex = pods.get(&f.plex.uid).expect("plex");
    assert_eq!(s(plex, "/spec/nodeName"), "node-1");
    assert_eq!(s(plex, "/metadata/labels/app"), "plex");
    assert_eq!(plex.pointer("/spec/containers/0/resources/requests/gpu.intel.com~1i915"), Some(&Value::from("1")));
    let affinity = &pending["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
    assert_eq!(affinity["labelSelector"]["matchLabels"]["app"], "plex");
    assert_eq!(affinity["topologyKey"], "kubernetes.io/hostname");
}

#[test]
fn failed_scheduling_event_and_condition() {
    let sc = seed1();
    let f = &sc.facts;
    assert_eq!(f.failed_scheduling_note, NOTE);
    let failed: Vec<&ScenarioRecord> =
        sc.records.iter().filter(|r| r.object["kind"] == "Event" && r.object["reason"] == "FailedScheduling").collect();
    // One Event object, several versions, all about the backup pod.
    let names: BTreeSet<&str> = failed.iter().map(|r| s(&r.object, "/metadata/name")).collect();
    assert_eq!(names.into_iter().collect::<Vec<_>>(), vec![f.failed_scheduling_event.as_str()]);
    assert!(failed.len() >= 3 && failed.len() == f.failed_scheduling_versions);
    assert_eq!(failed[0].change, ObjectChange::Added);
    let uids: BTreeSet<&str> = failed.iter().map(|r| s(&r.object, "/metadata/uid")).collect();
    assert_eq!(uids.len(), 1);
    let mut last: Option<(i64, String, u64)> = None;
    for r in &failed {
        let e = &r.object;
        assert_eq!(s(e, "/apiVersion"), "events.k8s.io/v1");
        assert_eq!(s(e, "/type"), "Warning");
        assert_eq!(s(e, "/action"), "Scheduling");
        assert_eq!(s(e, "/reportingController"), "default-scheduler");
        assert_eq!(s(e, "/note"), NOTE);
        assert_eq!(s(e, "/regarding/name"), f.pending_pod.name);
        assert_eq!(s(e, "/regarding/uid"), f.pending_pod.uid);
        let count = e.pointer("/series/count").and_then(Value::as_i64).unwrap_or(1);
        let observed = s(e, "/series/lastObservedTime").to_string();
        if let Some((c, o, v)) = &last {
            assert!(count > *c, "series.count must grow");
            assert!(observed > *o, "lastObservedTime must grow");
            assert!(rv(r) > *v);
        }
        last = Some((count, observed, rv(r)));
    }
    assert_eq!(last.map(|l| l.0), Some(i64::from(f.failed_scheduling_count)));
    // The pod's condition carries the same text.
    let pods = pods_at(sc, f.failure_at + Duration::minutes(30));
    let pod = pods.get(&f.pending_pod.uid).expect("pending pod");
    let cond = pod["status"]["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .find(|c| c["type"] == "PodScheduled")
        .expect("PodScheduled");
    assert_eq!(
        (cond["status"].as_str(), cond["reason"].as_str(), cond["message"].as_str()),
        (Some("False"), Some("Unschedulable"), Some(NOTE))
    );
    assert_eq!(s(pod, "/status/phase"), "Pending");
}

#[test]
fn records_sorted_and_resource_versions_strictly_increase() {
    let sc = scenario(3);
    for w in sc.records.windows(2) {
        assert!(w[0].observed_at <= w[1].observed_at);
        assert!(rv(&w[0]) < rv(&w[1]), "{} then {}", rv(&w[0]), rv(&w[1]));
    }
}

#[test]
fn objects_have_metadata_and_consistent_uids() {
    let sc = seed1();
    let mut identity: BTreeMap<String, (String, String, String)> = BTreeMap::new();
    for r in &sc.records {
        let o = &r.object;
        for field in ["/apiVersion", "/kind", "/metadata/name", "/metadata/uid", "/metadata/creationTimestamp"] {
            assert!(!s(o, field).is_empty(), "{field} missing in {o}");
        }
        t(s(o, "/metadata/creationTimestamp"));
        let uid = s(o, "/metadata/uid");
        assert!(is_uuid(uid), "uid {uid}");
        let id =
            (s(o, "/kind").to_string(), s(o, "/metadata/namespace").to_string(), s(o, "/metadata/name").to_string());
        assert_eq!(identity.entry(uid.to_string()).or_insert_with(|| id.clone()), &id);
        if s(o, "/kind") != "Node" {
            assert!(!s(o, "/metadata/namespace").is_empty());
        }
    }
}

#[test]
fn events_have_the_fields_their_api_requires() {
    let sc = seed1();
    let mut seen = (0, 0);
    for r in sc.records.iter().filter(|r| r.object["kind"] == "Event") {
        let e = &r.object;
        let name = s(e, "/metadata/name");
        let (object, hex) = name.rsplit_once('.').expect("<object>.<hex>");
        assert!(hex.len() == 16 && hex.chars().all(|c| c.is_ascii_hexdigit()), "{name}");
        match s(e, "/apiVersion") {
            "v1" => {
                seen.0 += 1;
                for f in [
                    "/involvedObject/kind",
                    "/involvedObject/name",
                    "/involvedObject/uid",
                    "/reason",
                    "/message",
                    "/source/component",
                    "/type",
                ] {
                    assert!(!s(e, f).is_empty(), "{f} missing in {e}");
                }
                assert_eq!(object, s(e, "/involvedObject/name"));
                assert!(e["count"].as_i64().is_some_and(|c| c >= 1));
                assert!(t(s(e, "/firstTimestamp")) <= t(s(e, "/lastTimestamp")));
                assert!(e["eventTime"].is_null());
                if s(e, "/source/component") == "kubelet" {
                    assert!(!s(e, "/source/host").is_empty(), "kubelet event without host: {e}");
                    if s(e, "/involvedObject/kind") == "Node" {
                        assert_eq!(s(e, "/involvedObject/uid"), s(e, "/involvedObject/name"));
                    }
                }
                if s(e, "/involvedObject/kind") == "Node" {
                    assert_eq!(s(e, "/metadata/namespace"), "default");
                } else {
                    assert_eq!(s(e, "/metadata/namespace"), s(e, "/involvedObject/namespace"));
                }
            }
            "events.k8s.io/v1" => {
                seen.1 += 1;
                for f in [
                    "/regarding/kind",
                    "/regarding/name",
                    "/regarding/uid",
                    "/reason",
                    "/note",
                    "/action",
                    "/reportingController",
                    "/reportingInstance",
                    "/type",
                ] {
                    assert!(!s(e, f).is_empty(), "{f} missing in {e}");
                }
                assert_eq!(object, s(e, "/regarding/name"));
                let et = s(e, "/eventTime");
                assert_eq!(et.len(), "2026-11-27T00:00:00.000000Z".len(), "microseconds: {et}");
                t(et);
                if let Some(series) = e.get("series") {
                    assert!(series["count"].as_i64().is_some_and(|c| c >= 2));
                    t(s(series, "/lastObservedTime"));
                }
                assert!(e.get("count").is_none() && e["deprecatedFirstTimestamp"].is_null());
            }
            other => panic!("unexpected apiVersion {other}"),
        }
        assert!(matches!(s(e, "/type"), "Normal" | "Warning"));
    }
    assert!(seen.0 > 100 && seen.1 > 100, "{seen:?}");
}

#[test]
fn timeline_of_the_story() {
    let sc = seed1();
    let f = &sc.facts;
    assert_eq!(f.start, t("2026-11-27T00:00:00Z"));
    assert_eq!(f.drains.len(), 2);
    assert_eq!(f.drains[0].started_at, t("2026-11-27T02:00:00Z"));
    assert_eq!(f.drains[1].started_at, t("2026-11-28T02:00:00Z"));
    for d in &f.drains {
        let order: Vec<&str> = d.windows.iter().map(|w| w.node.as_str()).collect();
        assert_eq!(order, ["node-1", "node-2", "node-3", "node-4", "node-5"]);
        let first_back = d.windows.iter().min_by_key(|w| w.ready_at).map(|w| w.node.as_str());
        assert_eq!(first_back, Some("node-1"));
        for w in &d.windows {
            assert!(w.cordoned_at < w.evicted_at && w.evicted_at < w.ready_at && w.ready_at < w.uncordoned_at);
        }
    }
    // The burst: most of node-1's pods land within 3 minutes of its Ready, plex among them.
    assert!(f.burst_pods.len() >= 15, "{}", f.burst_pods.len());
    assert!(f.burst_pods.contains(&format!("media/{}", f.plex.name)));
    assert!(f.plex_bound_at > f.burst_ready_at && f.plex_bound_at < f.burst_ready_at + Duration::minutes(3));
    assert_eq!(f.plex.node.as_deref(), Some("node-1"));
    // The jobs.
    assert_eq!(f.previous_job_name, "backup-29929200");
    assert_eq!(f.job_name, "backup-29930640");
    assert!(
        f.pending_pod.name.starts_with("backup-29930640-") && f.pending_pod.name.len() == "backup-29930640-".len() + 5
    );
    assert!(f.job_created_at >= t("2026-11-28T04:00:00Z") && f.job_created_at < t("2026-11-28T04:00:01Z"));
    assert_eq!(f.active_deadline_seconds, 5400);
    assert!(f.deadline_exceeded_at >= f.job_created_at + Duration::seconds(5400));
    assert!(f.pending_pod_deleted_at - f.failure_at >= Duration::minutes(89));
    // Nothing else ever failed to schedule.
    let others = sc
        .records
        .iter()
        .filter(|r| {
            r.object["kind"] == "Event"
                && r.object["reason"] == "FailedScheduling"
                && s(&r.object, "/regarding/name") != f.pending_pod.name
        })
        .count();
    assert_eq!(others, 0);
    // Job controller events at the deadline.
    let reasons: Vec<(&str, &str)> = sc
        .records
        .iter()
        .filter(|r| r.observed_at >= f.deadline_exceeded_at - Duration::seconds(1) && r.object["kind"] == "Event")
        .map(|r| (s(&r.object, "/reason"), s(&r.object, "/message")))
        .collect();
    assert!(reasons.contains(&("DeadlineExceeded", "Job was active longer than specified deadline")));
    assert!(reasons.contains(&("SuccessfulDelete", format!("Deleted pod: {}", f.pending_pod.name).as_str())));
    let pod_versions: Vec<&ScenarioRecord> =
        sc.records.iter().filter(|r| s(&r.object, "/metadata/uid") == f.pending_pod.uid).collect();
    let n = pod_versions.len();
    assert!(pod_versions[n - 2].object["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(pod_versions[n - 1].change, ObjectChange::Deleted);
    let job_failed = sc
        .records
        .iter()
        .rev()
        .find(|r| r.object["kind"] == "Job" && s(&r.object, "/metadata/name") == f.job_name)
        .expect("job");
    assert!(job_failed.object["status"]["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .any(|c| c["type"] == "Failed" && c["reason"] == "DeadlineExceeded"));
}

#[test]
fn a_drain_leaves_the_documented_traces() {
    let sc = seed1();
    let w = &sc.facts.drains[1].windows[1]; // node-2 in drain #2
    let events: Vec<&Value> = sc.records.iter().filter(|r| r.object["kind"] == "Event").map(|r| &r.object).collect();
    let about_node = |reason: &str| {
        events
            .iter()
            .filter(|e| s(e, "/reason") == reason && s(e, "/involvedObject/name") == w.node)
            .map(|e| t(s(e, "/firstTimestamp")))
            .collect::<Vec<_>>()
    };
    let not_sched = about_node("NodeNotSchedulable");
    assert!(not_sched
        .iter()
        .any(|x| *x - w.cordoned_at >= Duration::seconds(9) && *x - w.cordoned_at <= Duration::seconds(12)));
    // Core events carry whole seconds.
    let sec = Duration::seconds(1);
    assert!(about_node("NodeSchedulable").iter().any(|x| *x >= w.uncordoned_at - sec));
    assert!(about_node("Starting").iter().any(|x| *x > w.evicted_at - sec && *x < w.ready_at));
    assert!(about_node("NodeReady").iter().any(|x| *x >= w.ready_at - sec));
    let rebooted = events
        .iter()
        .find(|e| {
            s(e, "/reason") == "Rebooted"
                && s(e, "/involvedObject/name") == w.node
                && t(s(e, "/firstTimestamp")) > w.cordoned_at
        })
        .expect("Rebooted");
    assert_eq!(s(rebooted, "/type"), "Warning");
    let boot_id = s(rebooted, "/message").rsplit(' ').next().expect("boot id").to_string();
    assert!(s(rebooted, "/message").starts_with(&format!("Node {} has been rebooted, boot id: ", w.node)));
    // Node versions: cordoned with taint, then the new boot id, then uncordoned.
    let versions: Vec<&ScenarioRecord> =
        sc.records.iter().filter(|r| r.object["kind"] == "Node" && s(&r.object, "/metadata/name") == w.node).collect();
    let cordoned = versions.iter().find(|r| r.observed_at == w.cordoned_at).expect("cordon version");
    assert_eq!(cordoned.object["spec"]["unschedulable"], true);
    assert!(cordoned.object["spec"]["taints"]
        .as_array()
        .expect("taints")
        .iter()
        .any(|x| x["key"] == "node.kubernetes.io/unschedulable" && x["effect"] == "NoSchedule"));
    let ready = versions.iter().find(|r| r.observed_at == w.ready_at).expect("ready version");
    assert_eq!(s(&ready.object, "/status/nodeInfo/bootID"), boot_id);
    assert!(ready.object["status"]["conditions"].as_array().expect("conditions").iter().any(|c| c["type"] == "Ready"
        && c["status"] == "True"
        && s(c, "/lastTransitionTime") == events::ts(w.ready_at)));
    let last = versions.iter().rev().find(|r| r.observed_at <= w.uncordoned_at).expect("uncordon version");
    assert!(last.object["spec"].get("unschedulable").is_none() && last.object["spec"].get("taints").is_none());
    // Evicted pods: DisruptionTarget, deletionTimestamp, Killing, Deleted, and a replacement.
    let evicted: Vec<&ScenarioRecord> = sc
        .records
        .iter()
        .filter(|r| r.object["kind"] == "Pod" && r.observed_at >= w.cordoned_at && r.observed_at <= w.evicted_at)
        .filter(|r| {
            r.object["status"]["conditions"].as_array().is_some_and(|c| {
                c.iter().any(|c| {
                    c["type"] == "DisruptionTarget"
                        && c["reason"] == "EvictionByEvictionAPI"
                        && c["message"] == "Eviction API: evicting"
                })
            })
        })
        .filter(|r| r.object["metadata"].get("deletionTimestamp").is_none())
        .collect();
    assert_eq!(evicted.len(), w.evicted_pods);
    for e in evicted {
        let uid = s(&e.object, "/metadata/uid");
        let name = s(&e.object, "/metadata/name");
        let later: Vec<&ScenarioRecord> = sc
            .records
            .iter()
            .filter(|r| s(&r.object, "/metadata/uid") == uid && r.observed_at >= e.observed_at)
            .collect();
        assert!(later.iter().any(|r| r.object["metadata"]["deletionTimestamp"].is_string()));
        assert_eq!(later.last().map(|r| r.change), Some(ObjectChange::Deleted));
        assert!(events.iter().any(|x| s(x, "/reason") == "Killing"
            && s(x, "/involvedObject/name") == name
            && s(x, "/source/host") == w.node));
        let rs = s(&e.object, "/metadata/ownerReferences/0/name");
        let created = events
            .iter()
            .find(|x| {
                s(x, "/reason") == "SuccessfulCreate"
                    && s(x, "/involvedObject/name") == rs
                    && t(s(x, "/firstTimestamp")) >= e.observed_at - Duration::seconds(1)
            })
            .expect("replacement");
        let replacement = s(created, "/message").trim_start_matches("Created pod: ").to_string();
        assert!(replacement.starts_with(&format!("{rs}-")));
        assert!(sc.records.iter().any(|r| r.object["reason"] == "Scheduled"
            && s(&r.object, "/note").starts_with(&format!(
                "Successfully assigned {}/{replacement} to ",
                s(&e.object, "/metadata/namespace")
            ))));
    }
}

#[test]
fn kubectl_lists_look_like_kubectl() {
    let sc = seed1();
    let lists = sc.to_kubectl_lists();
    let names: Vec<&str> = lists.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, KUBECTL_FILES);
    for (_, l) in &lists {
        assert_eq!(l["kind"], "List");
        assert_eq!(l["apiVersion"], "v1");
    }
    let items = |i: usize| lists[i].1["items"].as_array().expect("items").clone();
    assert_eq!(items(1).len(), 5);
    for e in items(0) {
        assert_eq!(e["apiVersion"], "v1");
        if e["reportingComponent"] == "default-scheduler" {
            assert!(e.get("count").is_none());
            assert!(e["firstTimestamp"].is_null() && e["lastTimestamp"].is_null());
            assert_eq!(e["source"], serde_json::json!({}));
            assert!(e["involvedObject"]["name"].is_string() && e["message"].is_string());
        }
    }
    let f = &sc.facts;
    assert!(!items(2).iter().any(|p| p["metadata"]["uid"] == f.pending_pod.uid.as_str()));
    let during = sc.to_kubectl_lists_at(f.failure_at + Duration::minutes(45));
    let pending = during[2].1["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|p| p["metadata"]["uid"] == f.pending_pod.uid.as_str())
        .cloned()
        .expect("pending pod listed");
    assert_eq!(pending["status"]["phase"], "Pending");
    let fs = during[0].1["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|e| e["reason"] == "FailedScheduling")
        .cloned()
        .expect("FailedScheduling listed");
    assert_eq!(fs["message"], NOTE);
    assert!(fs["series"]["count"].as_i64().is_some_and(|c| c > 2));
}

#[test]
fn scale_adds_filler_and_keeps_the_story() {
    let base = scenario(5);
    let big = generate(&ScenarioConfig { seed: 5, scale: 4 });
    assert_eq!(base.facts, big.facts);
    let story: Vec<&ScenarioRecord> =
        big.records.iter().filter(|r| !s(&r.object, "/metadata/namespace").starts_with("bench-")).collect();
    assert_eq!(story.len(), base.records.len());
    for (a, b) in story.iter().zip(&base.records) {
        assert_eq!(*a, b);
    }
    let namespaces: BTreeSet<&str> =
        big.records.iter().map(|r| s(&r.object, "/metadata/namespace")).filter(|n| n.starts_with("bench-")).collect();
    assert_eq!(namespaces.len(), 3);
    assert!(big.records.len() > base.records.len() + 3 * 500);
    for w in big.records.windows(2) {
        assert!(w[0].observed_at <= w[1].observed_at && rv(&w[0]) < rv(&w[1]));
    }
    assert_eq!(requested_at(&big, big.facts.failure_at), requested_at(&base, base.facts.failure_at));
}
