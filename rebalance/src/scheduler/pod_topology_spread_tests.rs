//! PodTopologySpread against kube-scheduler's own unit tests
//! (`podtopologyspread/filtering_test.go` TestPreFilterState,
//! TestSingleConstraint, TestMultipleConstraints; `scoring_test.go`
//! TestPodTopologySpreadScore), ported as data: same nodes, pods and
//! constraints, same per-node status codes, domain counts and normalised
//! scores. Upstream's tests run one plugin alone, so the filter vectors read
//! only the PodTopologySpread failure of each node. Vectors that need a
//! feature gate off are skipped (kdrift models the gates on, their default
//! since 1.27–1.30); the Service-selector default is ported with a
//! ReplicaSet owner instead (kdrift's approximation, see the module docs).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::pod_topology_spread::{scores, FilterState};
use super::*;
use crate::model::node::NodeInfo;
use crate::model::pod::PodInfo;

const DNS: &str = "DoNotSchedule";
const SA: &str = "ScheduleAnyway";
const HOST: &str = "kubernetes.io/hostname";

/// Counts ported, passed and skipped vectors.
#[derive(Default)]
struct Tally {
    ported: usize,
    passed: usize,
    skipped: usize,
    failures: Vec<String>,
}

impl Tally {
    fn check(&mut self, name: &str, outcome: Result<(), String>) {
        self.ported += 1;
        match outcome {
            Ok(()) => self.passed += 1,
            Err(e) => self.failures.push(format!("{name}: {e}")),
        }
    }

    fn skip(&mut self, _name: &str, _why: &str) {
        self.skipped += 1;
    }
}

/// `"zone=zone1,node=node-a"` → labels; `"foo"` is `foo=""`.
fn labels(spec: &str) -> Value {
    let map: serde_json::Map<String, Value> = spec
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (k.to_string(), Value::String(v.to_string()))
        })
        .collect();
    Value::Object(map)
}

fn node(name: &str, l: &str) -> NodeInfo {
    NodeInfo::from_json(&json!({
        "metadata": {"name": name, "labels": labels(l)},
        "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}}
    }))
    .expect("valid node")
}

/// A node with upstream's test taint `node.kubernetes.io/unschedulable:NoSchedule`.
fn tainted(name: &str, l: &str) -> NodeInfo {
    NodeInfo::from_json(&json!({
        "metadata": {"name": name, "labels": labels(l)},
        "spec": {"taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}}
    }))
    .expect("valid node")
}

/// An existing pod in `default` bound to `node`.
fn on(name: &str, node: &str, l: &str) -> PodInfo {
    on_ns("default", name, node, l)
}

fn on_ns(ns: &str, name: &str, node: &str, l: &str) -> PodInfo {
    PodInfo::from_json(&json!({
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{ns}-{name}"), "labels": labels(l)},
        "spec": {"nodeName": node, "containers": [{"name": "c"}]},
        "status": {"phase": "Running"}
    }))
    .expect("valid pod")
}

fn terminating(mut p: PodInfo) -> PodInfo {
    p.rare.deletion_timestamp = Some(chrono::DateTime::UNIX_EPOCH);
    p
}

fn owned_by_rs(mut p: PodInfo, rs: &str) -> PodInfo {
    p.owners = vec![crate::model::pod::OwnerRef {
        api_version: "apps/v1".to_string(),
        kind: "ReplicaSet".to_string(),
        name: rs.to_string(),
        uid: format!("uid-{rs}"),
        controller: true,
    }];
    p
}

/// `labelSelector` requiring `key` to exist.
fn exists(key: &str) -> Value {
    json!({"matchExpressions": [{"key": key, "operator": "Exists"}]})
}

/// A constraint; `extra` adds fields (`minDomains`, policies, `matchLabelKeys`).
fn c(max_skew: i32, key: &str, when: &str, selector: Value, extra: Value) -> Value {
    let mut v = json!({"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when});
    if !selector.is_null() {
        v["labelSelector"] = selector;
    }
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v
}

/// The incoming pod `p` in `default` with `l` labels, the constraints, and
/// more `spec` fields.
fn incoming(l: &str, constraints: Vec<Value>, spec: Value) -> PodInfo {
    let mut s = json!({"containers": [{"name": "c"}], "topologySpreadConstraints": constraints});
    if let (Value::Object(m), Value::Object(e)) = (&mut s, spec) {
        m.extend(e);
    }
    PodInfo::from_json(&json!({
        "metadata": {"name": "p", "namespace": "default", "uid": "uid-p", "labels": labels(l)},
        "spec": s,
        "status": {"phase": "Pending"}
    }))
    .expect("valid pod")
}

fn node_selector(l: &str) -> Value {
    json!({"nodeSelector": labels(l)})
}

fn node_affinity(key: &str, op: &str, values: &[&str]) -> Value {
    json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": op, "values": values}]}]}}}})
}

/// The four nodes most upstream cases use: node-a, node-b in zone1, node-x, node-y in zone2.
fn abxy() -> Vec<NodeInfo> {
    vec![
        node("node-a", "zone=zone1,node=node-a"),
        node("node-b", "zone=zone1,node=node-b"),
        node("node-x", "zone=zone2,node=node-x"),
        node("node-y", "zone=zone2,node=node-y"),
    ]
}

/// Existing pods `name@node` with labels `l` each.
fn pods(specs: &[(&str, &str, &str)]) -> Vec<PodInfo> {
    specs.iter().map(|(name, node, l)| on(name, node, l)).collect()
}

/// The 2/1/0/3 spread of `foo` pods most cases use (a1 a2 b1 y1 y2 y3).
fn spread_2103() -> Vec<PodInfo> {
    pods(&[
        ("p-a1", "node-a", "foo"),
        ("p-a2", "node-a", "foo"),
        ("p-b1", "node-b", "foo"),
        ("p-y1", "node-y", "foo"),
        ("p-y2", "node-y", "foo"),
        ("p-y3", "node-y", "foo"),
    ])
}

/// Upstream's status code of PodTopologySpread's Filter for each node:
/// `S` success, `U` Unschedulable, `UU` UnschedulableAndUnresolvable.
fn filter_codes(nodes: Vec<NodeInfo>, existing: Vec<PodInfo>, pod: &PodInfo) -> BTreeMap<String, &'static str> {
    let state = ClusterState::new(nodes, existing);
    evaluate(&state, pod)
        .into_iter()
        .map(|e| {
            let code = match e.failure_of(Plugin::PodTopologySpread).map(|f| &f.reasons[0]) {
                None => "S",
                Some(r) if r.is_unresolvable() => "UU",
                Some(_) => "U",
            };
            (e.node, code)
        })
        .collect()
}

fn expect_codes(got: BTreeMap<String, &'static str>, want: &[(&str, &str)]) -> Result<(), String> {
    let want: BTreeMap<String, &str> = want.iter().map(|(n, c)| (n.to_string(), *c)).collect();
    if got == want {
        Ok(())
    } else {
        Err(format!("want {want:?}, got {got:?}"))
    }
}

struct FilterCase {
    name: &'static str,
    pod: PodInfo,
    nodes: Vec<NodeInfo>,
    pods: Vec<PodInfo>,
    want: Vec<(&'static str, &'static str)>,
}

fn single_and_multiple_constraint_cases() -> Vec<FilterCase> {
    let foo = || exists("foo");
    let bar = || exists("bar");
    let one = |key: &str, sel: Value| incoming("foo", vec![c(1, key, DNS, sel, json!({}))], json!({}));
    let all_s = vec![("node-a", "S"), ("node-b", "S"), ("node-x", "S"), ("node-y", "S")];
    let abxy_codes = |a, b, x, y| vec![("node-a", a), ("node-b", b), ("node-x", x), ("node-y", y)];
    let abc = || vec![node("node-a", "node=node-a"), node("node-b", "node=node-b"), node("node-c", "node=node-c")];
    let pods_2_2_1 = || {
        pods(&[
            ("p-a1", "node-a", "foo"),
            ("p-a2", "node-a", "foo"),
            ("p-b1", "node-b", "foo"),
            ("p-b2", "node-b", "foo"),
            ("p-c1", "node-c", "foo"),
        ])
    };
    let zone_2_1 = || pods(&[("p-b1", "node-a", "foo"), ("p-b2", "node-b", "foo"), ("p-y1", "node-y", "foo")]);
    let policy_nodes = |taint_y: bool| {
        vec![
            node("node-a", "node=node-a,foo"),
            node("node-b", "node=node-b,foo"),
            node("node-x", "node=node-x,foo"),
            if taint_y { tainted("node-y", "node=node-y") } else { node("node-y", "node=node-y") },
        ]
    };
    let policy_pods = || pods(&[("p-b1", "node-a", "foo"), ("p-b2", "node-b", "foo"), ("p-y1", "node-y", "foo")]);
    let two = |l: &str, zsel: Value, nsel: Value| {
        incoming(l, vec![c(1, "zone", DNS, zsel, json!({})), c(1, "node", DNS, nsel, json!({}))], json!({}))
    };
    vec![
        FilterCase { name: "no existing pods", pod: one("zone", foo()), nodes: abxy(), pods: vec![], want: all_s.clone() },
        FilterCase {
            name: "no existing pods, incoming pod doesn't match itself",
            pod: one("zone", bar()),
            nodes: abxy(),
            pods: vec![],
            want: all_s.clone(),
        },
        FilterCase {
            name: "existing pods in a different namespace do not count",
            pod: one("zone", foo()),
            nodes: abxy(),
            pods: vec![
                on_ns("ns1", "p-a1", "node-a", "foo"),
                on_ns("ns2", "p-b1", "node-a", "foo"),
                on("p-x1", "node-x", "foo"),
                on("p-y1", "node-y", "foo"),
            ],
            want: abxy_codes("S", "S", "U", "U"),
        },
        FilterCase {
            name: "existing pods do not match null selector",
            pod: incoming("foo", vec![c(1, "zone", DNS, Value::Null, json!({}))], json!({})),
            nodes: abxy(),
            pods: pods(&[("p-x1", "node-x", "foo"), ("p-y1", "node-y", "foo")]),
            want: all_s.clone(),
        },
        FilterCase {
            name: "pods spread across zones as 3/3, all nodes fit",
            pod: one("zone", foo()),
            nodes: abxy(),
            pods: spread_2103(),
            want: all_s.clone(),
        },
        FilterCase {
            name: "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
            pod: one("zone", foo()),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a"),
                node("node-b", "zon=zone1,node=node-b"),
                node("node-x", "zone=zone2,node=node-x"),
                node("node-y", "zone=zone2,node=node-y"),
            ],
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-b1", "node-b", "foo"),
                ("p-x1", "node-x", "foo"),
                ("p-y1", "node-y", "foo"),
            ]),
            want: abxy_codes("S", "UU", "U", "U"),
        },
        FilterCase {
            name: "pod cannot be scheduled as all nodes don't have label 'rack'",
            pod: one("rack", foo()),
            nodes: vec![node("node-a", "zone=zone1,node=node-a"), node("node-x", "zone=zone2,node=node-x")],
            pods: vec![],
            want: vec![("node-a", "UU"), ("node-x", "UU")],
        },
        FilterCase {
            name: "pods spread across nodes as 2/1/0/3, only node-x fits",
            pod: one("node", foo()),
            nodes: abxy(),
            pods: spread_2103(),
            want: abxy_codes("U", "U", "S", "U"),
        },
        FilterCase {
            name: "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
            pod: incoming("foo", vec![c(2, "node", DNS, foo(), json!({}))], json!({})),
            nodes: abxy(),
            pods: spread_2103(),
            want: abxy_codes("U", "S", "S", "U"),
        },
        FilterCase {
            name: "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
            pod: incoming("bar", vec![c(1, "node", DNS, foo(), json!({}))], json!({})),
            nodes: abxy(),
            pods: spread_2103(),
            want: abxy_codes("U", "S", "S", "U"),
        },
        FilterCase {
            name: "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
            pod: incoming(
                "foo",
                vec![c(1, "node", DNS, foo(), json!({}))],
                node_affinity("node", "In", &["node-a", "node-y"]),
            ),
            nodes: abxy(),
            pods: spread_2103(),
            want: abxy_codes("S", "S", "S", "U"),
        },
        FilterCase {
            name: "terminating Pods should be excluded",
            pod: one("node", foo()),
            nodes: vec![node("node-a", "node=node-a"), node("node-b", "node=node-b")],
            pods: vec![terminating(on("p-a", "node-a", "foo")), on("p-b", "node-b", "foo")],
            want: vec![("node-a", "S"), ("node-b", "U")],
        },
        FilterCase {
            name: "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
            pod: incoming("foo", vec![c(1, "zone", DNS, foo(), json!({}))], node_affinity("node", "NotIn", &["node-b"])),
            nodes: abxy(),
            pods: pods(&[("p-b1", "node-b", "foo"), ("p-b2", "node-b", "foo"), ("p-y1", "node-y", "foo")]),
            want: abxy_codes("S", "S", "U", "U"),
        },
        FilterCase {
            name: "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
            pod: incoming("foo", vec![c(2, "node", DNS, foo(), json!({"minDomains": 4}))], json!({})),
            nodes: abc(),
            pods: pods_2_2_1(),
            want: vec![("node-a", "U"), ("node-b", "U"), ("node-c", "S")],
        },
        FilterCase {
            name: "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
            pod: incoming("foo", vec![c(2, "node", DNS, foo(), json!({"minDomains": 2}))], json!({})),
            nodes: abc(),
            pods: pods_2_2_1(),
            want: vec![("node-a", "S"), ("node-b", "S"), ("node-c", "S")],
        },
        FilterCase {
            name: "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
            pod: incoming("foo", vec![c(2, "zone", DNS, foo(), json!({"minDomains": 3}))], json!({})),
            nodes: abxy(),
            pods: zone_2_1(),
            want: abxy_codes("U", "U", "S", "S"),
        },
        FilterCase {
            name: "pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
            pod: incoming("foo", vec![c(2, "zone", DNS, foo(), json!({"minDomains": 1}))], json!({})),
            nodes: abxy(),
            pods: zone_2_1(),
            want: all_s.clone(),
        },
        FilterCase {
            name: "NodeAffinityPolicy honored with labelSelectors",
            pod: incoming("foo", vec![c(1, "node", DNS, foo(), json!({}))], node_selector("foo")),
            nodes: policy_nodes(false),
            pods: policy_pods(),
            want: abxy_codes("U", "U", "S", "S"),
        },
        FilterCase {
            name: "NodeAffinityPolicy ignored with labelSelectors",
            pod: incoming(
                "foo",
                vec![c(1, "node", DNS, foo(), json!({"nodeAffinityPolicy": "Ignore"}))],
                node_selector("foo"),
            ),
            nodes: policy_nodes(false),
            pods: policy_pods(),
            want: abxy_codes("U", "U", "S", "U"),
        },
        FilterCase {
            name: "NodeAffinityPolicy honored with nodeAffinity",
            pod: incoming("foo", vec![c(1, "node", DNS, foo(), json!({}))], node_affinity("foo", "In", &[""])),
            nodes: policy_nodes(false),
            pods: policy_pods(),
            want: abxy_codes("U", "U", "S", "S"),
        },
        FilterCase {
            name: "NodeAffinityPolicy ignored with nodeAffinity",
            pod: incoming(
                "foo",
                vec![c(1, "node", DNS, foo(), json!({"nodeAffinityPolicy": "Ignore"}))],
                node_affinity("foo", "In", &[""]),
            ),
            nodes: policy_nodes(false),
            pods: policy_pods(),
            want: abxy_codes("U", "U", "S", "U"),
        },
        FilterCase {
            name: "NodeTaintsPolicy honored",
            pod: incoming("foo", vec![c(1, "node", DNS, foo(), json!({"nodeTaintsPolicy": "Honor"}))], json!({})),
            nodes: policy_nodes(true),
            pods: policy_pods(),
            want: abxy_codes("U", "U", "S", "S"),
        },
        FilterCase {
            name: "NodeTaintsPolicy ignored",
            pod: one("node", foo()),
            nodes: policy_nodes(true),
            pods: policy_pods(),
            want: abxy_codes("U", "U", "S", "U"),
        },
        // TestMultipleConstraints
        FilterCase {
            name: "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
            pod: two("foo", foo(), foo()),
            nodes: abxy(),
            pods: spread_2103(),
            want: abxy_codes("U", "U", "S", "U"),
        },
        FilterCase {
            name: "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
            pod: two("foo", foo(), foo()),
            nodes: abxy(),
            pods: {
                let mut p = spread_2103();
                p.push(on("p-y4", "node-y", "foo"));
                p
            },
            want: abxy_codes("U", "U", "U", "U"),
        },
        FilterCase {
            name: "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
            pod: two("foo,bar", foo(), bar()),
            nodes: abxy(),
            pods: pods(&[("p-a1", "node-a", "foo"), ("p-y1", "node-y", "bar")]),
            want: abxy_codes("U", "U", "S", "U"),
        },
        FilterCase {
            name: "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
            pod: two("foo,bar", foo(), bar()),
            nodes: abxy(),
            pods: pods(&[("p-a1", "node-a", "foo"), ("p-x1", "node-x", "bar"), ("p-y1", "node-y", "bar")]),
            want: abxy_codes("U", "U", "U", "U"),
        },
        FilterCase {
            name: "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
            pod: two("foo,bar", foo(), bar()),
            nodes: abxy(),
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-a2", "node-a", "foo,bar"),
                ("p-y1", "node-y", "foo"),
                ("p-y2", "node-y", "foo,bar"),
                ("p-y3", "node-y", "foo"),
            ]),
            want: abxy_codes("U", "S", "U", "U"),
        },
        FilterCase {
            name: "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
            pod: two("bar", foo(), bar()),
            nodes: abxy(),
            pods: pods(&[("p-a1", "node-a", "foo"), ("p-x1", "node-x", "bar"), ("p-y1", "node-y", "bar")]),
            want: abxy_codes("S", "S", "U", "U"),
        },
        FilterCase {
            name: "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
            pod: two("foo", foo(), foo()),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a"),
                node("node-b", "zone=zone1,node=node-b"),
                node("node-x", "zone=zone2"),
                node("node-y", "zone=zone2,node=node-y"),
            ],
            pods: pods(&[("p-a1", "node-a", "foo"), ("p-y3", "node-y", "foo")]),
            want: abxy_codes("U", "S", "UU", "U"),
        },
        FilterCase {
            name: "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
            pod: incoming(
                "foo",
                vec![
                    c(1, "zone", DNS, foo(), json!({})),
                    c(1, "node", DNS, foo(), json!({"nodeAffinityPolicy": "Ignore"})),
                ],
                node_selector("foo"),
            ),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a,foo"),
                node("node-b", "zone=zone1,node=node-b,foo"),
                node("node-x", "zone=zone2,node=node-x,foo"),
                node("node-y", "zone=zone2,node=node-y"),
            ],
            pods: pods(&[("p-a1", "node-a", "foo"), ("p-b1", "node-b", "foo"), ("p-y1", "node-y", "foo")]),
            want: abxy_codes("U", "U", "S", "U"),
        },
        FilterCase {
            name: "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
            pod: incoming(
                "foo",
                vec![
                    c(1, "zone", DNS, foo(), json!({"nodeTaintsPolicy": "Honor"})),
                    c(1, "node", DNS, foo(), json!({})),
                ],
                json!({}),
            ),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a,foo"),
                node("node-b", "zone=zone1,node=node-b,foo"),
                node("node-x", "zone=zone2,node=node-x,foo"),
                tainted("node-y", "zone=zone2,node=node-y"),
            ],
            pods: pods(&[("p-a1", "node-a", "foo"), ("p-b1", "node-b", "foo"), ("p-y1", "node-y", "foo")]),
            want: abxy_codes("U", "U", "S", "U"),
        },
    ]
}

struct PreFilterCase {
    name: &'static str,
    pod: PodInfo,
    nodes: Vec<NodeInfo>,
    pods: Vec<PodInfo>,
    /// Per constraint, `TpValueToMatchNum`.
    want: Vec<Vec<(&'static str, i64)>>,
}

fn prefilter_cases() -> Vec<PreFilterCase> {
    let foo = || exists("foo");
    let bar = || exists("bar");
    let zone = |sel: Value, extra: Value| c(1, "zone", DNS, sel, extra);
    let nodec = |sel: Value, extra: Value| c(1, "node", DNS, sel, extra);
    let spread = || {
        let mut p = spread_2103();
        p.push(on("p-y4", "node-y", "foo"));
        p
    };
    let abc = |c_label: &str, taint_c: bool| {
        let cl = format!("node=node-c,{c_label}");
        vec![
            node("node-a", "node=node-a,foo"),
            node("node-b", "node=node-b,foo"),
            if taint_c { tainted("node-c", &cl) } else { node("node-c", &cl) },
        ]
    };
    let abc_plain = |taint_c: bool| {
        vec![
            node("node-a", "node=node-a"),
            node("node-b", "node=node-b"),
            if taint_c { tainted("node-c", "node=node-c,bar") } else { node("node-c", "node=node-c,bar") },
        ]
    };
    let bar_pods =
        || pods(&[("p-a", "node-a", "bar"), ("p-b", "node-b", "bar"), ("p-c", "node-b", "bar"), ("p-d", "node-c", "")]);
    let five_a = || {
        pods(&[
            ("p-a1", "node-a", "foo=a"),
            ("p-a2", "node-a", "foo=a"),
            ("p-b1", "node-b", "foo=a"),
            ("p-y1", "node-y", "foo=a"),
            ("p-y2", "node-y", "foo=a"),
        ])
    };
    let a_b = vec![("node-a", 1), ("node-b", 2)];
    let a_b_c = vec![("node-a", 1), ("node-b", 2), ("node-c", 0)];
    vec![
        PreFilterCase {
            name: "clean cluster with one spreadConstraint",
            pod: incoming("foo", vec![c(5, "zone", DNS, json!({"matchLabels": {"foo": "bar"}}), json!({}))], json!({})),
            nodes: abxy(),
            pods: vec![],
            want: vec![vec![("zone1", 0), ("zone2", 0)]],
        },
        PreFilterCase {
            name: "normal case with one spreadConstraint",
            pod: incoming("foo", vec![zone(foo(), json!({}))], json!({})),
            nodes: abxy(),
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-a2", "node-a", "foo"),
                ("p-b1", "node-b", "foo"),
                ("p-y1", "node-y", "foo"),
                ("p-y2", "node-y", "foo"),
            ]),
            want: vec![vec![("zone1", 3), ("zone2", 2)]],
        },
        PreFilterCase {
            name: "normal case with null label selector",
            pod: incoming("foo", vec![zone(Value::Null, json!({}))], json!({})),
            nodes: abxy(),
            pods: spread_2103(),
            want: vec![vec![("zone1", 0), ("zone2", 0)]],
        },
        PreFilterCase {
            name: "normal case with one spreadConstraint, on a 3-zone cluster",
            pod: incoming("foo", vec![zone(foo(), json!({}))], json!({})),
            nodes: {
                let mut n = abxy();
                n.push(node("node-o", "zone=zone3,node=node-o"));
                n.push(node("node-p", "zone=zone3,node=node-p"));
                n
            },
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-a2", "node-a", "foo"),
                ("p-b1", "node-b", "foo"),
                ("p-y1", "node-y", "foo"),
                ("p-y2", "node-y", "foo"),
            ]),
            want: vec![vec![("zone1", 3), ("zone2", 2), ("zone3", 0)]],
        },
        PreFilterCase {
            name: "namespace mismatch doesn't count",
            pod: incoming("foo", vec![zone(foo(), json!({}))], json!({})),
            nodes: abxy(),
            pods: vec![
                on("p-a1", "node-a", "foo"),
                on_ns("ns1", "p-a2", "node-a", "foo"),
                on("p-b1", "node-b", "foo"),
                on_ns("ns2", "p-y1", "node-y", "foo"),
                on("p-y2", "node-y", "foo"),
            ],
            want: vec![vec![("zone1", 2), ("zone2", 1)]],
        },
        PreFilterCase {
            name: "normal case with two spreadConstraints",
            pod: incoming("foo", vec![zone(foo(), json!({})), nodec(foo(), json!({}))], json!({})),
            nodes: abxy(),
            pods: spread(),
            want: vec![
                vec![("zone1", 3), ("zone2", 4)],
                vec![("node-a", 2), ("node-b", 1), ("node-x", 0), ("node-y", 4)],
            ],
        },
        PreFilterCase {
            name: "soft spreadConstraints should be bypassed",
            pod: incoming(
                "foo",
                vec![
                    c(1, "zone", SA, foo(), json!({})),
                    zone(foo(), json!({})),
                    c(1, "node", SA, foo(), json!({})),
                    nodec(foo(), json!({})),
                ],
                json!({}),
            ),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a"),
                node("node-b", "zone=zone1,node=node-b"),
                node("node-y", "zone=zone2,node=node-y"),
            ],
            pods: spread(),
            want: vec![vec![("zone1", 3), ("zone2", 4)], vec![("node-a", 2), ("node-b", 1), ("node-y", 4)]],
        },
        PreFilterCase {
            name: "different labelSelectors - simple version",
            pod: incoming("foo,bar", vec![zone(foo(), json!({})), nodec(bar(), json!({}))], json!({})),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a"),
                node("node-b", "zone=zone1,node=node-b"),
                node("node-y", "zone=zone2,node=node-y"),
            ],
            pods: pods(&[("p-a", "node-a", "foo"), ("p-b", "node-b", "bar")]),
            want: vec![vec![("zone1", 1), ("zone2", 0)], vec![("node-a", 0), ("node-b", 1), ("node-y", 0)]],
        },
        PreFilterCase {
            name: "different labelSelectors - complex pods",
            pod: incoming("foo,bar", vec![zone(foo(), json!({})), nodec(bar(), json!({}))], json!({})),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a"),
                node("node-b", "zone=zone1,node=node-b"),
                node("node-y", "zone=zone2,node=node-y"),
            ],
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-a2", "node-a", "foo,bar"),
                ("p-b1", "node-b", "foo"),
                ("p-y1", "node-y", "foo"),
                ("p-y2", "node-y", "foo,bar"),
                ("p-y3", "node-y", "foo"),
                ("p-y4", "node-y", "foo,bar"),
            ]),
            want: vec![vec![("zone1", 3), ("zone2", 4)], vec![("node-a", 1), ("node-b", 0), ("node-y", 2)]],
        },
        PreFilterCase {
            name: "two spreadConstraints, and with podAffinity",
            pod: incoming(
                "foo",
                vec![zone(foo(), json!({})), nodec(foo(), json!({}))],
                node_affinity("node", "NotIn", &["node-x"]),
            ),
            nodes: abxy(),
            pods: spread(),
            want: vec![vec![("zone1", 3), ("zone2", 4)], vec![("node-a", 2), ("node-b", 1), ("node-y", 4)]],
        },
        PreFilterCase {
            name: "feature gate disabled with NodeAffinityPolicy (same counts with the gate on: Honor)",
            pod: incoming("foo", vec![nodec(bar(), json!({}))], node_selector("foo")),
            nodes: abc("bar", false),
            pods: bar_pods(),
            want: vec![a_b.clone()],
        },
        PreFilterCase {
            name: "NodeAffinityPolicy honored with labelSelectors",
            pod: incoming("foo", vec![nodec(bar(), json!({}))], node_selector("foo")),
            nodes: abc("bar", false),
            pods: bar_pods(),
            want: vec![a_b.clone()],
        },
        PreFilterCase {
            name: "NodeAffinityPolicy ignored with labelSelectors",
            pod: incoming("foo", vec![nodec(bar(), json!({"nodeAffinityPolicy": "Ignore"}))], node_selector("foo")),
            nodes: abc("bar", false),
            pods: bar_pods(),
            want: vec![a_b_c.clone()],
        },
        PreFilterCase {
            name: "NodeAffinityPolicy honored with nodeAffinity",
            pod: incoming("foo", vec![nodec(bar(), json!({}))], node_affinity("foo", "In", &[""])),
            nodes: abc("bar", false),
            pods: bar_pods(),
            want: vec![a_b.clone()],
        },
        PreFilterCase {
            name: "NodeAffinityPolicy ignored with nodeAffinity",
            pod: incoming(
                "foo",
                vec![nodec(bar(), json!({"nodeAffinityPolicy": "Ignore"}))],
                node_affinity("foo", "In", &[""]),
            ),
            nodes: abc("bar", false),
            pods: bar_pods(),
            want: vec![a_b_c.clone()],
        },
        PreFilterCase {
            name: "feature gate disabled with NodeTaintsPolicy (same counts with the gate on: Ignore)",
            pod: incoming("foo", vec![nodec(bar(), json!({}))], json!({})),
            nodes: abc_plain(true),
            pods: bar_pods(),
            want: vec![a_b_c.clone()],
        },
        PreFilterCase {
            name: "NodeTaintsPolicy ignored",
            pod: incoming("foo", vec![nodec(bar(), json!({}))], json!({})),
            nodes: abc_plain(true),
            pods: bar_pods(),
            want: vec![a_b_c.clone()],
        },
        PreFilterCase {
            name: "NodeTaintsPolicy honored",
            pod: incoming("foo", vec![nodec(bar(), json!({"nodeTaintsPolicy": "Honor"}))], json!({})),
            nodes: abc_plain(true),
            pods: bar_pods(),
            want: vec![a_b.clone()],
        },
        PreFilterCase {
            name: "NodeTaintsPolicy honored with tolerated taints",
            pod: incoming(
                "foo",
                vec![nodec(bar(), json!({"nodeTaintsPolicy": "Honor"}))],
                json!({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}),
            ),
            nodes: abc_plain(true),
            pods: bar_pods(),
            want: vec![a_b_c.clone()],
        },
        PreFilterCase {
            name: "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
            pod: incoming(
                "foo",
                vec![zone(foo(), json!({})), nodec(foo(), json!({"nodeAffinityPolicy": "Ignore"}))],
                node_selector("foo"),
            ),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a,foo"),
                node("node-b", "zone=zone1,node=node-b"),
                node("node-x", "zone=zone2,node=node-x,foo"),
            ],
            pods: pods(&[("p-b1", "node-b", "foo"), ("p-b2", "node-b", "foo"), ("p-x1", "node-x", "foo")]),
            want: vec![vec![("zone1", 0), ("zone2", 1)], vec![("node-a", 0), ("node-b", 2), ("node-x", 1)]],
        },
        PreFilterCase {
            name: "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
            pod: incoming(
                "foo",
                vec![zone(foo(), json!({"nodeTaintsPolicy": "Honor"})), nodec(foo(), json!({}))],
                json!({}),
            ),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a,foo"),
                tainted("node-b", "zone=zone1,node=node-b"),
                node("node-x", "zone=zone2,node=node-x,foo"),
            ],
            pods: pods(&[("p-b1", "node-b", "foo"), ("p-b2", "node-b", "foo"), ("p-x1", "node-x", "foo")]),
            want: vec![vec![("zone1", 0), ("zone2", 1)], vec![("node-a", 0), ("node-b", 2), ("node-x", 1)]],
        },
        PreFilterCase {
            name: "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
            pod: incoming("foo", vec![zone(foo(), json!({})), nodec(foo(), json!({}))], node_selector("foo")),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a"),
                tainted("node-b", "zone=zone1,node=node-b,foo"),
                node("node-x", "zone=zone2,node=node-x,foo"),
                node("node-y", "zone=zone2,node=node-y"),
            ],
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-a2", "node-a", "foo"),
                ("p-x1", "node-x", "foo"),
                ("p-y1", "node-y", "foo"),
            ]),
            want: vec![vec![("zone1", 0), ("zone2", 1)], vec![("node-b", 0), ("node-x", 1)]],
        },
        PreFilterCase {
            name: "two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
            pod: incoming(
                "foo",
                vec![
                    zone(foo(), json!({"nodeAffinityPolicy": "Ignore"})),
                    nodec(foo(), json!({"nodeTaintsPolicy": "Honor"})),
                ],
                node_selector("foo"),
            ),
            nodes: vec![
                node("node-a", "zone=zone1,node=node-a"),
                tainted("node-b", "zone=zone1,node=node-b,foo"),
                node("node-x", "zone=zone2,node=node-x,foo"),
                node("node-y", "zone=zone2,node=node-y,foo"),
            ],
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-a2", "node-a", "foo"),
                ("p-x1", "node-x", "foo"),
                ("p-x2", "node-x", "foo"),
                ("p-y1", "node-y", "foo"),
            ]),
            want: vec![vec![("zone1", 2), ("zone2", 3)], vec![("node-x", 2), ("node-y", 1)]],
        },
        PreFilterCase {
            name: "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
            pod: incoming("foo,bar=a", vec![zone(foo(), json!({"matchLabelKeys": ["bar"]}))], json!({})),
            nodes: abxy(),
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-a2", "node-a", "foo,bar=a"),
                ("p-b1", "node-b", "foo"),
                ("p-y1", "node-y", "foo,bar=a"),
                ("p-y2", "node-y", "bar"),
            ]),
            want: vec![vec![("zone1", 1), ("zone2", 1)]],
        },
        PreFilterCase {
            name: "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
            pod: incoming("foo=a", vec![zone(json!({}), json!({"matchLabelKeys": ["foo"]}))], json!({})),
            nodes: abxy(),
            pods: five_a(),
            want: vec![vec![("zone1", 3), ("zone2", 2)]],
        },
        PreFilterCase {
            name: "key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
            pod: incoming("foo", vec![zone(Value::Null, json!({"matchLabelKeys": ["bar"]}))], json!({})),
            nodes: abxy(),
            pods: five_a(),
            want: vec![vec![("zone1", 0), ("zone2", 0)]],
        },
        PreFilterCase {
            name: "key in matchLabelKeys is ignored when it isn't exist in pod.labels",
            pod: incoming("foo", vec![zone(foo(), json!({"matchLabelKeys": ["bar"]}))], json!({})),
            nodes: abxy(),
            pods: five_a(),
            want: vec![vec![("zone1", 3), ("zone2", 2)]],
        },
        PreFilterCase {
            name: "two spreadConstraints with the same topologyKey",
            pod: incoming("foo,bar", vec![zone(foo(), json!({})), zone(bar(), json!({}))], json!({})),
            nodes: abxy(),
            pods: pods(&[
                ("p-a1", "node-a", "foo,bar"),
                ("p-b1", "node-b", "foo"),
                ("p-x1", "node-x", "bar"),
                ("p-y1", "node-y", "foo,bar"),
                ("p-y2", "node-y", "bar"),
            ]),
            want: vec![vec![("zone1", 2), ("zone2", 1)], vec![("zone1", 1), ("zone2", 3)]],
        },
        PreFilterCase {
            name: "skip if not specified",
            pod: incoming("foo", vec![], json!({})),
            nodes: vec![node("node-a", "zone=zone1,node=node-a")],
            pods: vec![],
            want: vec![],
        },
    ]
}

struct ScoreCase {
    name: &'static str,
    pod: PodInfo,
    pods: Vec<PodInfo>,
    /// The candidates (passed the filters).
    nodes: Vec<NodeInfo>,
    /// The other nodes.
    failed: Vec<NodeInfo>,
    want: Vec<(&'static str, i64)>,
}

fn score_cases() -> Vec<ScoreCase> {
    let foo = || exists("foo");
    let bar = || exists("bar");
    let host = |n: &str| node(n, &format!("{HOST}={n}"));
    let soft = |skew: i32, key: &str, sel: Value| incoming("foo", vec![c(skew, key, SA, sel, json!({}))], json!({}));
    let four = || vec![host("node-a"), host("node-b"), host("node-c"), host("node-d")];
    let p2103 = || {
        pods(&[
            ("p-a1", "node-a", "foo"),
            ("p-a2", "node-a", "foo"),
            ("p-b1", "node-b", "foo"),
            ("p-d1", "node-d", "foo"),
            ("p-d2", "node-d", "foo"),
            ("p-d3", "node-d", "foo"),
        ])
    };
    let p4321 = || {
        pods(&[
            ("p-a1", "node-a", "foo"),
            ("p-a2", "node-a", "foo"),
            ("p-a3", "node-a", "foo"),
            ("p-a4", "node-a", "foo"),
            ("p-b1", "node-b", "foo"),
            ("p-b2", "node-b", "foo"),
            ("p-b3", "node-b", "foo"),
            ("p-c1", "node-c", "foo"),
            ("p-c2", "node-c", "foo"),
            ("p-d1", "node-d", "foo"),
        ])
    };
    let p4213 = || {
        pods(&[
            ("p-a1", "node-a", "foo"),
            ("p-a2", "node-a", "foo"),
            ("p-a3", "node-a", "foo"),
            ("p-a4", "node-a", "foo"),
            ("p-b1", "node-b", "foo"),
            ("p-b2", "node-b", "foo"),
            ("p-x1", "node-x", "foo"),
            ("p-y1", "node-y", "foo"),
            ("p-y2", "node-y", "foo"),
            ("p-y3", "node-y", "foo"),
        ])
    };
    let zh = |n: &str, z: &str| node(n, &format!("zone={z},{HOST}={n}"));
    let zone_host = |zsel: Value, hsel: Value, l: &str| {
        incoming(l, vec![c(1, "zone", SA, zsel, json!({})), c(1, HOST, SA, hsel, json!({}))], json!({}))
    };
    let pods_2211 = || {
        pods(&[
            ("p-a1", "node-a", "foo"),
            ("p-b1", "node-b", "foo,bar"),
            ("p-y1", "node-y", "foo"),
            ("p-y2", "node-y", "bar"),
        ])
    };
    let abc_node = |c_label: &str, taint_c: bool| {
        let cl = format!("node=node-c{c_label}");
        vec![
            node("node-a", "node=node-a,foo"),
            node("node-b", "node=node-b,foo"),
            if taint_c { tainted("node-c", &cl) } else { node("node-c", &cl) },
        ]
    };
    let abc_plain = |taint_c: bool| {
        vec![
            node("node-a", "node=node-a"),
            node("node-b", "node=node-b"),
            if taint_c { tainted("node-c", "node=node-c") } else { node("node-c", "node=node-c") },
        ]
    };
    let p211 = || {
        pods(&[
            ("p-a1", "node-a", "foo"),
            ("p-a2", "node-a", "foo"),
            ("p-b1", "node-b", "foo"),
            ("p-c1", "node-c", "foo"),
        ])
    };
    let abcd_zone = || vec![zh("node-a", "zone1"), zh("node-b", "zone1"), zh("node-c", "zone2"), zh("node-d", "zone2")];
    vec![
        ScoreCase {
            name: "one constraint on node, no existing pods",
            pod: soft(1, HOST, foo()),
            pods: vec![],
            nodes: vec![host("node-a"), host("node-b")],
            failed: vec![],
            want: vec![("node-a", 100), ("node-b", 100)],
        },
        ScoreCase {
            name: "one constraint on node, only one node is candidate",
            pod: soft(1, HOST, foo()),
            pods: pods(&[("p-a1", "node-a", "foo"), ("p-a2", "node-a", "foo"), ("p-b1", "node-b", "foo")]),
            nodes: vec![host("node-a")],
            failed: vec![host("node-b")],
            want: vec![("node-a", 100)],
        },
        ScoreCase {
            name: "one constraint on node, all nodes have the same number of matching pods",
            pod: soft(1, HOST, foo()),
            pods: pods(&[("p-a1", "node-a", "foo"), ("p-b1", "node-b", "foo")]),
            nodes: vec![host("node-a"), host("node-b")],
            failed: vec![],
            want: vec![("node-a", 100), ("node-b", 100)],
        },
        ScoreCase {
            name: "one constraint on node, all 4 nodes are candidates",
            pod: soft(1, HOST, foo()),
            pods: p2103(),
            nodes: four(),
            failed: vec![],
            want: vec![("node-a", 20), ("node-b", 60), ("node-c", 100), ("node-d", 0)],
        },
        ScoreCase {
            name: "one constraint on node, null selector",
            pod: soft(1, HOST, Value::Null),
            pods: p2103(),
            nodes: four(),
            failed: vec![],
            want: vec![("node-a", 100), ("node-b", 100), ("node-c", 100), ("node-d", 100)],
        },
        ScoreCase {
            name: "one constraint on node, all 4 nodes are candidates, maxSkew=2",
            pod: soft(2, HOST, foo()),
            pods: p2103(),
            nodes: four(),
            failed: vec![],
            want: vec![("node-a", 33), ("node-b", 66), ("node-c", 100), ("node-d", 16)],
        },
        ScoreCase {
            name: "one constraint on node, all 4 nodes are candidates, maxSkew=3",
            pod: soft(3, HOST, foo()),
            pods: p4321(),
            nodes: four(),
            failed: vec![],
            want: vec![("node-a", 44), ("node-b", 66), ("node-c", 77), ("node-d", 100)],
        },
        ScoreCase {
            name: "system defaulting, nodes don't have zone, pods match service (ported with a ReplicaSet owner)",
            pod: owned_by_rs(incoming("foo", vec![], json!({})), "rs1"),
            pods: p4321().into_iter().map(|p| owned_by_rs(p, "rs1")).collect(),
            nodes: four(),
            failed: vec![],
            want: vec![("node-a", 44), ("node-b", 66), ("node-c", 77), ("node-d", 100)],
        },
        ScoreCase {
            name: "one constraint on node, 3 out of 4 nodes are candidates",
            pod: soft(1, HOST, foo()),
            pods: p4213(),
            nodes: vec![host("node-a"), host("node-b"), host("node-x")],
            failed: vec![host("node-y")],
            want: vec![("node-a", 33), ("node-b", 83), ("node-x", 100)],
        },
        ScoreCase {
            name: "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
            pod: soft(1, HOST, foo()),
            pods: p4213(),
            nodes: vec![host("node-a"), node("node-b", "n=node-b"), host("node-x")],
            failed: vec![host("node-y")],
            want: vec![("node-a", 16), ("node-b", 0), ("node-x", 100)],
        },
        ScoreCase {
            name: "one constraint on zone, 3 out of 4 nodes are candidates",
            pod: soft(1, "zone", foo()),
            pods: p4213(),
            nodes: vec![zh("node-a", "zone1"), zh("node-b", "zone1"), zh("node-x", "zone2")],
            failed: vec![zh("node-y", "zone2")],
            want: vec![("node-a", 75), ("node-b", 75), ("node-x", 100)],
        },
        ScoreCase {
            name: "two Constraints on zone and node, 2 out of 4 nodes are candidates",
            pod: zone_host(foo(), foo(), "foo"),
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-a2", "node-a", "foo"),
                ("p-b1", "node-b", "foo"),
                ("p-x1", "node-x", "foo"),
                ("p-x2", "node-x", "foo"),
                ("p-y1", "node-y", "foo"),
                ("p-y2", "node-y", "foo"),
                ("p-y3", "node-y", "foo"),
                ("p-y4", "node-y", "foo"),
            ]),
            nodes: vec![zh("node-a", "zone1"), zh("node-x", "zone2")],
            failed: vec![zh("node-b", "zone1"), zh("node-y", "zone2")],
            want: vec![("node-a", 100), ("node-x", 63)],
        },
        ScoreCase {
            name: "two Constraints on zone, 2 out of 4 nodes are candidates",
            pod: incoming(
                "foo,bar",
                vec![c(1, "zone", SA, foo(), json!({})), c(1, "zone", SA, bar(), json!({}))],
                json!({}),
            ),
            pods: pods(&[
                ("p-a1", "node-a", "foo,bar"),
                ("p-a2", "node-a", "foo"),
                ("p-b1", "node-b", "foo,bar"),
                ("p-y1", "node-y", "foo"),
                ("p-y2", "node-y", "foo,bar"),
                ("p-y3", "node-y", "foo"),
            ]),
            nodes: vec![node("node-a", "zone=zone1"), node("node-x", "zone=zone2")],
            failed: vec![node("node-b", "zone=zone1"), node("node-y", "zone=zone2")],
            want: vec![("node-a", 85), ("node-x", 100)],
        },
        ScoreCase {
            name: "two Constraints on zone and node, with different labelSelectors",
            pod: zone_host(foo(), bar(), "foo,bar"),
            pods: pods_2211(),
            nodes: vec![zh("node-a", "zone1"), zh("node-b", "zone1"), zh("node-x", "zone2"), zh("node-y", "zone2")],
            failed: vec![],
            want: vec![("node-a", 60), ("node-b", 20), ("node-x", 100), ("node-y", 60)],
        },
        ScoreCase {
            name: "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
            pod: zone_host(foo(), bar(), "foo,bar"),
            pods: pods(&[("p-b1", "node-b", "bar"), ("p-x1", "node-x", "foo"), ("p-y1", "node-y", "foo,bar")]),
            nodes: vec![zh("node-a", "zone1"), zh("node-b", "zone1"), zh("node-x", "zone2"), zh("node-y", "zone2")],
            failed: vec![],
            want: vec![("node-a", 100), ("node-b", 60), ("node-x", 40), ("node-y", 0)],
        },
        ScoreCase {
            name: "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
            pod: zone_host(foo(), bar(), "foo,bar"),
            pods: pods_2211(),
            nodes: vec![zh("node-a", "zone1"), zh("node-b", "zone1"), zh("node-x", "zone2")],
            failed: vec![zh("node-y", "zone2")],
            want: vec![("node-a", 50), ("node-b", 25), ("node-x", 100)],
        },
        ScoreCase {
            name: "existing pods in a different namespace do not count",
            pod: soft(1, HOST, foo()),
            pods: vec![
                on_ns("ns1", "p-a1", "node-a", "foo"),
                on("p-a2", "node-a", "foo"),
                on("p-b1", "node-b", "foo"),
                on("p-b2", "node-b", "foo"),
            ],
            nodes: vec![host("node-a"), host("node-b")],
            failed: vec![],
            want: vec![("node-a", 100), ("node-b", 33)],
        },
        ScoreCase {
            name: "terminating Pods should be excluded",
            pod: soft(1, HOST, foo()),
            pods: vec![terminating(on("p-a", "node-a", "foo")), on("p-b", "node-b", "foo")],
            nodes: vec![host("node-a"), host("node-b")],
            failed: vec![],
            want: vec![("node-a", 100), ("node-b", 0)],
        },
        ScoreCase {
            name: "minDomains has no effect when ScheduleAnyway",
            pod: incoming("foo", vec![c(2, "node", SA, foo(), json!({"minDomains": 10}))], json!({})),
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-a2", "node-a", "foo"),
                ("p-b1", "node-b", "foo"),
                ("p-b2", "node-b", "foo"),
                ("p-c1", "node-c", "foo"),
            ]),
            nodes: abc_plain(false),
            failed: vec![],
            want: vec![("node-a", 75), ("node-b", 75), ("node-c", 100)],
        },
        ScoreCase {
            name: "NodeAffinityPolicy honoed with labelSelectors",
            pod: incoming("foo", vec![c(1, "node", SA, foo(), json!({}))], node_selector("foo")),
            pods: p211(),
            nodes: abc_node("", false),
            failed: vec![],
            want: vec![("node-a", 0), ("node-b", 33), ("node-c", 100)],
        },
        ScoreCase {
            name: "NodeAffinityPolicy ignored with labelSelectors",
            pod: incoming(
                "foo",
                vec![c(1, "node", SA, foo(), json!({"nodeAffinityPolicy": "Ignore"}))],
                node_selector("foo"),
            ),
            pods: p211(),
            nodes: abc_node("", false),
            failed: vec![],
            want: vec![("node-a", 66), ("node-b", 100), ("node-c", 100)],
        },
        ScoreCase {
            name: "NodeAffinityPolicy honoed with nodeAffinity",
            pod: incoming("foo", vec![c(1, "node", SA, foo(), json!({}))], node_affinity("foo", "In", &[""])),
            pods: p211(),
            nodes: abc_node("", false),
            failed: vec![],
            want: vec![("node-a", 0), ("node-b", 33), ("node-c", 100)],
        },
        ScoreCase {
            name: "NodeAffinityPolicy ignored with nodeAffinity",
            pod: incoming(
                "foo",
                vec![c(1, "node", SA, foo(), json!({"nodeAffinityPolicy": "Ignore"}))],
                node_affinity("foo", "In", &[""]),
            ),
            pods: p211(),
            nodes: abc_node("", false),
            failed: vec![],
            want: vec![("node-a", 66), ("node-b", 100), ("node-c", 100)],
        },
        ScoreCase {
            name: "NodeTaintsPolicy honored",
            pod: incoming("foo", vec![c(1, "node", SA, foo(), json!({"nodeTaintsPolicy": "Honor"}))], json!({})),
            pods: p211(),
            nodes: abc_plain(true),
            failed: vec![],
            want: vec![("node-a", 0), ("node-b", 33), ("node-c", 100)],
        },
        ScoreCase {
            name: "NodeTaintsPolicy ignored",
            pod: incoming("foo", vec![c(1, "node", SA, foo(), json!({}))], json!({})),
            pods: p211(),
            nodes: abc_plain(true),
            failed: vec![],
            want: vec![("node-a", 66), ("node-b", 100), ("node-c", 100)],
        },
        ScoreCase {
            name: "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
            pod: incoming(
                "foo,bar",
                vec![
                    c(1, "zone", SA, json!({}), json!({"matchLabelKeys": ["foo"]})),
                    c(1, HOST, SA, json!({}), json!({"matchLabelKeys": ["bar"]})),
                ],
                json!({}),
            ),
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-b1", "node-b", "foo,bar"),
                ("p-y1", "node-c", "foo"),
                ("p-y2", "node-c", "bar"),
            ]),
            nodes: abcd_zone(),
            failed: vec![],
            want: vec![("node-a", 60), ("node-b", 20), ("node-c", 60), ("node-d", 100)],
        },
        ScoreCase {
            name: "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
            pod: incoming(
                "foo,bar,baz",
                vec![c(1, "zone", SA, foo(), json!({})), c(1, HOST, SA, bar(), json!({"matchLabelKeys": ["baz"]}))],
                json!({}),
            ),
            pods: pods(&[
                ("p-a1", "node-a", "foo"),
                ("p-b1", "node-b", "foo,bar,baz"),
                ("p-c1", "node-c", "foo"),
                ("p-c2", "node-c", "bar"),
                ("p-d3", "node-c", "bar,baz"),
            ]),
            nodes: abcd_zone(),
            failed: vec![],
            want: vec![("node-a", 60), ("node-b", 20), ("node-c", 60), ("node-d", 100)],
        },
    ]
}

fn run_score(case: &ScoreCase) -> Result<(), String> {
    let all: Vec<NodeInfo> = case.nodes.iter().chain(&case.failed).cloned().collect();
    let snap = Snapshot::from_parts(&all, case.pods.iter(), Some(&case.pod));
    let feasible: Vec<&NodeSlot<'_>> = snap.slots[..case.nodes.len()].iter().collect();
    let got: Vec<(String, i64)> = match scores(&snap, &case.pod, &feasible) {
        Some(s) => feasible.iter().zip(s).map(|(slot, v)| (slot.node.name.clone(), v)).collect(),
        None => return Err("the plugin skipped the pod".to_string()),
    };
    let want: Vec<(String, i64)> = case.want.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    if got == want {
        Ok(())
    } else {
        Err(format!("want {want:?}, got {got:?}"))
    }
}

fn run_prefilter(case: &PreFilterCase) -> Result<(), String> {
    let snap = Snapshot::from_parts(&case.nodes, case.pods.iter(), Some(&case.pod));
    let got = FilterState::build(&snap, &case.pod).domain_counts();
    let want: Vec<BTreeMap<String, i64>> =
        case.want.iter().map(|m| m.iter().map(|(k, v)| (k.to_string(), *v)).collect()).collect();
    if got == want {
        Ok(())
    } else {
        Err(format!("want {want:?}, got {got:?}"))
    }
}

#[test]
fn upstream_vectors_pod_topology_spread() {
    let mut tally = Tally::default();
    for case in prefilter_cases() {
        tally.check(&format!("TestPreFilterState/{}", case.name), run_prefilter(&case));
    }
    for case in single_and_multiple_constraint_cases() {
        let outcome = expect_codes(filter_codes(case.nodes, case.pods, &case.pod), &case.want);
        tally.check(&format!("TestSingle/MultipleConstraint(s)/{}", case.name), outcome);
    }
    for case in score_cases() {
        tally.check(&format!("TestPodTopologySpreadScore/{}", case.name), run_score(&case));
    }
    for (name, why) in [
        ("TestPreFilterState/matchLabelKeys ignored when feature gate disabled", "feature gate off"),
        (
            "TestPreFilterState/no pod is matched when LabelSelector is nil when feature gate disabled",
            "feature gate off",
        ),
        ("TestPreFilterState/default constraints and a service (4 cases)", "List defaulting with a Service object"),
        ("TestPodTopologySpreadScore/matchLabelKeys ignored when feature gate disabled", "feature gate off"),
        ("TestPreFilterStateAddPod/RemovePod (preemption bookkeeping)", "preemption not modelled"),
    ] {
        tally.skip(name, why);
    }
    println!(
        "upstream vectors PodTopologySpread: {} ported, {} passed, {} skipped",
        tally.ported, tally.passed, tally.skipped
    );
    assert!(tally.failures.is_empty(), "failed vectors:\n{}", tally.failures.join("\n"));
    assert!(tally.ported >= 80, "{} vectors", tally.ported);
}
