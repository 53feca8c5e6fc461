//! Predicted used % after the moves (kdrift issue 37, beyond descheduler):
//! when the snapshot carries measured usage ([`crate::Snapshot::measured`]),
//! each node's measured cpu and memory before, and after the landings: its
//! reading, minus the readings of the pods that leave it, plus the readings
//! of the replacements predicted to land on it (a replacement is assumed to
//! use what the pod it replaces used). Shown next to the requested %
//! ([`super::NodeChange`]), which is what the scheduler and descheduler see.
//!
//! A [`HotLanding`] verdict names each evicted pod whose replacement is
//! predicted to land back on the node it was evicted from, or on another
//! node that ends above the evicting run's `targetThresholds` on measured
//! cpu or memory (LowNodeUtilization's "overutilized": used % > target):
//! the eviction relieves nothing there, and descheduler would evict again.
//! The verdict says which: the node was already above the target before the
//! plan (it gets hotter), the source node was and the hot spot moves, or
//! neither was and the landing makes a new one (new-user trial 39: "the hot
//! spot moves from node-1" when node-4 was the hot one, at 93.2 % used).
//! A run that planned on requests (no `metricsUtilization`) has no usage
//! target: its replacements are judged against the run's `targetThresholds`
//! when it has them (LowNodeUtilization), else [`REQUESTS_PLAN_USED_LIMIT`];
//! the simulation repeats those verdicts as landing warnings (new-user trial:
//! a requests plan sent a pod to the node measured 93.2 % cpu used).

use serde::Serialize;

use crate::model::measured::MeasuredUsage;
use crate::model::resources::{CPU, MEMORY};
use crate::planner::{Plan, Snapshot};

use super::landing::Landing;
use super::usage::percent;
use crate::model::percent::percent_text;

/// The used % above which a replacement's node is called hot when the run
/// that evicted it planned on requests and has no `targetThresholds`
/// (kdrift's choice, not descheduler's: it never reads usage for such runs).
pub const REQUESTS_PLAN_USED_LIMIT: f64 = 80.0;

/// One resource's measured use on one node, before and predicted after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsedChange {
    /// `cpu` (millicores) or `memory` (bytes).
    pub resource: String,
    /// The node's allocatable.
    pub allocatable: Option<i64>,
    /// Measured before the evictions; `None`: the node has no reading.
    pub before: Option<i64>,
    /// Predicted after the landings; `None`: the node has no reading.
    pub after: Option<i64>,
    /// `before / allocatable × 100`.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub percent_before: Option<f64>,
    /// `after / allocatable × 100`.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub percent_after: Option<f64>,
}

/// One node's measured use before and predicted after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeUsedChange {
    /// The node.
    pub node: String,
    /// `cpu`, then `memory`.
    pub resources: Vec<UsedChange>,
}

/// The predicted used side of a simulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PredictedUsage {
    /// How the readings were taken, e.g. `latest sample (≤ 5m old)`.
    pub reading: String,
    /// Per node, in snapshot order.
    pub nodes: Vec<NodeUsedChange>,
    /// Moved pods without a reading: their use is unknown and left out
    /// (`namespace/name`).
    pub unmeasured_pods: Vec<String>,
    /// Replacements predicted to land back on the hot node they left, or
    /// on a node that ends above its usage target (see the module docs).
    pub hot_landings: Vec<HotLanding>,
}

/// One replacement predicted to land where the usage is (still) too high.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HotLanding {
    /// The evicted pod, `namespace/name`.
    pub pod: String,
    /// The node it was evicted from.
    pub source_node: String,
    /// The node its replacement is predicted to land on.
    pub node: String,
    /// `node` is `source_node`.
    pub back_on_source: bool,
    /// The resource reported: the one furthest above its target, else cpu.
    pub resource: String,
    /// `node`'s predicted used % of `resource` after every landing.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths")]
    pub percent_after: f64,
    /// The evicting run's target for `resource` (`None`: it has none, e.g.
    /// a Prometheus `MetricResource` run).
    pub target: Option<f64>,
    /// The evicting run planned on requests, not measured usage: the
    /// simulation also lists this verdict among its landing warnings.
    pub on_requests: bool,
    /// The verdict, ready to print.
    pub message: String,
}

impl PredictedUsage {
    /// The node's change.
    pub fn node(&self, name: &str) -> Option<&NodeUsedChange> {
        self.nodes.iter().find(|n| n.node == name)
    }
}

impl NodeUsedChange {
    /// The change of `resource`.
    pub fn resource(&self, resource: &str) -> Option<&UsedChange> {
        self.resources.iter().find(|r| r.resource == resource)
    }
}

/// Moves the readings of the pods in `landings` as the simulation moved the
/// pods (the next night of [`super::simulate_rounds`]): each node's reading
/// loses the usage of the pods that left and gains that of those that
/// landed, and each moved pod's reading names its new node.
pub(crate) fn carry(usage: &mut MeasuredUsage, landings: &[Landing]) {
    for l in landings {
        let key = (l.pod.namespace.clone(), l.pod.name.clone());
        let Some((m, node)) = usage.pods.get_mut(&key) else { continue };
        let m = *m;
        *node = l.node().map(str::to_string);
        let mut shift = |name: &str, sign: i64| {
            if let Some(n) = usage.nodes.get_mut(name) {
                n.cpu_millis = n.cpu_millis.map(|c| c + sign * m.cpu_millis.unwrap_or(0));
                n.memory_bytes = n.memory_bytes.map(|b| b + sign * m.memory_bytes.unwrap_or(0));
            }
        };
        shift(&l.source_node, -1);
        if let Some(to) = l.node() {
            shift(to, 1);
        }
    }
}

/// The prediction for `landings` of `plan` on `snapshot`, `None` without measured usage.
pub(crate) fn predicted_usage(snapshot: &Snapshot, plan: &Plan, landings: &[Landing]) -> Option<PredictedUsage> {
    let usage: &MeasuredUsage = snapshot.measured.as_ref()?;
    let mut delta: std::collections::BTreeMap<(&str, &str), i64> = std::collections::BTreeMap::new();
    let mut unmeasured = Vec::new();
    for l in landings {
        let Some(m) = usage.pod(&l.pod.namespace, &l.pod.name) else {
            unmeasured.push(l.pod.key());
            continue;
        };
        for (r, v) in [(CPU, m.cpu_millis), (MEMORY, m.memory_bytes)] {
            let v = v.unwrap_or(0);
            *delta.entry((l.source_node.as_str(), r)).or_insert(0) -= v;
            if let Some(to) = l.node() {
                *delta.entry((to, r)).or_insert(0) += v;
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let nodes: Vec<NodeUsedChange> = snapshot
        .nodes
        .iter()
        .filter(|n| seen.insert(n.name.as_str()))
        .map(|n| {
            let reading = usage.node(&n.name);
            let resources = [CPU, MEMORY]
                .iter()
                .map(|r| {
                    let before = reading.and_then(|m| if *r == CPU { m.cpu_millis } else { m.memory_bytes });
                    let after = before.map(|b| b + delta.get(&(n.name.as_str(), *r)).copied().unwrap_or(0));
                    let allocatable = n.allocatable.get_opt(r);
                    UsedChange {
                        resource: r.to_string(),
                        allocatable,
                        before,
                        after,
                        percent_before: before.and_then(|b| percent(b, allocatable)),
                        percent_after: after.and_then(|a| percent(a, allocatable)),
                    }
                })
                .collect();
            NodeUsedChange { node: n.name.clone(), resources }
        })
        .collect();
    let hot_landings = landings.iter().filter_map(|l| hot_landing(plan, l, &nodes)).collect();
    Some(PredictedUsage {
        reading: usage.reading.map(|r| r.describe()).unwrap_or_default(),
        nodes,
        unmeasured_pods: unmeasured,
        hot_landings,
    })
}

/// The verdict on `l` when its replacement lands back on its source node or
/// on a node predicted above the evicting run's usage target.
fn hot_landing(plan: &Plan, l: &Landing, nodes: &[NodeUsedChange]) -> Option<HotLanding> {
    let to = l.node()?;
    let after = nodes.iter().find(|n| n.node == to)?;
    let run = plan.runs.iter().find(|r| r.evictions.iter().any(|e| e.order == l.order));
    let on_requests = run.is_none_or(|r| r.usage_source.is_none());
    // A usage run's own target; a requests run's targetThresholds, else the
    // fixed limit (see the module docs).
    let target = |r: &str| match run {
        Some(run) if run.usage_source.is_some() => run.thresholds.high.get(r).copied(),
        _ => Some(run.and_then(|run| run.thresholds.high.get(r).copied()).unwrap_or(REQUESTS_PLAN_USED_LIMIT)),
    };
    // (resource, percent after, target, how far above it)
    let readings: Vec<(&str, f64, Option<f64>)> = [CPU, MEMORY]
        .iter()
        .filter_map(|r| after.resource(r).and_then(|c| c.percent_after).map(|p| (*r, p, target(r))))
        .collect();
    let above = readings
        .iter()
        .filter(|(_, p, t)| t.is_some_and(|t| *p > t))
        .max_by(|a, b| (a.1 - a.2.unwrap_or(0.0)).total_cmp(&(b.1 - b.2.unwrap_or(0.0))));
    let back = to == l.source_node;
    if !back && above.is_none() {
        return None;
    }
    let &(resource, percent_after, target) = above.or_else(|| readings.first())?;
    // The fixed limit is not the policy's: say so (new-user trial 42 read
    // "> 80 target" under a policy whose targetThresholds were 50).
    let fixed = on_requests && run.and_then(|run| run.thresholds.high.get(resource)).is_none();
    let (noun, what) =
        if fixed { ("hot limit", " %, kdrift's hot limit for a plan on requests") } else { ("target", " target") };
    let against = match target {
        Some(t) if percent_after > t => format!(" > {}{what}", crate::model::percent::threshold_text(t)),
        Some(t) => format!(" ≤ {}{what}", crate::model::percent::threshold_text(t)),
        None => String::new(),
    };
    let used = format!("predicted {resource} used {} %{against}", percent_text(percent_after));
    let message = if back {
        format!(
            "{} lands back on {to}, the node it was evicted from ({used}): the eviction relieves nothing there",
            l.pod.key()
        )
    } else {
        let hot = |node: &str| -> Option<f64> {
            let before = nodes.iter().find(|n| n.node == node)?.resource(resource)?.percent_before?;
            target.filter(|t| before > *t).map(|_| before)
        };
        match (hot(to), hot(&l.source_node)) {
            // Already above the target before the plan: nothing moves, it gets hotter.
            (Some(before), _) => format!(
                "{} lands on {to}, already above the {noun} on measured usage before the plan \
                 ({resource} used {} %) and hotter after ({used})",
                l.pod.key(),
                percent_text(before)
            ),
            (None, Some(_)) => format!(
                "{} lands on {to}, which ends overutilized on measured usage ({used}): the hot spot moves from {}",
                l.pod.key(),
                l.source_node
            ),
            (None, None) => format!(
                "{} lands on {to}, which ends overutilized on measured usage ({used}): a new hot spot \
                 ({} was not above the {noun} on measured usage)",
                l.pod.key(),
                l.source_node
            ),
        }
    };
    Some(HotLanding {
        pod: l.pod.key(),
        source_node: l.source_node.clone(),
        node: to.to_string(),
        back_on_source: back,
        resource: resource.to_string(),
        percent_after,
        target,
        on_requests,
        message,
    })
}
