//! The bench cluster ([`crate::bench_cluster`]) has the shape issue 6 asks
//! for, is deterministic by seed, and its temperatures are what the planner
//! classifies. (Kept apart from the generator: rebalance's unit tests compile
//! the generator's file too.)

use crate::bench_cluster::{generate, policy, Temperature, PODS_PER_NODE};
use kdrift_rebalance::QosClass;
use kdrift_rebalance::{plan, PlanOptions};
use kdrift_rebalance::{CPU, MEMORY};

/// One mebibyte, in bytes.
const MI: i64 = 1024 * 1024;
/// One gibibyte, in bytes.
const GI: i64 = 1024 * MI;

#[test]
fn shape_matches_the_issue() {
    let c = generate(200, 7);
    assert_eq!(c.snapshot.nodes.len(), 200);
    assert_eq!(c.snapshot.pods.len(), 200 * PODS_PER_NODE);
    let count = |t| c.temperatures.iter().filter(|x| **x == t).count();
    assert_eq!((count(Temperature::Hot), count(Temperature::Cold), count(Temperature::Normal)), (20, 60, 120));
    let best_effort = c.snapshot.pods.iter().filter(|p| p.qos == QosClass::BestEffort).count();
    // 10 % of the 5,800 app pods, give or take sampling noise.
    assert!((480..=680).contains(&best_effort), "{best_effort}");
    for p in &c.snapshot.pods {
        let (cpu, mem) = (p.requests.get(CPU), p.requests.get(MEMORY));
        assert!(cpu == 0 || (50..=1000).contains(&cpu), "{cpu}");
        assert!(mem == 0 || (64 * MI..=2 * GI).contains(&mem), "{mem}");
    }
}

#[test]
fn deterministic_by_seed() {
    assert_eq!(generate(50, 1).snapshot, generate(50, 1).snapshot);
    assert_ne!(generate(50, 1).snapshot, generate(50, 2).snapshot);
}

#[test]
fn temperatures_are_what_the_planner_classifies() {
    let c = generate(300, 11);
    let policy = policy(false).expect("bench policy");
    let p = plan(&c.snapshot, &policy, &PlanOptions::default());
    let run = p.runs.first().expect("one run");
    assert!(run.early_exit.is_none());
    for (report, t) in run.nodes.iter().zip(&c.temperatures) {
        let want = match t {
            Temperature::Hot => kdrift_rebalance::NodeClass::Overutilized,
            Temperature::Cold => kdrift_rebalance::NodeClass::Underutilized,
            Temperature::Normal => kdrift_rebalance::NodeClass::AppropriatelyUtilized,
        };
        assert_eq!(report.class, want, "{}: {}", report.name, report.why);
    }
    // Every hot node gets drained down to its targets.
    assert_eq!(run.source_nodes.len(), 30);
    assert!(p.evictions_total > 30 * 10, "{}", p.evictions_total);
}
