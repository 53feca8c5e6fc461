//! LowNodeUtilization with `metricsUtilization`: classification on measured
//! usage, as descheduler v0.36 does it (descheduler-plugins.md §4).
//!
//! - **KubernetesMetrics** (or the deprecated `metricsServer`): each node's
//!   cpu (millicores) and memory (bytes) from [`MeasuredUsage`], `pods` = the
//!   count of its non-terminal pods (upstream `actualUsageClient.sync`). A
//!   node without a reading, or a tracked resource other than cpu, memory and
//!   pods, fails the run ("error getting node usage: unable to find node
//!   \"n1\" in the collected metrics"). Each candidate's usage is its
//!   PodMetrics reading (upstream GETs it live, unsmoothed); a pod without
//!   one is skipped with the reason. Evicting subtracts the pod's measured
//!   usage from the node and the budget (`pods` by 1). The rest is the
//!   requests mode's: classification, deviation, truncated budget, taints,
//!   stop rules.
//! - **Prometheus**: the only tracked resource is `MetricResource`, capacity
//!   100 on every node, usage `int64(value × 100)` (truncated) of the query's
//!   sample whose `instance` is the node. Samples are validated as upstream
//!   (`instance` present, value in [0, 1], every node has one). Pod usage is
//!   unsupported: after an eviction nothing is subtracted and, without
//!   `evictionLimits.node`, the node's loop ends ("Currently, only a single
//!   pod eviction is allowed").
//!
//! Where the Prometheus values come from: [`Snapshot::metric_samples`] when
//! the caller ran the policy's own query (`kdrift rebalance plan
//! --prometheus-url`: an instant query at the plan's instant, as upstream's
//! `promv1.API.Query`; a non-vector answer is
//! [`Snapshot::metric_query_error`], failing the run); otherwise kdrift stands in
//! for the query with each node's measured cpu used / allocatable from
//! [`Snapshot::measured`] — what the usual node-utilization queries
//! (`instance:node_cpu:rate:sum`-style, normalised by the node's cpus)
//! approximate, and what the store holds whatever exporters the cluster ran.
//! A value above 1 (a node using more than its allocatable) is counted as 1
//! and said, instead of failing the run as a real out-of-range sample would.
//! The plan names the stand-in ([`UsageSource::stand_in`]).
//!
//! With neither input the run plans from requests and warns. Beyond
//! descheduler (opt-in, [`super::PlanOptions::rank_by_usage`]): candidates
//! ranked by their measured usage of the node's hot resource.

use serde::Serialize;

use super::budget::above_target;
use super::classify::{percent, NodeState};
use super::cycle::Cycle;
use super::plan::{PluginRun, ThresholdsApplied};
use super::{MetricSample, Snapshot};
use crate::model::measured::{MeasuredUsage, Reading};
use crate::model::node::NodeInfo;
use crate::model::percent::percent_text;
use crate::model::resources::{ResourceList, CPU, MEMORY, PODS};
use crate::policy::{
    ExtensionPoint, LowNodeUtilizationArgs, MetricsSource, MetricsUtilization, Profile, LOW_NODE_UTILIZATION,
    METRIC_RESOURCE,
};

/// Where a run's usage came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageSource {
    /// `KubernetesMetrics` or `Prometheus`.
    pub source: MetricsSource,
    /// How the readings were taken, e.g. `latest sample (≤ 15m old)`,
    /// `p95 over 1h` ([`Reading::describe`]).
    pub reading: String,
    /// The policy's Prometheus query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// What kdrift used in place of the query's result, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stand_in: Option<String>,
}

/// A candidate's usage (upstream `usageClient.podUsage`).
pub(crate) enum PodUsage {
    /// Measured cpu (millicores), memory (bytes) and `pods` = 1.
    Amounts(ResourceList),
    /// The source cannot say (Prometheus): evict without subtracting.
    Unsupported,
    /// No reading: the pod is skipped with this reason.
    Missing(String),
}

/// What a measured run hands the shared loop.
pub(crate) struct MetricsRun<'f> {
    pub(crate) source: UsageSource,
    pub(crate) pod_usage: Box<dyn Fn(usize) -> PodUsage + 'f>,
    /// Pod usage is measured, so candidates can be ranked by it.
    pub(crate) ranks: bool,
}

/// How `node`'s reading was taken and when:
/// `latest sample at 2026-11-13T01:59:30Z, 30s before the plan`,
/// `p95 of 120 samples over 1h to 2026-11-13T02:00:00Z` (the plan's instant).
pub fn reading_text(usage: &MeasuredUsage, node: &str) -> String {
    let Some(m) = usage.node(node) else {
        return "no reading".to_string();
    };
    match usage.reading {
        Some(r @ Reading::Percentile { .. }) => format!(
            "{} to {}",
            r.describe().replacen(" over ", &format!(" of {} samples over ", m.samples), 1),
            instant_text(usage.at_us)
        ),
        _ => format!(
            "latest sample at {}, {} before the plan",
            instant_text(m.sampled_at_us),
            age_text(usage.at_us - m.sampled_at_us)
        ),
    }
}

/// An instant in UTC µs as RFC 3339, to the second (sub-seconds when set).
fn instant_text(us: i64) -> String {
    chrono::DateTime::from_timestamp_micros(us)
        .map_or_else(|| format!("{us} µs"), |t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// `30s`, `2m05s`, `1h02m`: a sample's age, µs.
fn age_text(us: i64) -> String {
    let s = us.max(0) / 1_000_000;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

impl<'a> Cycle<'a> {
    /// The run of `args` with `m`, or `None` when the snapshot has no
    /// measured usage (the caller plans from requests; warned here).
    pub(crate) fn run_metrics(
        &mut self,
        profile: &Profile,
        args: &LowNodeUtilizationArgs,
        m: &MetricsUtilization,
    ) -> Option<PluginRun> {
        let snapshot: &'a Snapshot = self.snapshot;
        let source = match m.source() {
            Ok(s) => s,
            Err(e) => return Some(failed(profile, args, None, format!("error initializing usage client: {e}"))),
        };
        let have = match source {
            MetricsSource::KubernetesMetrics => snapshot.measured.is_some(),
            MetricsSource::Prometheus => {
                snapshot.metric_samples.is_some()
                    || snapshot.metric_query_error.is_some()
                    || snapshot.measured.is_some()
            }
        };
        if !have {
            self.warnings.push(format!(
                "profile {}: metricsUtilization is set but no measured usage was loaded; kdrift plans from requests, \
                 descheduler would use measured usage",
                profile.name
            ));
            return None;
        }
        let run = match source {
            MetricsSource::KubernetesMetrics => self.kubernetes_metrics(profile, args, snapshot),
            MetricsSource::Prometheus => self.prometheus(profile, args, m, snapshot),
        };
        if let Some(e) = &run.error {
            self.warnings.push(format!("profile {}: LowNodeUtilization failed: {e}", profile.name));
        }
        Some(run)
    }

    /// KubernetesMetrics: node usage from the readings, `pods` counted.
    fn kubernetes_metrics(&mut self, profile: &Profile, args: &LowNodeUtilizationArgs, s: &'a Snapshot) -> PluginRun {
        let usage = s.measured.as_ref().expect("checked by run_metrics");
        let tracked = super::classify::tracked_resources(args);
        let mut states = Vec::new();
        for node in self.nodes.clone() {
            let Some(reading) = usage.node(&node.name) else {
                let e =
                    format!("error getting node usage: unable to find node {:?} in the collected metrics", node.name);
                return failed(profile, args, Some(source_of(usage)), e);
            };
            let pods = self.pods_by_node.get(node.name.as_str()).cloned().unwrap_or_default();
            let mut used = ResourceList::new();
            for r in &tracked {
                let amount = match r.as_str() {
                    CPU => reading.cpu_millis,
                    MEMORY => reading.memory_bytes,
                    PODS => Some(pods.len() as i64),
                    _ => None,
                };
                let Some(amount) = amount else {
                    return failed(
                        profile,
                        args,
                        Some(source_of(usage)),
                        format!(
                            "error getting node usage: unable to find {r:?} resource for collected {:?} node metric",
                            node.name
                        ),
                    );
                };
                used.set(r, amount);
            }
            let percent =
                tracked.iter().map(|r| (r.clone(), percent(used.get(r), node.allocatable.get_opt(r)))).collect();
            let measured = Some(reading_text(usage, &node.name));
            states.push(NodeState { node, pods, usage: used, percent, measured });
        }
        let of = move |idx: usize| -> PodUsage {
            let pod = &s.pods[idx];
            match usage.pod(&pod.namespace, &pod.name) {
                Some(m) if m.cpu_millis.is_some() || m.memory_bytes.is_some() => PodUsage::Amounts(
                    [(CPU, m.cpu_millis.unwrap_or(0)), (MEMORY, m.memory_bytes.unwrap_or(0)), (PODS, 1)]
                        .iter()
                        .map(|(r, v)| (r.to_string(), *v))
                        .collect(),
                ),
                _ => PodUsage::Missing(format!(
                    "unable to get pod usage: no PodMetrics reading for {} ({})",
                    pod.key(),
                    usage.reading.map(|r| r.describe()).unwrap_or_else(|| "no reading".into())
                )),
            }
        };
        let metrics = MetricsRun { source: source_of(usage), pod_usage: Box::new(of), ranks: true };
        self.balance(profile, args, tracked, &states, Some(metrics))
    }

    /// Prometheus: `MetricResource` per node from the query's samples (or
    /// kdrift's stand-in).
    fn prometheus(
        &mut self,
        profile: &Profile,
        args: &LowNodeUtilizationArgs,
        m: &MetricsUtilization,
        s: &'a Snapshot,
    ) -> PluginRun {
        // Whole seconds, as every time kdrift prints (docs/cli.md "Times").
        let query_at = s.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let query = m.query().map(str::to_string);
        let ran = UsageSource {
            source: MetricsSource::Prometheus,
            reading: format!("the query's instant result at {query_at}"),
            query: query.clone(),
            stand_in: None,
        };
        if let Some(e) = &s.metric_query_error {
            return failed(profile, args, Some(ran), format!("error getting node usage: {e}"));
        }
        let (samples, source) = match (&s.metric_samples, &s.measured) {
            (Some(samples), _) => (samples.clone(), ran),
            (None, Some(usage)) => {
                let (samples, note) = stand_in_samples(usage, &self.nodes);
                let reading = usage.reading.map(|r| r.describe()).unwrap_or_default();
                (samples, UsageSource { source: MetricsSource::Prometheus, reading, query, stand_in: Some(note) })
            }
            (None, None) => unreachable!("checked by run_metrics"),
        };
        let mut values = std::collections::BTreeMap::new();
        let mut raw = std::collections::BTreeMap::new();
        for sample in &samples {
            let Some(instance) = &sample.instance else {
                return failed(
                    profile,
                    args,
                    Some(source),
                    "error getting node usage: The collected metrics sample is missing 'instance' key".into(),
                );
            };
            if !(0.0..=1.0).contains(&sample.value) {
                return failed(
                    profile,
                    args,
                    Some(source),
                    format!(
                        "error getting node usage: The collected metrics sample for {instance:?} has value {} outside \
                         of <0; 1> interval",
                        go_float(sample.value)
                    ),
                );
            }
            values.insert(instance.clone(), (sample.value * 100.0) as i64);
            raw.insert(instance.clone(), sample.value);
        }
        let tracked = vec![METRIC_RESOURCE.to_string()];
        let mut nodes: Vec<NodeInfo> = Vec::new();
        for node in &self.nodes {
            if !values.contains_key(&node.name) {
                return failed(
                    profile,
                    args,
                    Some(source),
                    format!("error getting node usage: unable to find metric entry for {}", node.name),
                );
            }
            let mut n = (*node).clone();
            n.allocatable = ResourceList::from_pairs(&[(METRIC_RESOURCE, 100)]);
            n.capacity = n.allocatable.clone();
            nodes.push(n);
        }
        let states: Vec<NodeState<'_>> = nodes
            .iter()
            .map(|node| {
                let used = values[&node.name];
                NodeState {
                    node,
                    pods: self.pods_by_node.get(node.name.as_str()).cloned().unwrap_or_default(),
                    usage: ResourceList::from_pairs(&[(METRIC_RESOURCE, used)]),
                    percent: [(METRIC_RESOURCE.to_string(), percent(used, Some(100)))].into_iter().collect(),
                    measured: Some(match (&s.measured, &s.metric_samples) {
                        (Some(u), None) => {
                            format!("stand-in cpu used / allocatable, {}", reading_text(u, &node.name))
                        }
                        _ => format!("query value {} at {query_at}", go_float(raw[&node.name])),
                    }),
                }
            })
            .collect();
        let metrics = MetricsRun { source, pod_usage: Box::new(|_| PodUsage::Unsupported), ranks: false };
        self.balance(profile, args, tracked, &states, Some(metrics))
    }
}

/// kdrift's stand-in for the policy's query: per considered node with a cpu
/// reading, cpu used / allocatable cpu, counted as 1 above 1 (said in the
/// note). A node without a reading gets no sample, so the run fails as
/// upstream's would ("unable to find metric entry for").
fn stand_in_samples(usage: &MeasuredUsage, nodes: &[&NodeInfo]) -> (Vec<MetricSample>, String) {
    let mut out = Vec::new();
    let mut clamped = Vec::new();
    for node in nodes {
        let (Some(cpu), Some(alloc)) =
            (usage.node(&node.name).and_then(|m| m.cpu_millis), node.allocatable.get_opt(CPU))
        else {
            continue;
        };
        let mut value = if alloc > 0 { cpu as f64 / alloc as f64 } else { 0.0 };
        if value > 1.0 {
            clamped.push(format!("{} at {}", node.name, percent_text(value * 100.0)));
            value = 1.0;
        }
        out.push(MetricSample { instance: Some(node.name.clone()), value: value.max(0.0) });
    }
    let mut note = "each node's measured cpu used / allocatable cpu, in place of the query's result".to_string();
    if !clamped.is_empty() {
        note.push_str(&format!(" (counted as 1 above 100 %: {} %)", clamped.join(" %, ")));
    }
    (out, note)
}

/// Where a KubernetesMetrics run's usage came from.
fn source_of(usage: &MeasuredUsage) -> UsageSource {
    UsageSource {
        source: MetricsSource::KubernetesMetrics,
        reading: usage.reading.map(|r| r.describe()).unwrap_or_default(),
        query: None,
        stand_in: None,
    }
}

/// A run that failed before classifying, with upstream's error. It keeps
/// the thresholds it would have applied (`args`' own: in deviation mode the
/// spans around a mean that was never computed) and, when known, where the
/// usage came from, so the plan and `explain` still say what was asked.
fn failed(profile: &Profile, args: &LowNodeUtilizationArgs, source: Option<UsageSource>, error: String) -> PluginRun {
    let mut run = PluginRun::new(&profile.name, LOW_NODE_UTILIZATION, ExtensionPoint::Balance);
    run.thresholds = ThresholdsApplied {
        deviation: args.use_deviation_thresholds,
        averages: None,
        low: args.thresholds.clone(),
        high: args.target_thresholds.clone(),
    };
    run.usage_source = source;
    run.notes.push(error.clone());
    run.error = Some(error);
    run
}

/// A sample's value as Go's `%v` prints a float64 (upstream's error text):
/// the shortest digits that read back, in exponent form below 1e-4 and
/// from 1e6 (`1e-320`, `0.5696`, `1e+06`, `NaN`, `+Inf`), never hundreds of
/// digits (strconv's `'g'` with precision -1).
pub(crate) fn go_float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Rust's `{:e}` is the shortest round-tripping digits: `5.696e-1`.
    let e = format!("{v:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    format!("{v}")
}

/// kdrift's opt-in ranking: the node's hot resource (the cpu or memory it is
/// furthest over its cap on, relative to allocatable), then `removable`
/// reordered by the pods' measured usage of it, descending, pods without a
/// reading last (stable: descheduler's order breaks ties). Returns the
/// resource, `None` when the node is over on neither.
pub(crate) fn rank_by_usage(
    removable: &mut [usize],
    of: &dyn Fn(usize) -> PodUsage,
    state: &NodeState<'_>,
    node_caps: &ResourceList,
) -> Option<String> {
    let over = above_target(&state.usage, node_caps);
    let hot = over
        .iter()
        .filter(|r| *r == CPU || *r == MEMORY)
        .map(|r| {
            let alloc = state.node.allocatable.get(r).max(1) as f64;
            (r.clone(), (state.usage.get(r) - node_caps.get(r)) as f64 / alloc)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?
        .0;
    let amount = |i: usize| match of(i) {
        PodUsage::Amounts(a) => a.get(&hot),
        _ => -1,
    };
    removable.sort_by_key(|i| std::cmp::Reverse(amount(*i)));
    Some(hot)
}

/// The eviction's rule when ranked by usage: the measured amount first.
pub(crate) fn ranked_rule(resource: &str, freed: &ResourceList, descheduler_rule: &str) -> String {
    let amount = freed.get(resource);
    let text = crate::model::quantity::format_amount(resource, amount);
    format!(
        "ranked by measured {resource} used ({text}), the node's hot resource (kdrift's --usage-window ranking, \
         beyond descheduler); descheduler's order breaks ties: {descheduler_rule}"
    )
}

#[cfg(test)]
mod tests {
    use super::go_float;

    #[test]
    fn values_print_as_go_prints_a_float64() {
        // Break-it 37 F1d: 1e-320 printed as 320 digits.
        let cases = [
            (1e-320, "1e-320"),
            (-1e-320, "-1e-320"),
            (0.5696, "0.5696"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5, "1.5"),
            (123456.0, "123456"),
            (1e6, "1e+06"),
            (1.25e21, "1.25e+21"),
            (0.0, "0"),
            (-0.0, "-0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
        ];
        for (v, want) in cases {
            assert_eq!(go_float(v), want, "{v:e}");
        }
    }
}
