//! The whole descheduler policy (issue 36): every v0.36 plugin planned in
//! one cycle on a generated cluster where each has something to evict
//! (`kdrift_scenario::whole_policy_cluster`), with
//! `examples/all-plugins-policy.yaml`; and the demo store under the Helm
//! chart's default policy.

use std::collections::BTreeMap;

use kdrift_rebalance::{plan, ExtensionPoint, PlanOptions, KNOWN_PLUGINS};
use kdrift_scenario::{all_plugins_policy, whole_policy_cluster};

/// Evictions per plugin over the whole plan.
fn per_plugin(p: &kdrift_rebalance::Plan) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for run in &p.runs {
        *out.entry(run.plugin.clone()).or_insert(0) += run.evictions.len();
    }
    out
}

#[test]
fn every_plugin_evicts_on_the_generated_cluster_in_cycle_order() {
    let cluster = whole_policy_cluster(200, 7);
    let policy = all_plugins_policy().expect("the example policy is valid");
    let p = plan(&cluster.snapshot, &policy, &PlanOptions::default());
    assert_eq!(p.aborted, None);
    let counts = per_plugin(&p);
    let skips: usize = p.runs.iter().map(|r| r.skipped.len()).sum();
    println!("whole-policy plan on 200 nodes: {counts:?}, total {}, skips {skips}", p.evictions_total);
    for r in &p.runs {
        println!(
            "  {} {}: {} evicted, {} skipped, {} do not break the rule",
            r.profile,
            r.plugin,
            r.evictions.len(),
            r.skipped.len(),
            r.not_matching
        );
        let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
        for k in &r.skipped {
            let m: String = k.message.chars().take(70).collect();
            *reasons.entry(m).or_insert(0) += 1;
        }
        for (m, n) in reasons.iter().take(6) {
            println!("      {n} × {m}");
        }
    }
    for plugin in KNOWN_PLUGINS.iter().filter(|n| **n != "DefaultEvictor") {
        assert!(counts.get(*plugin).copied().unwrap_or(0) > 0, "{plugin} evicts nothing: {counts:?}");
    }
    // Deschedule plugins of every profile first, then Balance, in enabled order.
    let order: Vec<(ExtensionPoint, &str, &str)> =
        p.runs.iter().map(|r| (r.extension_point, r.profile.as_str(), r.plugin.as_str())).collect();
    assert_eq!(order.first().map(|o| o.2), Some("RemovePodsViolatingNodeAffinity"));
    assert_eq!(order.last().map(|o| (o.1, o.2)), Some(("pack", "HighNodeUtilization")));
    assert!(order.windows(2).all(|w| w[0].0 <= w[1].0), "Deschedule runs all come before Balance: {order:?}");
    // One shared evictor: the policy's limits hold over all plugins, and no pod is evicted twice.
    let mut seen = std::collections::BTreeSet::new();
    let mut per_node: BTreeMap<&str, u32> = BTreeMap::new();
    for e in p.evictions() {
        assert!(seen.insert(e.pod.index), "{} evicted twice", e.pod.key());
        *per_node.entry(e.source_node.as_str()).or_insert(0) += 1;
        assert_eq!(e.counted.max_per_node, Some(10));
    }
    assert!(per_node.values().all(|n| *n <= 10), "maxNoOfPodsToEvictPerNode 10 holds: {per_node:?}");
    let orders: Vec<usize> = p.evictions().map(|e| e.order).collect();
    assert!(orders.windows(2).all(|w| w[0] < w[1]), "eviction order follows the cycle");
}

/// Night after night under the chart's default policy on the demo store:
/// RemoveDuplicates evicts copies; PodTopologySpread's system default
/// spreading sends the coredns copy away from its sibling (node-5) for good,
/// but the queue-worker copies, whose preferred AVX2 affinity outweighs the
/// spread, land back next to a sibling and are evicted again the next
/// night — flagged as loops.
#[test]
fn a_pod_evicted_again_the_next_night_is_flagged_as_a_loop() {
    let (_dir, store) = kdrift_tests::temp_store();
    let scenario = kdrift_scenario::generate(&kdrift_scenario::ScenarioConfig { seed: 1, scale: 1 });
    kdrift_ingest::ingest_scenario(&store, scenario, 1).expect("demo ingests");
    let loaded = kdrift_analyze::load_snapshot(&store, None).expect("loads");
    let policy = kdrift_rebalance::Policy::from_yaml("deschedulerPolicy: null").expect("chart default");
    let rounds = kdrift_rebalance::simulate_rounds(&loaded.snapshot, &policy, &PlanOptions::default(), 3);
    let coredns = rounds.rounds[0]
        .simulation
        .landings
        .iter()
        .find(|l| l.pod.key() == "kube-system/coredns-zmzd9f4fcz-ljsql")
        .expect("RemoveDuplicates evicts the second coredns copy on night 1");
    assert_eq!((coredns.source_node.as_str(), coredns.node()), ("node-5", Some("node-2")), "away from its sibling");
    assert!(rounds.loops.iter().all(|l| !l.pod.starts_with("kube-system/coredns")), "{:?}", rounds.loops);
    let loops: Vec<(&str, usize, Option<&str>)> =
        rounds.loops.iter().map(|l| (l.pod.as_str(), l.round, l.landed_on.as_deref())).collect();
    assert_eq!(
        loops,
        [
            ("batch/queue-worker-99lqv4ktcz-zfccm", 1, Some("node-3")),
            ("batch/queue-worker-99lqv4ktcz-zfccm", 2, Some("node-3")),
            ("batch/queue-worker-99lqv4ktcz-vsptm", 2, Some("node-4")),
        ]
    );
    assert!(rounds.loops.iter().all(|l| l.plugin == "RemoveDuplicates" && l.again_by == "RemoveDuplicates"));
}

/// Rule plugins list only the pods that break their rule and stay (limits,
/// protection, already evicted, the kept original of a duplicate); the
/// thousands of pods that break nothing are counted in `not_matching`.
#[test]
fn rule_plugins_count_the_pods_that_break_nothing() {
    let cluster = whole_policy_cluster(200, 7);
    let policy = all_plugins_policy().expect("the example policy is valid");
    let p = plan(&cluster.snapshot, &policy, &PlanOptions::default());
    let pods = cluster.snapshot.pods.len();
    let noise = [
        "pod has no required",
        "has no taint this plugin considers",
        "tolerates every taint",
        "<= maxPodLifeTimeSeconds",
        "< podRestartThreshold",
        "not a duplicate",
        "no topology spread constraint",
        "already balanced",
        "no pod matching its",
    ];
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    for r in p.runs.iter().filter(|r| r.plugin != "LowNodeUtilization" && r.plugin != "HighNodeUtilization") {
        for s in &r.skipped {
            assert!(
                !noise.iter().any(|n| s.message.contains(n)),
                "{}: {} listed: {}",
                r.plugin,
                s.pod.key(),
                s.message
            );
        }
        // Every plugin but RemoveFailedPods (Failed pods only) looks at
        // most of the cluster's pods and finds nearly all of them fine.
        if r.plugin != "RemoveFailedPods" {
            assert!(r.not_matching > pods / 2, "{}: {} of {pods} counted", r.plugin, r.not_matching);
        }
        *skipped.entry(r.plugin.as_str()).or_insert(0) += r.skipped.len();
    }
    let total: usize = skipped.values().sum();
    assert!(total < 100, "rule plugins list {total} skips: {skipped:?}");
}

/// `rebalance explain` reads the plan's own verdicts: for every pod of a
/// small generated cluster, each plugin's "does not break its rule" verdicts
/// add up to the plan's `not_matching` count, each with the pod's numbers,
/// and every eviction and listed skip is found again.
#[test]
fn explain_accounts_for_every_pod_a_plugin_counts() {
    use kdrift_rebalance::{explain_pod, PodVerdict};
    let cluster = whole_policy_cluster(8, 3);
    let policy = all_plugins_policy().expect("the example policy is valid");
    let options = PlanOptions::default();
    let p = plan(&cluster.snapshot, &policy, &options);
    let mut unbroken = vec![0usize; p.runs.len()];
    let mut evicts = vec![0usize; p.runs.len()];
    let mut keeps = vec![0usize; p.runs.len()];
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for index in 0..cluster.snapshot.pods.len() {
        let e = explain_pod(&cluster.snapshot, &policy, &options, index);
        assert_eq!(e.plugins.len(), p.runs.len());
        for (i, v) in e.plugins.iter().enumerate() {
            match &v.verdict {
                PodVerdict::Unbroken { why } => {
                    assert!(!why.is_empty(), "{} {}: empty reason", v.plugin, e.pod);
                    unbroken[i] += 1;
                    texts.entry(v.plugin.clone()).or_insert_with(|| why.clone());
                }
                PodVerdict::Evicts { .. } => evicts[i] += 1,
                PodVerdict::Keeps { .. } => keeps[i] += 1,
                PodVerdict::Ignores { .. } => {}
                PodVerdict::Fails { error } => panic!("{} {}: failed: {error}", v.plugin, e.pod),
            }
        }
    }
    for (i, r) in p.runs.iter().enumerate() {
        assert_eq!(unbroken[i], r.not_matching, "{} {}: unbroken verdicts vs not_matching", r.profile, r.plugin);
        assert_eq!(evicts[i], r.evictions.len(), "{}", r.plugin);
        assert_eq!(keeps[i], r.skipped.len(), "{}", r.plugin);
    }
    println!("explain texts: {texts:#?}");
    assert!(texts["PodLifeTime"].contains("<= maxPodLifeTimeSeconds"), "{texts:?}");
    assert!(texts["RemovePodsHavingTooManyRestarts"].contains("< podRestartThreshold"), "{texts:?}");
    assert!(texts.contains_key("RemovePodsViolatingInterPodAntiAffinity"), "{texts:?}");
    assert!(texts.contains_key("RemovePodsViolatingTopologySpreadConstraint"), "{texts:?}");
}
