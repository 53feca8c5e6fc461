//! NodeResourcesFit scoring strategies against kube-scheduler's own unit
//! tests (`noderesources/most_allocated_test.go`,
//! `requested_to_capacity_ratio_test.go`: the same nodes, pods, resources,
//! shapes and exact node scores), and the KubeSchedulerConfiguration reader
//! with upstream's validation messages.
//!
//! Upstream builders, as read here: `st.MakeNode().Capacity(m)` sets
//! allocatable `m`; `st.MakePod().Req(m)` adds one container requesting `m`
//! (`.Container(n)` one requesting nothing, no call: no container, so no
//! non-zero defaults); `makeNode(name, milliCPU, memory, extended)` sets
//! cpu in millicores, memory in bytes and the extended resources.

use serde_json::{json, Map, Value};

use super::scoring::{
    broken_linear, fit_score, validate_strategy, ResourceSpec, ScoringStrategy, ShapePoint, StrategyType,
};
use super::{ScoringConfig, Snapshot};
use crate::model::node::NodeInfo;
use crate::model::pod::PodInfo;
use crate::policy::PolicyError;

/// `name → quantity` pairs.
type Amounts<'a> = &'a [(&'a str, &'a str)];

/// A bin-packing row: name, existing `(node, containers)`, the pod's
/// containers, expected scores.
type PackRow<'a> = (&'a str, &'a [(&'a str, &'a [Amounts<'a>])], &'a [Amounts<'a>], &'a [i64]);

/// `(points, [(utilization, expected score)])`.
type ShapeCase<'a> = (&'a [(i64, i64)], &'a [(i64, i64)]);

/// One ported score table row.
struct Vector<'a> {
    name: &'a str,
    kind: StrategyType,
    resources: &'a [(&'a str, i64)],
    shape: &'a [(i64, i64)],
    /// `(node, allocatable)`.
    nodes: &'a [(&'a str, Amounts<'a>)],
    /// `(node, containers' requests)` of existing pods.
    existing: &'a [(&'a str, &'a [Amounts<'a>])],
    /// The incoming pod's containers' requests.
    pod: &'a [Amounts<'a>],
    /// Expected score per node, in node order; `Err(reason)`: skipped.
    expected: Result<&'a [i64], &'a str>,
}

fn quantities(m: Amounts<'_>) -> Value {
    Value::Object(m.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<Map<_, _>>())
}

fn node(name: &str, alloc: Amounts<'_>) -> NodeInfo {
    NodeInfo::from_json(&json!({"metadata": {"name": name}, "status": {"allocatable": quantities(alloc)}}))
        .expect("valid node")
}

fn pod(name: &str, node: Option<&str>, containers: &[Amounts<'_>]) -> PodInfo {
    let containers: Vec<Value> = containers
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"name": format!("c{i}"), "resources": {"requests": quantities(r)}}))
        .collect();
    let mut spec = json!({"containers": containers});
    if let Some(n) = node {
        spec["nodeName"] = json!(n);
    }
    PodInfo::from_json(&json!({
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
        "spec": spec,
        "status": {"phase": if node.is_some() { "Running" } else { "Pending" }}
    }))
    .expect("valid pod")
}

fn strategy(v: &Vector<'_>) -> ScoringStrategy {
    ScoringStrategy {
        kind: v.kind,
        resources: v.resources.iter().map(|(n, w)| ResourceSpec { name: n.to_string(), weight: *w }).collect(),
        shape: v.shape.iter().map(|&(utilization, score)| ShapePoint { utilization, score }).collect(),
    }
}

/// NodeResourcesFit's score of the vector's pod on each node, in order.
fn scores(v: &Vector<'_>) -> Vec<i64> {
    let nodes: Vec<NodeInfo> = v.nodes.iter().map(|(n, a)| node(n, a)).collect();
    let pods: Vec<PodInfo> =
        v.existing.iter().enumerate().map(|(i, (n, c))| pod(&format!("existing-{i}"), Some(n), c)).collect();
    let incoming = pod("incoming", None, v.pod);
    let snap = Snapshot::from_parts(&nodes, pods.iter(), None);
    let s = strategy(v);
    snap.slots.iter().map(|slot| fit_score(&s, slot, &incoming)).collect()
}

const CPU_MEM: &[(&str, i64)] = &[("cpu", 1), ("memory", 1)];
const EXTENDED_SET: &[(&str, i64)] = &[("cpu", 1), ("memory", 1), ("abc.com/xyz", 1)];
const N4K: Amounts = &[("cpu", "4000"), ("memory", "10000")];
const N6K: Amounts = &[("cpu", "6000"), ("memory", "10000")];
const N10K: Amounts = &[("cpu", "10000"), ("memory", "20000")];
const REQ_A: Amounts = &[("cpu", "1000"), ("memory", "2000")];
const REQ_B: Amounts = &[("cpu", "2000"), ("memory", "3000")];
const MOST: StrategyType = StrategyType::MostAllocated;
const RATIO: StrategyType = StrategyType::RequestedToCapacityRatio;
/// RequestedToCapacityRatio's test shape (least requested first).
const LEAST_SHAPE: &[(i64, i64)] = &[(0, 10), (100, 0)];
/// The bin-packing tests' shape.
const PACK_SHAPE: &[(i64, i64)] = &[(0, 0), (100, 1)];
const FOO4: Amounts = &[("cpu", "4000m"), ("memory", "10485760000"), ("intel.com/foo", "4")];
const FOO8: Amounts = &[("cpu", "4000m"), ("memory", "10485760000"), ("intel.com/foo", "8")];
const FOO4_BAR8: Amounts =
    &[("cpu", "4000m"), ("memory", "10485760000"), ("intel.com/foo", "4"), ("intel.com/bar", "8")];
const FOO8_BAR4: Amounts =
    &[("cpu", "4000m"), ("memory", "10485760000"), ("intel.com/foo", "8"), ("intel.com/bar", "4")];

fn vectors() -> Vec<Vector<'static>> {
    let v = |name, kind, resources, shape, nodes, existing, pod, expected| Vector {
        name,
        kind,
        resources,
        shape,
        nodes,
        existing,
        pod,
        expected: Ok(expected),
    };
    let mut out = vec![
        // most_allocated_test.go, TestMostAllocatedScoringStrategy.
        v("most: nothing scheduled, nothing requested", MOST, CPU_MEM, &[], &[("node1", N4K), ("node2", N4K)], &[], &[], &[0, 0]),
        v(
            "most: nothing scheduled, resources requested, differently sized nodes",
            MOST,
            CPU_MEM,
            &[],
            &[("node1", N4K), ("node2", N6K)],
            &[],
            &[REQ_A, REQ_B],
            &[62, 50],
        ),
        Vector {
            name: "most: Resources not set, pods scheduled with error",
            kind: MOST,
            resources: &[],
            shape: &[],
            nodes: &[],
            existing: &[],
            pod: &[],
            expected: Err("kdrift defaults an empty resource list to cpu and memory (SetDefaults_NodeResourcesFitArgs); \
                           upstream's internal-args call with none returns an Error status"),
        },
        v(
            "most: no resources requested, pods scheduled with resources",
            MOST,
            CPU_MEM,
            &[],
            &[("node1", N10K), ("node2", N10K)],
            &[
                ("node1", &[&[("cpu", "3000"), ("memory", "0")]]),
                ("node1", &[&[("cpu", "3000"), ("memory", "0")]]),
                ("node2", &[&[("cpu", "3000"), ("memory", "0")]]),
                ("node2", &[&[("cpu", "3000"), ("memory", "5000")]]),
            ],
            &[],
            &[30, 42],
        ),
        v(
            "most: resources requested, pods scheduled with resources",
            MOST,
            CPU_MEM,
            &[],
            &[("node1", N10K), ("node2", N10K)],
            &[("node1", &[&[("cpu", "3000"), ("memory", "0")]]), ("node2", &[&[("cpu", "3000"), ("memory", "5000")]])],
            &[REQ_A, REQ_B],
            &[42, 55],
        ),
        v(
            "most: resources requested equal node capacity",
            MOST,
            CPU_MEM,
            &[],
            &[("node1", &[("cpu", "5000"), ("memory", "10000")]), ("node2", &[("cpu", "10000"), ("memory", "9000")])],
            &[],
            &[&[("cpu", "2000"), ("memory", "4000")], &[("cpu", "3000"), ("memory", "5000")]],
            &[95, 75],
        ),
        v(
            "most: nothing scheduled, resources requested, differently sized nodes (memory weight 2)",
            MOST,
            &[("memory", 2), ("cpu", 1)],
            &[],
            &[("node1", N4K), ("node2", N6K)],
            &[],
            &[REQ_A, REQ_B],
            &[58, 50],
        ),
        v(
            "most: no resources requested, pods scheduled, nonzero request for resource",
            MOST,
            CPU_MEM,
            &[],
            &[("node1", &[("cpu", "250m"), ("memory", "1000Mi")]), ("node2", &[("cpu", "250m"), ("memory", "1000Mi")])],
            &[("node1", &[&[]]), ("node1", &[&[]])],
            &[&[]],
            &[80, 30],
        ),
        v(
            "most: bypass extended resource if the pod does not request",
            MOST,
            EXTENDED_SET,
            &[],
            &[("node1", N6K), ("node2", &[("cpu", "6000"), ("memory", "10000"), ("abc.com/xyz", "4")])],
            &[],
            &[REQ_A, REQ_B],
            &[50, 50],
        ),
        v(
            "most: honor extended resource if the pod request",
            MOST,
            EXTENDED_SET,
            &[],
            &[
                ("node1", &[("cpu", "6000"), ("memory", "10000"), ("abc.com/xyz", "4")]),
                ("node2", &[("cpu", "6000"), ("memory", "10000"), ("abc.com/xyz", "10")]),
            ],
            &[],
            &[&[("cpu", "3000"), ("memory", "5000"), ("abc.com/xyz", "2")]],
            &[50, 40],
        ),
        v(
            "most: if the node doesn't have a resource",
            MOST,
            &[("abc.com/xyz", 2), ("cpu", 1), ("memory", 1)],
            &[],
            &[("node1", N6K), ("node2", &[("cpu", "6000"), ("memory", "10000"), ("abc.com/xyz", "4")])],
            &[],
            &[&[("cpu", "3000"), ("memory", "4000")]],
            &[45, 45],
        ),
        // requested_to_capacity_ratio_test.go, TestRequestedToCapacityRatioScoringStrategy.
        v(
            "ratio: nothing scheduled, nothing requested (default - least requested nodes have priority)",
            RATIO,
            CPU_MEM,
            LEAST_SHAPE,
            &[("node1", N4K), ("node2", N4K)],
            &[("node1", &[]), ("node1", &[])],
            &[],
            &[100, 100],
        ),
        v(
            "ratio: nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",
            RATIO,
            CPU_MEM,
            LEAST_SHAPE,
            &[("node1", N4K), ("node2", N6K)],
            &[("node1", &[]), ("node1", &[])],
            &[REQ_A, REQ_B],
            &[38, 50],
        ),
        v(
            "ratio: no resources requested, pods scheduled with resources (default - least requested nodes have priority)",
            RATIO,
            CPU_MEM,
            LEAST_SHAPE,
            &[("node1", N4K), ("node2", N6K)],
            &[("node1", &[&[("cpu", "3000"), ("memory", "5000")]]), ("node2", &[&[("cpu", "3000"), ("memory", "5000")]])],
            &[],
            &[38, 50],
        ),
    ];
    // TestResourceBinPackingSingleExtended (the existing pod without a node is not bound: left out).
    let single: &[PackRow] = &[
        ("nothing scheduled, nothing requested", &[], &[], &[0, 0]),
        ("resources requested, pods scheduled with less resources", &[], &[&[("intel.com/foo", "2")]], &[2, 5]),
        (
            "resources requested, pods scheduled with resources, on node with existing pod running",
            &[("node2", &[&[("intel.com/foo", "2")]])],
            &[&[("intel.com/foo", "2")]],
            &[2, 10],
        ),
        ("resources requested, pods scheduled with more resources", &[], &[&[("intel.com/foo", "4")]], &[5, 10]),
    ];
    for (name, existing, pod, expected) in single {
        out.push(Vector {
            name,
            kind: RATIO,
            resources: &[("intel.com/foo", 1)],
            shape: PACK_SHAPE,
            nodes: &[("node1", FOO8), ("node2", FOO4)],
            existing,
            pod,
            expected: Ok(expected),
        });
    }
    // TestResourceBinPackingMultipleExtended.
    let multiple: &[PackRow] = &[
        ("nothing scheduled, nothing requested", &[], &[], &[0, 0]),
        (
            "resources requested, pods scheduled with less resources",
            &[],
            &[&[("intel.com/foo", "2"), ("intel.com/bar", "2")]],
            &[4, 3],
        ),
        (
            "resources requested, pods scheduled with resources, on node with existing pod running",
            &[("node2", &[&[("intel.com/foo", "4"), ("intel.com/bar", "2")]])],
            &[&[("intel.com/foo", "2"), ("intel.com/bar", "2")]],
            &[4, 7],
        ),
        (
            "resources requested, pods scheduled with more resources",
            &[],
            &[&[("intel.com/foo", "4"), ("intel.com/bar", "2")]],
            &[5, 5],
        ),
    ];
    for (name, existing, pod, expected) in multiple {
        out.push(Vector {
            name,
            kind: RATIO,
            resources: &[("intel.com/foo", 3), ("intel.com/bar", 5)],
            shape: PACK_SHAPE,
            nodes: &[("node1", FOO8_BAR4), ("node2", FOO4_BAR8)],
            existing,
            pod,
            expected: Ok(expected),
        });
    }
    out
}

/// TestBrokenLinearFunction: `(points, [(p, expected)])`.
const BROKEN_LINEAR: &[ShapeCase] = &[
    (
        &[(10, 1), (90, 9)],
        &[(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)],
    ),
    (&[(0, 2), (40, 10), (100, 0)], &[(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
    (&[(0, 2), (40, 2), (100, 2)], &[(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
];

/// The weight-validation rows of TestMostAllocatedScoringStrategy (NewFit
/// on undefaulted args): `(resources, field of the one error)`.
const WEIGHT_ERRORS: &[(&[(&str, i64)], &str)] = &[
    (&[("memory", -1), ("cpu", 1)], "scoringStrategy.resources[0].weight"),
    (&[("memory", 1), ("cpu", 0)], "scoringStrategy.resources[1].weight"),
    (&[("memory", 101)], "scoringStrategy.resources[0].weight"),
];

#[test]
fn upstream_vectors_node_resources_fit_scoring() {
    let (mut ported, mut passed, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for v in vectors() {
        ported += 1;
        match v.expected {
            Err(reason) => {
                skipped += 1;
                println!("skipped {}: {reason}", v.name);
            }
            Ok(expected) => {
                let got = scores(&v);
                if got == expected {
                    passed += 1;
                } else {
                    failures.push(format!("{}: expected {expected:?}, got {got:?}", v.name));
                }
            }
        }
    }
    for (points, assertions) in BROKEN_LINEAR {
        ported += 1;
        let shape: Vec<ShapePoint> =
            points.iter().map(|&(utilization, score)| ShapePoint { utilization, score }).collect();
        let got: Vec<(i64, i64)> = assertions.iter().map(|&(p, _)| (p, broken_linear(&shape, p))).collect();
        if got == *assertions {
            passed += 1;
        } else {
            failures.push(format!("broken linear {points:?}: expected {assertions:?}, got {got:?}"));
        }
    }
    for (resources, field) in WEIGHT_ERRORS {
        ported += 1;
        let specs: Vec<ResourceSpec> =
            resources.iter().map(|(n, w)| ResourceSpec { name: n.to_string(), weight: *w }).collect();
        let errs = validate_strategy("", "MostAllocated", &specs, None);
        if errs.len() == 1 && errs[0].starts_with(&format!("{field}: Invalid value: ")) {
            passed += 1;
        } else {
            failures.push(format!("weights {resources:?}: expected one error on {field}, got {errs:?}"));
        }
    }
    println!("upstream vectors NodeResourcesFit scoring: {ported} ported, {passed} passed, {skipped} skipped");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!((ported, passed, skipped), (28, 27, 1));
}

/// The default strategy through the general path gives the fast path's
/// LeastAllocated.
#[test]
fn least_allocated_general_path_matches_the_default() {
    let nodes = [node("a", &[("cpu", "4"), ("memory", "8Gi")]), node("b", &[("cpu", "3"), ("memory", "10")])];
    let pods = [pod("p", Some("a"), &[&[("cpu", "1"), ("memory", "2Gi")]]), pod("q", Some("b"), &[&[]])];
    let incoming = pod("in", None, &[&[("cpu", "500m")]]);
    let snap = Snapshot::from_parts(&nodes, pods.iter(), None);
    let got: Vec<i64> = snap.slots.iter().map(|s| fit_score(&ScoringStrategy::default(), s, &incoming)).collect();
    // a: cpu (4000−1500)×100/4000 = 62, memory (8Gi−2Gi−200Mi)/8Gi = 72 → 67.
    // b: cpu (3000−600)×100/3000 = 80, memory over → 0 → 40.
    assert_eq!(got, vec![67, 40]);
    let want: Vec<i64> = snap
        .slots
        .iter()
        .map(|s| super::least_allocated_score(&s.node.allocatable, &s.non_zero_requested, &incoming.non_zero_requests))
        .collect();
    assert_eq!(got, want);
}

const MOST_ALLOCATED_YAML: &str = "\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      score:
        enabled:
          - name: NodeResourcesFit
            weight: 5
        disabled:
          - name: NodeResourcesBalancedAllocation
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources:
              - name: cpu
                weight: 1
              - name: memory
";

#[test]
fn scheduler_config_reads_strategy_and_weights() {
    let c = ScoringConfig::from_yaml(MOST_ALLOCATED_YAML, "sched.yaml").expect("valid");
    assert_eq!(c.strategy.kind, StrategyType::MostAllocated);
    // An unset weight defaults to 1.
    assert_eq!(c.strategy.resources[1], ResourceSpec { name: "memory".into(), weight: 1 });
    assert_eq!(c.weights.node_resources_fit, 5);
    assert_eq!(c.weights.balanced_allocation, 0);
    assert_eq!(c.weights.taint_toleration, 3);
    assert!(!c.is_default());
    assert_eq!(
        c.describe(),
        "NodeResourcesFit MostAllocated (cpu 1, memory 1); weights NodeResourcesFit ×5, NodeResourcesBalancedAllocation off"
    );
    assert_eq!(c.source.as_deref(), Some("sched.yaml"));
    // No profile at all: the default profile.
    let d =
        ScoringConfig::from_yaml("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", "x")
            .expect("valid");
    assert!(d.is_default());
    // multiPoint `*` disabled drops every default scorer unless re-enabled.
    let m = ScoringConfig::from_yaml(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    \
         multiPoint:\n      disabled: [{name: '*'}]\n      enabled: [{name: NodeResourcesFit, weight: 0}]\n",
        "x",
    )
    .expect("valid");
    assert_eq!((m.weights.node_resources_fit, m.weights.taint_toleration, m.weights.inter_pod_affinity), (1, 0, 0));
}

fn invalid(yaml_args: &str) -> String {
    let text = format!(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n  \
         - name: NodeResourcesFit\n    args:\n{yaml_args}"
    );
    ScoringConfig::from_yaml(&text, "x").expect_err("refused").to_string()
}

#[test]
fn scheduler_config_validation_messages_are_upstreams() {
    let at = "profiles[0].pluginConfig[0].args.scoringStrategy";
    assert_eq!(
        invalid("      scoringStrategy:\n        type: Packed\n"),
        format!(
            "{at}.type: Unsupported value: \"Packed\": supported values: \"LeastAllocated\", \"MostAllocated\", \
             \"RequestedToCapacityRatio\""
        )
    );
    assert_eq!(
        invalid("      scoringStrategy:\n        type: RequestedToCapacityRatio\n"),
        format!(
            "{at}.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio"
        )
    );
    assert_eq!(
        invalid("      scoringStrategy:\n        type: MostAllocated\n        requestedToCapacityRatio:\n          shape: []\n"),
        format!("{at}.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio")
    );
    assert_eq!(
        invalid(
            "      scoringStrategy:\n        type: RequestedToCapacityRatio\n        resources: [{name: cpu, weight: 101}]\n        \
             requestedToCapacityRatio:\n          shape: [{utilization: 50, score: 11}, {utilization: 40, score: 2}, \
             {utilization: 120, score: 0}]\n"
        ),
        format!(
            "[{at}.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100], \
             {at}.requestedToCapacityRatio.shape[1].utilization: Invalid value: 40: values must be sorted in increasing order, \
             {at}.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10], \
             {at}.requestedToCapacityRatio.shape[2].utilization: Invalid value: 120: not in valid range [0, 100]]"
        )
    );
    assert_eq!(
        invalid(
            "      scoringStrategy:\n        type: RequestedToCapacityRatio\n        requestedToCapacityRatio: {}\n"
        ),
        format!("{at}.requestedToCapacityRatio.shape: Required value: at least one point must be specified")
    );
}

#[test]
fn scheduler_config_refuses_unknown_fields_with_their_path() {
    let e = invalid("      scoringStrategy:\n        type: MostAllocated\n        resource: []\n");
    assert_eq!(
        e,
        "profiles[0].pluginConfig[0].args.scoringStrategy.resource: unknown field (expected one of: type, resources, \
         requestedToCapacityRatio)"
    );
    let e = ScoringConfig::from_yaml(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofile: []\n",
        "x",
    )
    .expect_err("refused");
    assert!(matches!(&e, PolicyError::Field { path, .. } if path == "profile"), "{e}");
    let e = ScoringConfig::from_yaml(
        "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
        "x",
    )
    .expect_err("refused")
    .to_string();
    assert_eq!(e, "apiVersion: \"kubescheduler.config.k8s.io/v1beta3\" is not supported (kdrift reads kubescheduler.config.k8s.io/v1 only)");
    let e = ScoringConfig::from_yaml(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: bin-packer\n",
        "x",
    )
    .expect_err("refused")
    .to_string();
    assert_eq!(e, "profiles: no profile has schedulerName default-scheduler (the scheduler of the replacement pods)");
    let e = ScoringConfig::from_yaml(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n  \
         - {name: NodeResourcesFit, args: {}}\n  - {name: NodeResourcesFit, args: {}}\n",
        "x",
    )
    .expect_err("refused")
    .to_string();
    assert_eq!(e, "profiles[0].pluginConfig[1]: Duplicate value: \"NodeResourcesFit\"");
    let e = ScoringConfig::from_yaml(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- {}\n- \
         schedulerName: default-scheduler\n",
        "x",
    )
    .expect_err("refused")
    .to_string();
    assert_eq!(e, "profiles[1].schedulerName: Duplicate value: \"default-scheduler\"");
}

#[test]
fn scoring_shorthand_names() {
    let c = super::scoring_shorthand("most-allocated").expect("known");
    assert_eq!(c.strategy.kind, StrategyType::MostAllocated);
    assert_eq!(c.source.as_deref(), Some("--scoring most-allocated"));
    assert_eq!(
        super::scoring_shorthand("packed").expect_err("unknown"),
        "--scoring \"packed\": expected least-allocated, most-allocated or requested-to-capacity-ratio"
    );
}
