//! Measured usage for the demo story (kdrift issue 37): what metrics-server
//! would have reported every minute over the last three hours of the
//! story, for every node and every running pod.
//!
//! Requests say one thing, usage another: every pod uses about 60 % of its
//! cpu request and 70 % of its memory request, except two pods on
//! [`HOT_NODE`], which from [`HotFacts::since`] on use several times their
//! requests, so that the node, about 40 % requested, runs at over 90 % of
//! its cpu — hot in fact, not on paper. Node samples are the sum of their
//! pods' plus 150m and 512 MiB of system use.
//!
//! Units: cpu in millicores, memory in bytes. Pure: the same scenario
//! always gives the same samples.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use kdrift_rebalance::{PodInfo, CPU, MEMORY};
use serde::{Deserialize, Serialize};

use super::kubectl::lists;
use super::ScenarioRecord;

/// The node that runs hot.
pub const HOT_NODE: &str = "node-4";

/// Node system use added to the sum of its pods: cpu millicores, memory bytes.
const SYSTEM: (i64, i64) = (150, 512 << 20);

/// One sample, as metrics-server reports it (a pod's containers summed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsagePoint {
    /// The node (a node sample's, or the node the pod runs on).
    pub node: String,
    /// `(namespace, name)` of a pod sample; `None` for a node sample.
    pub pod: Option<(String, String)>,
    /// The instant measured.
    pub at: DateTime<Utc>,
    /// CPU used, millicores.
    pub cpu_millis: i64,
    /// Memory working set, bytes.
    pub memory_bytes: i64,
}

/// What the samples show, for tests and the demo's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HotFacts {
    /// [`HOT_NODE`].
    pub node: String,
    /// When its pods started using far more than they request.
    pub since: DateTime<Utc>,
    /// The pods driving it (`namespace/name`), by cpu used, largest first.
    pub pods: Vec<String>,
    /// The node's cpu used over that time, millicores (allocatable: 2000).
    pub node_cpu_millis: i64,
}

/// Samples every whole minute over the 3 hours up to `end` of the pods
/// running at `end` (the placements do not change in that time: drain #2
/// is over), in time order, nodes before pods; the hot pods heat up 2 hours
/// before the last sample.
pub fn usage_points(records: &[ScenarioRecord], end: DateTime<Utc>) -> (Vec<UsagePoint>, HotFacts) {
    let pods = running_pods(records, end);
    // Whole minutes, as a collector aligned on its interval.
    let last = DateTime::from_timestamp(end.timestamp().div_euclid(60) * 60, 0).unwrap_or(end);
    let since = last - Duration::hours(2);
    // The two pods on the hot node with the largest cpu requests are the
    // ones that misbehave; they share what brings the node to 1,860m (93 %).
    let mut on_hot: Vec<&(PodInfo, i64, i64)> =
        pods.iter().filter(|(p, _, _)| p.node_name.as_deref() == Some(HOT_NODE)).collect();
    on_hot.sort_by_key(|(p, cpu, _)| (-cpu, p.key()));
    let hot: Vec<String> = on_hot.iter().take(2).map(|(p, _, _)| p.key()).collect();
    let calm_on_hot: i64 =
        on_hot.iter().filter(|(p, _, _)| !hot.contains(&p.key())).map(|(_, cpu, _)| calm_cpu(*cpu)).sum();
    let target = 1_860;
    let share = (target - SYSTEM.0 - calm_on_hot).max(0);
    let hot_cpu = [share * 3 / 5, share - share * 3 / 5];

    let mut points = Vec::new();
    let mut t = last - Duration::hours(3);
    while t <= last {
        let mut nodes: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
        let mut pod_points = Vec::new();
        for (pod, cpu, memory) in &pods {
            let Some(node) = pod.node_name.as_deref() else { continue };
            // A small wave (−2m … +2m) so that readings differ from minute to minute.
            let wave = (t.timestamp() / 60 + pod.name.len() as i64) % 5 - 2;
            let used_cpu = match hot.iter().position(|h| *h == pod.key()) {
                Some(i) if t >= since => hot_cpu[i] + wave,
                _ => calm_cpu(*cpu) + wave,
            };
            let used_memory = (*memory).max(64 << 20) * 7 / 10;
            let n = nodes.entry(node).or_insert(SYSTEM);
            (n.0, n.1) = (n.0 + used_cpu, n.1 + used_memory);
            pod_points.push(UsagePoint {
                node: node.to_string(),
                pod: Some((pod.namespace.clone(), pod.name.clone())),
                at: t,
                cpu_millis: used_cpu,
                memory_bytes: used_memory,
            });
        }
        points.extend(nodes.into_iter().map(|(node, (cpu, memory))| UsagePoint {
            node: node.to_string(),
            pod: None,
            at: t,
            cpu_millis: cpu,
            memory_bytes: memory,
        }));
        points.extend(pod_points);
        t += Duration::minutes(1);
    }
    let node_cpu_millis =
        points.iter().filter(|p| p.pod.is_none() && p.node == HOT_NODE && p.at == last).map(|p| p.cpu_millis).sum();
    (points, HotFacts { node: HOT_NODE.to_string(), since, pods: hot, node_cpu_millis })
}

/// What a calm pod uses of its cpu request `request` (60 %, at least 5m).
fn calm_cpu(request: i64) -> i64 {
    (request * 6 / 10).max(5)
}

/// The pods bound and not terminal at `at`, with their effective cpu and
/// memory requests.
fn running_pods(records: &[ScenarioRecord], at: DateTime<Utc>) -> Vec<(PodInfo, i64, i64)> {
    let lists = lists(records, Some(at));
    let Some((_, pods)) = lists.iter().find(|(name, _)| name == "pods.json") else { return Vec::new() };
    let items = pods.get("items").and_then(serde_json::Value::as_array).cloned().unwrap_or_default();
    items
        .iter()
        .filter_map(|v| PodInfo::from_json(v).ok())
        .filter(|p| p.node_name.is_some() && !p.is_terminal())
        .map(|p| {
            let requests = p.compute_requests(None);
            let (cpu, memory) = (requests.get(CPU), requests.get(MEMORY));
            (p, cpu, memory)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, ScenarioConfig};

    #[test]
    fn the_hot_node_runs_above_90_percent_from_two_hours_before_the_end_driven_by_two_pods() {
        let s = generate(&ScenarioConfig::default());
        let (points, hot) = usage_points(&s.records, s.facts.end);
        assert_eq!(hot.node, "node-4");
        assert_eq!(hot.pods.len(), 2, "{hot:?}");
        assert!((1_840..=1_880).contains(&hot.node_cpu_millis), "{hot:?}");
        let node_at = |t: DateTime<Utc>| {
            points.iter().find(|p| p.pod.is_none() && p.node == HOT_NODE && p.at == t).map(|p| p.cpu_millis)
        };
        let before = node_at(hot.since - Duration::minutes(1)).expect("a sample before");
        assert!(before < 1_000, "calm before: {before}m");
        assert!(node_at(hot.since).expect("at since") >= 1_800);
        // 181 instants × (5 nodes + the running pods), all at whole minutes.
        let instants: std::collections::BTreeSet<_> = points.iter().map(|p| p.at).collect();
        assert_eq!(instants.len(), 181);
        assert_eq!(points.iter().filter(|p| p.pod.is_none()).count(), 181 * 5);
    }
}
