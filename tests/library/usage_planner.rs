//! The planner on measured usage (issue 37): LowNodeUtilization with
//! `metricsUtilization` on the samples the store holds
//! (`kdrift_tests::usage_spike`: requests even at 50 %, `hot` at 40 % used
//! with a 5-minute spike to 95 % at the plan's instant), read as descheduler
//! does (the latest sample) and as kdrift's opt-in windowed mode does (a
//! percentile over a window).

use chrono::DateTime;
use kdrift_analyze::measured_at;
use kdrift_rebalance::{plan, NodeClass, NodeInfo, Plan, PlanOptions, PodInfo, Policy, Reading, Snapshot};
use kdrift_store::UsageSource;
use kdrift_tests::temp_store;
use kdrift_tests::usage_spike::{nodes_list, pods_list, samples, AT, POLICY};

const MIN: i64 = 60_000_000;

fn items(list: serde_json::Value) -> Vec<serde_json::Value> {
    list["items"].as_array().expect("items").clone()
}

/// Plans the scenario on the store's samples read with `reading`.
fn plan_with(reading: Reading, options: PlanOptions) -> Plan {
    let (_dir, store) = temp_store();
    let commit = store.commit_usage("test", "usage_spike", UsageSource::MetricsApi, &samples(), &[], None);
    assert_eq!(commit.expect("commit").added, 241 * 15);
    let at = DateTime::from_timestamp_micros(AT).expect("at");
    let nodes = items(nodes_list()).iter().map(|v| NodeInfo::from_json(v).expect("node")).collect();
    let pods = items(pods_list()).iter().map(|v| PodInfo::from_json(v).expect("pod")).collect();
    let mut snapshot = Snapshot::new(nodes, pods, at);
    snapshot.measured = Some(measured_at(&store, at, reading).expect("measured"));
    plan(&snapshot, &Policy::from_yaml(POLICY).expect("policy"), &options)
}

fn evicted(p: &Plan) -> Vec<String> {
    p.evictions().map(|e| e.pod.name.clone()).collect()
}

fn hot_class(p: &Plan) -> (NodeClass, String) {
    let hot = p.runs[0].nodes.iter().find(|n| n.name == "hot").expect("hot");
    (hot.class, hot.why.clone())
}

#[test]
fn the_instantaneous_reading_acts_on_a_5_minute_spike_that_a_window_percentile_ignores() {
    // As descheduler: the latest sample (95 %) → two pods of 950m leave hot.
    let now = plan_with(Reading::Latest { max_age_us: 5 * MIN }, PlanOptions::default());
    assert_eq!(evicted(&now), ["app-hot-0", "app-hot-1"]);
    assert_eq!(
        hot_class(&now),
        (
            NodeClass::Overutilized,
            "above target: cpu used 95.0 % > 70 (latest sample at 2026-11-13T02:00:00Z, 0s before the plan)".into()
        )
    );
    let run = &now.runs[0];
    assert_eq!(run.evictions[0].frees.get("cpu"), 950, "measured, not the 500m request");
    assert_eq!(run.evictions[1].node_usage_after.get("cpu"), 1900);
    assert_eq!(run.budget.as_ref().expect("budget").initial.get("cpu"), 2800 - 400);

    // p95 over 2 h: the spike is 10 of 240 samples (4.2 %) → hot at 40 %, nothing to do.
    let two_hours = Reading::Percentile { window_us: 120 * MIN, percentile: 95.0 };
    let windowed = plan_with(two_hours, PlanOptions { rank_by_usage: true, ..Default::default() });
    assert_eq!(evicted(&windowed), Vec::<String>::new());
    assert_eq!(
        hot_class(&windowed),
        (
            NodeClass::AppropriatelyUtilized,
            "above a threshold (cpu used 40.0 % > 20) but no target exceeded (p95 of 240 samples over 2h to 2026-11-13T02:00:00Z)".into()
        )
    );
    assert_eq!(
        windowed.runs[0].early_exit.as_ref().map(|e| e.message.as_str()),
        Some("All nodes are under target utilization, nothing to do here")
    );
    // Over one hour the spike is 10 of 120 samples (8.3 %): a p95 still sees
    // it (that is what a 95th percentile means), a p90 does not.
    let hour = |percentile| Reading::Percentile { window_us: 60 * MIN, percentile };
    assert_eq!(evicted(&plan_with(hour(95.0), PlanOptions::default())).len(), 2);
    assert_eq!(evicted(&plan_with(hour(90.0), PlanOptions::default())), Vec::<String>::new());
}

#[test]
fn the_landing_simulation_predicts_used_percent_from_the_moved_pods_readings() {
    let (_dir, store) = temp_store();
    store.commit_usage("test", "usage_spike", UsageSource::MetricsApi, &samples(), &[], None).expect("commit");
    let at = DateTime::from_timestamp_micros(AT).expect("at");
    let mut nodes: Vec<NodeInfo> = items(nodes_list()).iter().map(|v| NodeInfo::from_json(v).expect("node")).collect();
    let pods = items(pods_list()).iter().map(|v| PodInfo::from_json(v).expect("pod")).collect();
    let policy = Policy::from_yaml(POLICY).expect("policy");
    let measured = measured_at(&store, at, Reading::Latest { max_age_us: 5 * MIN }).expect("measured");
    let mut snapshot = Snapshot::new(nodes.clone(), pods, at);
    snapshot.measured = Some(measured);
    let landed = |s: &Snapshot| {
        let p = plan(s, &policy, &PlanOptions::default());
        let sim = kdrift_rebalance::simulate_plan(s, &p);
        let used = sim.predicted_usage.expect("measured usage → a prediction");
        let cell = |n: &str| {
            let c = used.node(n).expect("node").resource("cpu").expect("cpu").clone();
            (c.before, c.after)
        };
        let lands: Vec<String> = sim.landings.iter().map(|l| l.node().unwrap_or("-").to_string()).collect();
        (lands, cell("hot"), cell("cool"), cell("mid"))
    };
    // Requests are even, so the scheduler sends both replacements back to
    // hot, the least requested node once they left: used stays at 3800m.
    assert_eq!(
        landed(&snapshot),
        (
            vec!["hot".to_string(), "hot".to_string()],
            (Some(3800), Some(3800)),
            (Some(400), Some(400)),
            (Some(2000), Some(2000))
        )
    );
    // hot cordoned: the first lands on cool, the second on mid (cool then has
    // more requested), each taking its 950m with it.
    nodes.iter_mut().find(|n| n.name == "hot").expect("hot").unschedulable = true;
    snapshot.nodes = nodes;
    assert_eq!(
        landed(&snapshot),
        (
            vec!["cool".to_string(), "mid".to_string()],
            (Some(3800), Some(1900)),
            (Some(400), Some(1350)),
            (Some(2000), Some(2950))
        )
    );
    // mid ends at 2950m = 73.75 % > 70: the hot spot moves there, said; cool
    // (33.75 %) is no verdict.
    let p = plan(&snapshot, &policy, &PlanOptions::default());
    let used = kdrift_rebalance::simulate_plan(&snapshot, &p).predicted_usage.expect("prediction");
    let verdicts: Vec<(&str, &str, bool, f64, &str)> = used
        .hot_landings
        .iter()
        .map(|h| (h.pod.as_str(), h.node.as_str(), h.back_on_source, h.percent_after, h.message.as_str()))
        .collect();
    assert_eq!(
        verdicts,
        [(
            "web/app-hot-1",
            "mid",
            false,
            73.75,
            "web/app-hot-1 lands on mid, which ends overutilized on measured usage (predicted cpu used 73.8 % > 70 \
             target): the hot spot moves from hot"
        )]
    );
}
