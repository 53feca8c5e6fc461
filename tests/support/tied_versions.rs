//! A history whose object versions tie on their observation time (found by
//! a break-it trial): watch-file versions carry no observation time, so
//! each is dated by its newest timestamp, and a cordon, an uncordon or a
//! pod's final DELETED touch none. Of versions tied on observed_at the
//! apiserver wrote the one with the higher resourceVersion later; the store
//! orders them so whatever order the files are ingested in.
//!
//! - node `n1`: created and Ready at [`T0`]; cordoned (resourceVersion 100:
//!   spec.unschedulable and the NoSchedule taint, which has no timeAdded)
//!   and uncordoned (101) at [`T1`] (the kubelet's heartbeat in both);
//! - node `n2`: two versions at [`T0`], created a day before: cordoned (91),
//!   then uncordoned (92);
//! - pod `shop/p` on `n1` (500m cpu): Running from [`T0`], terminating
//!   (MODIFIED, 102: deletionTimestamp [`T2`]) and DELETED (103, the same
//!   object) both at [`T2`].

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use kdrift_analyze::ClusterAt;
use kdrift_analyze::{policy_from_thresholds, skew, SkewReport};
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_store::sql;
use kdrift_store::Store;
use serde_json::{json, Value};

/// Node creation, `n1`'s first version, both of `n2`'s, the pod's first.
pub const T0: &str = "2026-01-01T00:00:00Z";
/// `n1` cordoned and uncordoned.
pub const T1: &str = "2026-01-01T01:00:00Z";
/// The pod terminating and deleted.
pub const T2: &str = "2026-01-01T02:00:00Z";

/// An RFC 3339 time.
pub fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("time").with_timezone(&Utc)
}

fn node(name: &str, rv: &str, created: &str, heartbeat: &str, cordoned: bool) -> Value {
    let mut spec = json!({});
    if cordoned {
        // As `kubectl cordon` leaves it: the taint the node controller adds has no timeAdded (NoSchedule).
        spec = json!({"unschedulable": true,
                      "taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]});
    }
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("uid-{name}"), "resourceVersion": rv, "creationTimestamp": created},
        "spec": spec,
        "status": {
            "allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"},
            "capacity": {"cpu": "2", "memory": "4Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": created,
                            "lastHeartbeatTime": heartbeat}]
        }
    })
}

fn pod(rv: &str, deleting: bool) -> Value {
    let mut metadata = json!({"name": "p", "namespace": "shop", "uid": "uid-p", "resourceVersion": rv,
                              "creationTimestamp": T0});
    if deleting {
        metadata["deletionTimestamp"] = json!(T2);
        metadata["deletionGracePeriodSeconds"] = json!(30);
    }
    json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": metadata,
        "spec": {"nodeName": "n1", "containers": [{"name": "app", "resources": {"requests": {"cpu": "500m"}}}]},
        "status": {"phase": "Running",
                   "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": T0}]}
    })
}

fn watch(change: &str, object: Value) -> String {
    json!({"type": change, "object": object}).to_string()
}

/// The watch events of the history, as NDJSON lines: `n1` and the pod first,
/// `n2`'s two versions, then the first and the second of each tie.
pub struct Lines {
    /// `n1`'s and the pod's first versions.
    pub base: Vec<String>,
    /// `n2` cordoned (91), then uncordoned (92), both at [`T0`].
    pub n2: [String; 2],
    /// At [`T1`] and [`T2`]: `n1` cordoned (100), the pod terminating (102).
    pub first: Vec<String>,
    /// At [`T1`] and [`T2`]: `n1` uncordoned (101), the pod DELETED (103).
    pub second: Vec<String>,
}

/// The history's lines.
pub fn lines() -> Lines {
    let day_before = "2025-12-31T00:00:00Z";
    Lines {
        base: vec![watch("ADDED", node("n1", "90", T0, T0, false)), watch("ADDED", pod("95", false))],
        n2: [
            watch("ADDED", node("n2", "91", day_before, T0, true)),
            watch("MODIFIED", node("n2", "92", day_before, T0, false)),
        ],
        first: vec![watch("MODIFIED", node("n1", "100", T0, T1, true)), watch("MODIFIED", pod("102", true))],
        second: vec![watch("MODIFIED", node("n1", "101", T0, T1, false)), watch("DELETED", pod("103", true))],
    }
}

/// The ways the history is ingested: the runs (each a list of files, each a
/// list of lines), named.
pub fn orders() -> Vec<(&'static str, Vec<Vec<String>>)> {
    let l = lines();
    let [n2_cordoned, n2_uncordoned] = l.n2.clone();
    let with = |mut a: Vec<String>, b: &[String]| {
        a.extend_from_slice(b);
        a
    };
    vec![
        (
            "in the apiserver's order, one run per instant",
            vec![
                with(l.base.clone(), &[n2_cordoned.clone(), n2_uncordoned.clone()]),
                l.first.clone(),
                l.second.clone(),
            ],
        ),
        (
            "the later version of each tie first, one run per instant",
            vec![
                with(l.base.clone(), &[n2_uncordoned.clone(), n2_cordoned.clone()]),
                l.second.clone(),
                l.first.clone(),
            ],
        ),
        (
            "the later version of each tie first, in one file",
            vec![with(with(with(l.base, &[n2_uncordoned, n2_cordoned]), &l.second), &l.first)],
        ),
    ]
}

/// Ingests `runs` into `store`, one `ingest_files` run per element, each
/// written to a file in `dir`.
pub fn ingest(store: &Store, dir: &Path, runs: &[Vec<String>]) {
    for (i, run) in runs.iter().enumerate() {
        let path: PathBuf = dir.join(format!("watch-{i}.ndjson"));
        std::fs::write(&path, format!("{}\n", run.join("\n"))).expect("write");
        let report = ingest_files(store, &[path], &mut NoProgress).expect("ingest");
        assert_eq!(report.error_count(), 0, "run {i}");
    }
}

/// What the store answers about the history: every query and analysis
/// that picks a version, at instants before, between and after the ties.
#[derive(Debug, PartialEq)]
pub struct Answers {
    /// `nodes_at`, `pods_at` and `objects_at` (Node) rows at each of
    /// [`Answers::INSTANTS`].
    pub state_rows: Vec<Vec<Vec<Value>>>,
    /// `pod_at(shop, p)` at each instant.
    pub pod_at: Vec<Vec<Vec<Value>>>,
    /// Per instant: the nodes the state holds, with spec.unschedulable.
    pub nodes: Vec<Vec<(String, bool)>>,
    /// Per instant: the pods the state holds.
    pub pods: Vec<Vec<String>>,
    /// `node_signals`, `pod_placements` and `pod_evictions` over the whole history.
    pub history_rows: Vec<Vec<Vec<Value>>>,
    /// The resourceVersion of `last_version` of n1, n2 and the pod.
    pub last_versions: Vec<String>,
    /// `kdrift skew` an hour after the deletion (cpu and memory thresholds 20 %, targets 50 %).
    pub skew: SkewReport,
}

impl Answers {
    /// Before every version (n2 estimated from its first version), between
    /// the cordon tie and the deletion tie, and an hour after the deletion.
    pub const INSTANTS: [&'static str; 3] = ["2025-12-31T23:00:00Z", "2026-01-01T01:30:00Z", "2026-01-01T03:00:00Z"];

    /// The names of the answers that are not the same in `other`.
    pub fn differences(&self, other: &Answers) -> Vec<&'static str> {
        let same = [
            ("state_rows", self.state_rows == other.state_rows),
            ("pod_at", self.pod_at == other.pod_at),
            ("nodes", self.nodes == other.nodes),
            ("pods", self.pods == other.pods),
            ("history_rows", self.history_rows == other.history_rows),
            ("last_versions", self.last_versions == other.last_versions),
            ("skew", self.skew == other.skew),
        ];
        same.into_iter().filter(|(_, same)| !same).map(|(name, _)| name).collect()
    }

    /// Reads them from `store`.
    pub fn of(store: &Store) -> Answers {
        use kdrift_store::run_query;
        let p = |k: &str, v: &str| (k.to_string(), v.to_string());
        let mut answers = Answers {
            state_rows: Vec::new(),
            pod_at: Vec::new(),
            nodes: Vec::new(),
            pods: Vec::new(),
            history_rows: Vec::new(),
            last_versions: Vec::new(),
            skew: skew_at(store, t(Self::INSTANTS[2])),
        };
        for at in Self::INSTANTS {
            for (q, params) in [
                ("nodes_at", vec![p("at_us", at)]),
                ("pods_at", vec![p("at_us", at)]),
                ("objects_at", vec![p("kind", "Node"), p("at_us", at)]),
            ] {
                answers.state_rows.push(run_query(store, q, &params).expect(q).rows);
            }
            let one = [p("namespace", "shop"), p("name", "p"), p("at_us", at), p("uid", "")];
            answers.pod_at.push(run_query(store, "pod_at", &one).expect("pod_at").rows);
            let state = ClusterAt::load(store, t(at)).expect("state");
            answers.nodes.push(state.nodes.iter().map(|n| (n.name.clone(), n.unschedulable)).collect());
            answers.pods.push(state.pods.iter().map(|p| format!("{}/{}", p.namespace, p.name)).collect());
        }
        let all = [p("since_us", "0"), p("until_us", "2030-01-01T00:00:00Z")];
        for q in ["node_signals", "pod_placements", "pod_evictions"] {
            answers.history_rows.push(run_query(store, q, &all).expect(q).rows);
        }
        for (kind, namespace, name) in [("Node", "", "n1"), ("Node", "", "n2"), ("Pod", "shop", "p")] {
            let texts = store
                .query_map(&sql::LAST_VERSION, kdrift_store::params!["v1", kind, namespace, name], |r| {
                    r.get::<_, String>(0)
                })
                .expect("last_version");
            let object: Value = serde_json::from_str(&texts[0]).expect("JSON");
            answers.last_versions.push(object["metadata"]["resourceVersion"].as_str().expect("rv").to_string());
        }
        answers
    }
}

/// `kdrift skew` at `at` with cpu and memory thresholds 20 %, targets 50 %.
pub fn skew_at(store: &Store, at: DateTime<Utc>) -> SkewReport {
    let pct = |v: f64| [("cpu".to_string(), v), ("memory".to_string(), v)].into_iter().collect();
    let policy = policy_from_thresholds(pct(20.0), pct(50.0)).expect("policy");
    skew(store, Some(at), &policy).expect("skew")
}
