//! The 38 v0.36 cases of TestTopologySpreadConstraint (plus the one newer
//! case that runs with v0.36's args), in upstream's order.

use super::*;

fn soft(max_skew: i32) -> Vec<TopologySpreadConstraint> {
    vec![tsc_on(max_skew, "zone", "ScheduleAnyway", &[("foo", "bar")])]
}

fn hash_tsc() -> Vec<TopologySpreadConstraint> {
    let mut c = tsc(1);
    c[0].match_label_keys = vec!["pod-template-hash".into()];
    c
}

fn host_and_zone() -> Vec<TopologySpreadConstraint> {
    vec![
        tsc_on(1, "topology.kubernetes.io/zone", "ScheduleAnyway", &[("app", "whoami")]),
        tsc_on(1, "kubernetes.io/hostname", "DoNotSchedule", &[("app", "whoami")]),
    ]
}

fn tolerating(mut x: L) -> L {
    x.tolerations = vec![Toleration::equal("taint-test", "test", Some(TaintEffect::NoSchedule))];
    x
}

fn cases_a() -> Vec<Case> {
    use SelectorOperator::*;
    vec![
        case("2 domains, sizes [2,1], maxSkew=1, move 0 pods", two_zones(), vec![l(1, "n1").c(tsc(1)), l(1, "n1"), l(1, "n2")], 0),
        case("2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2]", two_zones(), vec![l(1, "n1").c(tsc(1)), l(2, "n1"), l(1, "n2")], 1),
        case("2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (both constraints)", two_zones(), vec![l(1, "n1").c(soft(1)), l(2, "n1"), l(1, "n2")], 1)
            .args(constraints(&["DoNotSchedule", "ScheduleAnyway"])),
        case("2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (soft constraints)", two_zones(), vec![l(1, "n1").c(soft(1)), l(2, "n1"), l(1, "n2")], 1)
            .args(constraints(&["DoNotSchedule", "ScheduleAnyway"])),
        case(
            "2 domains, sizes [3,1], maxSkew=1, no pods eligible, move 0 pods",
            two_zones(),
            vec![L { no_owners: true, ..l(1, "n1").c(tsc(1)) }, L { no_owners: true, ..l(2, "n1") }, L { no_owners: true, ..l(1, "n2") }],
            0,
        ),
        case("2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2], exclude kube-system namespace", two_zones(), vec![l(1, "n1").c(tsc(1)), l(2, "n1"), l(1, "n2")], 1)
            .args(Args {
                scope: PodScope { namespaces: Some(crate::policy::Namespaces { include: vec![], exclude: vec!["kube-system".into()] }), label_selector: None },
                ..Default::default()
            })
            .fit(),
        case("2 domains, sizes [5,2], maxSkew=1, move 1 pod to achieve [4,3]", two_zones(), vec![l(1, "n1").c(tsc(1)), l(4, "n1"), l(2, "n2")], 1),
        case("2 domains, sizes [4,0], maxSkew=1, move 2 pods to achieve [2,2]", two_zones(), vec![l(1, "n1").c(tsc(1)), l(3, "n1")], 2),
        case(
            "2 domains, sizes [4,0], maxSkew=1, only move 1 pod since pods with nodeSelector and nodeAffinity aren't evicted",
            two_zones(),
            vec![
                l(1, "n1").c(tsc(1)).sel(&[("zone", "zoneA")]),
                l(1, "n1").c(tsc(1)).sel(&[("zone", "zoneA")]),
                l(1, "n1").c(tsc(1)).aff("foo", In, &["bar"]),
                l(1, "n1").c(tsc(1)),
            ],
            1,
        )
        .fit(),
        case(
            "6 domains, sizes [0,0,0,3,3,2], maxSkew=1, No pod is evicted since topology is balanced",
            os_nodes(6),
            vec![
                l(3, "n4").c(node_tsc(1)).sel(&[("os", "windows")]),
                l(3, "n5").c(node_tsc(1)).sel(&[("os", "windows")]),
                l(2, "n6").c(node_tsc(1)).sel(&[("os", "windows")]),
            ],
            0,
        ),
        case(
            "7 domains, sizes [0,0,0,3,3,2], maxSkew=1, two pods are evicted and moved to new node added",
            os_nodes(7),
            vec![
                l(3, "n4").c(node_tsc(1)).sel(&[("os", "windows")]),
                l(3, "n5").c(node_tsc(1)).sel(&[("os", "windows")]),
                l(2, "n6").c(node_tsc(1)).sel(&[("os", "windows")]),
            ],
            2,
        ),
        case(
            "6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 1 pod is evicted from node 4",
            os_nodes(6),
            vec![
                l(4, "n4").c(node_tsc(1)).sel(&[("os", "windows")]),
                l(3, "n5").c(node_tsc(1)).sel(&[("os", "windows")]),
                l(1, "n6").c(node_tsc(1)).sel(&[("os", "windows")]),
            ],
            1,
        ),
        case(
            "6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 0 pod is evicted as pods of node:winNodeA can only be scheduled on this node and nodeFit is true ",
            os_nodes(6),
            vec![
                l(4, "n4").c(node_tsc(1)).sel(&[("node", "winNodeA")]),
                l(3, "n5").c(node_tsc(1)).sel(&[("os", "windows")]),
                l(1, "n6").c(node_tsc(1)).sel(&[("os", "windows")]),
            ],
            0,
        )
        .fit(),
        case(
            "2 domains, sizes [4,0], maxSkew=1, move 2 pods since selector matches multiple nodes",
            vec![
                labelled(bnode("n1", 2000, 3000, 10), &[("zone", "zoneA"), ("region", "boston")]),
                labelled(bnode("n2", 2000, 3000, 10), &[("zone", "zoneB"), ("region", "boston")]),
            ],
            vec![
                l(1, "n1").c(tsc(1)).sel(&[("region", "boston")]),
                l(1, "n1").sel(&[("region", "boston")]),
                l(1, "n1").sel(&[("region", "boston")]),
                l(1, "n1").sel(&[("region", "boston")]),
            ],
            2,
        ),
        case(
            "3 domains, sizes [0, 1, 100], maxSkew=1, move 66 pods to get [34, 33, 34]",
            vec![zn("n1", 2000, "zoneA"), zn("n2", 2000, "zoneB"), zn("n3", 2000, "zoneC")],
            vec![l(1, "n2").c(tsc(1)), l(100, "n3")],
            66,
        ),
        case(
            "4 domains, sizes [0, 1, 3, 5], should move 3 to get [2, 2, 3, 2]",
            vec![zn("n1", 2000, "zoneA"), zn("n2", 2000, "zoneB"), zn("n3", 2000, "zoneC"), zn("n4", 2000, "zoneD")],
            vec![l(1, "n2").c(tsc(1)), l(3, "n3"), l(5, "n4")],
            3,
        ),
        case("2 domains size [2 6], maxSkew=2, should move 1 to get [3 5]", two_zones(), vec![l(1, "n1").c(tsc(2)), l(1, "n1"), l(6, "n2")], 1),
        case(
            "2 domains size [2 6], maxSkew=2, can't move any because of node taints",
            vec![taint(zn("n1", 2000, "zoneA"), "hardware", "gpu", TaintEffect::NoSchedule), zn("n2", 2000, "zoneB")],
            vec![l(1, "n1").c(tsc(2)), l(1, "n1"), l(6, "n2")],
            0,
        )
        .fit(),
        case(
            "2 domains size [2 6], maxSkew=2, can't move any because node1 does not have enough CPU",
            vec![zn("n1", 200, "zoneA"), zn("n2", 2000, "zoneB")],
            vec![l(1, "n1").c(tsc(2)), l(1, "n1"), l(6, "n2")],
            0,
        )
        .fit(),
    ]
}

fn cases_b() -> Vec<Case> {
    use SelectorOperator::*;
    let zone_host = |name: &str, zone: &str| {
        labelled(
            bnode(name, 2000, 3000, 10),
            &[("topology.kubernetes.io/zone", zone), ("kubernetes.io/hostname", name)],
        )
    };
    let whoami = |node: &'static str| l(1, node).labels(&[("app", "whoami")]).c(host_and_zone());
    let tainted_b = || taint(zn("n2", 2000, "zoneB"), "taint-test", "test", TaintEffect::NoSchedule);
    let hash = |v: &'static str| l(1, "n1").labels(&[("foo", "bar"), ("pod-template-hash", v)]).c(hash_tsc());
    let service = |node: &'static str| {
        let c = vec![tsc_on(1, "kubernetes.io/hostname", "DoNotSchedule", &[("app.kubernetes.io/name", "service")])];
        l(2, node).labels(&[("app.kubernetes.io/name", "service")]).c(c).aff("app_service", Exists, &[])
    };
    let mut arm = tsc(1);
    arm[0].node_affinity_policy = Some("Ignore".into());
    let arch = "kubernetes.io/arch";
    vec![
        case(
            "Multiple constraints (6 nodes/2 zones, 4 pods)",
            vec![zone_host("n1", "zoneA"), zone_host("n2", "zoneA"), zone_host("n3", "zoneA"), zone_host("n4", "zoneB"), zone_host("n5", "zoneB"), zone_host("n6", "zoneB")],
            vec![whoami("n1"), whoami("n2"), whoami("n3"), whoami("n4")],
            1,
        )
        .args(constraints(&["DoNotSchedule", "ScheduleAnyway"])),
        case(
            "3 domains size [8 7 0], maxSkew=1, should move 5 to get [5 5 5]",
            vec![zn("n1", 2000, "zoneA"), zn("n2", 2000, "zoneB"), zn("n3", 2000, "zoneC")],
            vec![l(8, "n1").c(tsc(1)), l(7, "n2").c(tsc(1))],
            5,
        )
        .names(&["pod-5", "pod-6", "pod-7", "pod-8", "pod-9"]),
        case(
            "3 domains size [5 5 5], maxSkew=1, should move 0 to retain [5 5 5]",
            vec![zn("n1", 2000, "zoneA"), zn("n2", 2000, "zoneB"), zn("n3", 2000, "zoneC")],
            vec![l(5, "n1").c(tsc(1)), l(5, "n2").c(tsc(1)), l(5, "n3").c(tsc(1))],
            0,
        ),
        case(
            "2 domains, sizes [2,0], maxSkew=1, move 1 pod since pod tolerates the node with taint",
            vec![zn("n1", 2000, "zoneA"), tainted_b()],
            vec![tolerating(l(1, "n1").c(tsc(1))), l(1, "n1").sel(&[("zone", "zoneA")])],
            1,
        )
        .names(&["pod-0"]),
        case(
            "2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted node",
            vec![zn("n1", 2000, "zoneA"), tainted_b()],
            vec![l(1, "n1").c(tsc(1)), l(1, "n1").sel(&[("zone", "zoneA")])],
            0,
        ),
        case(
            "2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted node, and NodeFit is enabled",
            vec![zn("n1", 2000, "zoneA"), tainted_b()],
            vec![l(1, "n1").c(tsc(1)), l(1, "n1").sel(&[("zone", "zoneA")])],
            0,
        )
        .fit(),
        case(
            "2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with PreferNoSchedule Taint",
            vec![zn("n1", 2000, "zoneA"), taint(zn("n2", 2000, "zoneB"), "taint-test", "test", TaintEffect::PreferNoSchedule)],
            vec![l(1, "n1").c(tsc(1)), l(1, "n1").sel(&[("zone", "zoneA")])],
            1,
        )
        .names(&["pod-0"]),
        case("2 domains, sizes [2,0], maxSkew=1, move 0 pod for node with unmatched label filtering", two_zones(), vec![l(1, "n1").c(tsc(1)), l(1, "n1")], 0)
            .args(selecting("foo", &["baz"], In)),
        case("2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering", two_zones(), vec![l(1, "n1").c(tsc(1)), l(1, "n1")], 1)
            .args(selecting("foo", &["bar"], In))
            .names(&["pod-1"]),
        case("2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering (NotIn op)", two_zones(), vec![l(1, "n1").c(tsc(1)), l(1, "n1")], 1)
            .args(selecting("foo", &["baz"], NotIn))
            .names(&["pod-1"]),
        case("2 domains, sizes [2,0], maxSkew=1, move 1 pods given matchLabelKeys on same replicaset", two_zones(), vec![hash("foo"), hash("foo")], 1)
            .args(selecting("foo", &["baz"], NotIn))
            .names(&["pod-1"]),
        case("2 domains, sizes [2,0], maxSkew=1, move 0 pods given matchLabelKeys on two different replicasets", two_zones(), vec![hash("foo"), hash("bar")], 0)
            .args(selecting("foo", &["baz"], NotIn)),
        case(
            "2 domains, sizes [4,2], maxSkew=1, 2 pods in termination; nothing should be moved",
            two_zones(),
            vec![l(2, "n1").c(tsc(1)), L { deleting: true, ..l(2, "n1").c(tsc(1)) }, l(2, "n2").c(tsc(1))],
            0,
        )
        .args(selecting("foo", &["bar"], In)),
        case(
            "3 domains, sizes [2,3,4], maxSkew=1, NodeFit is enabled, and not enough cpu on zoneA; nothing should be moved",
            vec![zn9("n1", 250, "zoneA"), zn9("n2", 1000, "zoneB"), zn9("n3", 1000, "zoneC")],
            vec![l(2, "n1").c(tsc(1)), l(3, "n2").c(tsc(1)), l(4, "n3").c(tsc(1))],
            0,
        )
        .fit(),
        case(
            "3 domains, sizes [2,3,4], maxSkew=1, args.NodeFit is false, and not enough cpu on zoneA; 1 should be moved to force scale-up",
            vec![zn9("n1", 250, "zoneA"), zn9("n2", 1000, "zoneB"), zn9("n3", 1000, "zoneC")],
            vec![l(2, "n1").c(tsc(1)), l(3, "n2").c(tsc(1)), l(4, "n3").c(tsc(1))],
            1,
        )
        .args(Args { topology_balance_node_fit: Some(false), ..Default::default() })
        .fit(),
        case(
            "3 domains, sizes [[1,0], [1,1], [2,1]], maxSkew=1, NodeFit is enabled, and not enough cpu on ZoneA; nothing should be moved",
            vec![zn9("A1", 150, "zoneA"), zn9("B1", 1000, "zoneB"), zn9("C1", 1000, "zoneC"), zn9("A2", 50, "zoneA"), zn9("B2", 1000, "zoneB"), zn9("C2", 1000, "zoneC")],
            vec![l(1, "A1").c(tsc(1)), l(1, "B1").c(tsc(1)), l(1, "B2").c(tsc(1)), l(2, "C1").c(tsc(1)), l(1, "C2").c(tsc(1))],
            0,
        )
        .fit(),
        case(
            "2 domains, sizes [[1,4], [2,1]], maxSkew=1, NodeFit is enabled; should move 1",
            vec![zn9("A1", 1000, "zoneA"), zn9("A2", 1000, "zoneA"), zn9("B1", 1000, "zoneB"), zn9("B2", 1000, "zoneB")],
            vec![l(1, "A1").c(tsc(1)), l(4, "A2").c(tsc(1)), l(2, "B1").c(tsc(1)), l(1, "B2").c(tsc(1))],
            1,
        )
        .names(&["pod-4"])
        .fit(),
        case(
            "2 domains, sizes [3, 1], maxSkew=1, Tainted nodes; nothing should be moved",
            vec![
                taint(
                    taint(labelled(bnode("controlplane1", 2000, 3000, 10), &[("zone", "zoneA"), ("kubernetes.io/hostname", "cp-1")]), "node-role.kubernetes.io/controlplane", "true", TaintEffect::NoSchedule),
                    "node-role.kubernetes.io/etcd",
                    "true",
                    TaintEffect::NoSchedule,
                ),
                taint(
                    labelled(bnode("infraservices1", 2000, 3000, 10), &[("zone", "zoneA"), ("infra_service", "true"), ("kubernetes.io/hostname", "infra-1")]),
                    "infra_service",
                    "",
                    TaintEffect::NoSchedule,
                ),
                labelled(bnode("app1", 2000, 3000, 10), &[("zone", "zoneA"), ("app_service", "true"), ("kubernetes.io/hostname", "app-1")]),
                labelled(bnode("app2", 2000, 3000, 10), &[("zone", "zoneB"), ("app_service", "true"), ("kubernetes.io/hostname", "app-2")]),
            ],
            vec![service("app1"), service("app2")],
            0,
        )
        .fit(),
        case(
            "3 domains, sizes [2, 1, 0] with selectors, maxSkew=1, nodeTaintsPolicy=Ignore, should move 1 for [1, 1, 1]",
            vec![
                labelled(bnode("A1", 1000, 2000, 9), &[("zone", "zoneA"), (arch, "arm64")]),
                labelled(bnode("B1", 1000, 2000, 9), &[("zone", "zoneB"), (arch, "arm64")]),
                labelled(bnode("C1", 1000, 2000, 9), &[("zone", "zoneC"), (arch, "arm64")]),
            ],
            vec![
                l(1, "A1").c(arm.clone()).sel(&[(arch, "arm64")]),
                l(1, "A1").c(arm.clone()).sel(&[("zone", "zoneA"), (arch, "arm64")]),
                l(1, "B1").c(arm.clone()).sel(&[(arch, "arm64")]),
            ],
            1,
        )
        .names(&["pod-0"]),
        case(
            "ZoneAwareNodeFit=false (default), 2 domains [4,1], target zone at CPU capacity, existing TopologyBalanceNodeFit still blocks eviction",
            vec![zn("A1", 2000, "zoneA"), zn("B1", 50, "zoneB")],
            vec![l(4, "A1").c(tsc(1)), l(1, "B1")],
            0,
        )
        .fit(),
    ]
}

/// Every ported case, in upstream's order.
pub(super) fn all() -> Vec<Case> {
    let mut out = cases_a();
    out.extend(cases_b());
    out
}
