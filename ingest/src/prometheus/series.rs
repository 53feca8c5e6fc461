//! A window's answers (one matrix per query) into usage samples: the node
//! each series names, its values checked and converted (cores →
//! millicores, bytes), CPU and memory of one object at one instant merged
//! into one sample.
//!
//! **Which node a series is** (documented in docs/sources.md, "Measured usage from Prometheus"):
//! 1. its `node` label, when it has one (kube-prometheus-stack relabels
//!    cAdvisor and node-exporter series so);
//! 2. else its `instance` without the `:port`: when kube-state-metrics'
//!    `kube_node_info` (query `node_info`) names that address as the
//!    `internal_ip` of exactly one node during the window, that node;
//! 3. else that host, when it is a name and not an IP address (the
//!    `kubernetes-nodes` and cAdvisor scrape jobs set `instance` to the node
//!    name; node-exporter scraped by hostname).
//!
//! An IP address no `kube_node_info` maps, or maps to several nodes, names
//! no node: a node series is then an input error (skipped, the window's
//! other series stored); a pod sample is stored without its node.
//!
//! A pod re-created under its name on another node (a StatefulSet's) has a
//! series per node: at an instant both answer (the old one's lookback), the
//! first series in the answer's order gives the value and the node; the
//! other series' points at those instants are counted in an input error
//! naming both series (break-it 40 F10: two series of one pod, one per
//! `node` label, lost the second's points silently).
//!
//! Instants are rounded to the millisecond, Prometheus' own resolution: a
//! point a few microseconds off the step's grid (`10:01:00.000001`, a
//! float's rounding) is the same instant as one on it (break-it 40 F10:
//! they were stored as two samples).
//!
//! Bad points (`NaN`, `±Inf`, negative, not a number, not `[time,
//! "value"]`, or at an instant outside the window's `[first, last]`, which
//! the server must answer within) are input errors naming the window, the
//! query, the series and the point; the series' other points are stored. A
//! series with a problem of its own (a label twice, not text or too long, a
//! member twice, `metric` or `values` of another shape: `super::answer`)
//! is an input error naming it, skipped; the window's other series are
//! stored (break-it 37 F3).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;

use super::client::Series;
use super::queries::{Measure, NamedPromql};
use crate::kept_errors::keep;
use crate::store::{UsageKind, UsageSample};

/// `kube_node_info`'s internal_ip → node names, over one window.
#[derive(Debug, Default, Clone)]
pub struct NodeMap {
    by_ip: HashMap<String, BTreeSet<String>>,
}

impl NodeMap {
    /// The map of a `node_info` answer (series with `node` and `internal_ip` labels).
    pub fn from_info(series: &[Series]) -> NodeMap {
        let mut by_ip: HashMap<String, BTreeSet<String>> = HashMap::new();
        for s in series.iter().filter(|s| s.problems.is_empty()) {
            if let (Some(ip), Some(node)) = (s.metric.get("internal_ip"), s.metric.get("node")) {
                if !ip.is_empty() && !node.is_empty() {
                    by_ip.entry(ip.clone()).or_default().insert(node.clone());
                }
            }
        }
        NodeMap { by_ip }
    }

    /// The node a series' labels name, or why none.
    pub fn node_of(&self, labels: &BTreeMap<String, String>) -> Result<String, String> {
        if let Some(node) = labels.get("node").filter(|n| !n.is_empty()) {
            return Ok(node.clone());
        }
        let Some(instance) = labels.get("instance").filter(|i| !i.is_empty()) else {
            return Err("it has neither a node nor an instance label".into());
        };
        let host = host_of(instance);
        match self.by_ip.get(host) {
            Some(nodes) if nodes.len() == 1 => Ok(nodes.iter().next().cloned().unwrap_or_default()),
            Some(nodes) => Err(format!(
                "its instance {instance} is the internal_ip of several nodes in kube_node_info during the window ({})",
                nodes.iter().cloned().collect::<Vec<_>>().join(", ")
            )),
            None if host.parse::<IpAddr>().is_ok() => Err(format!(
                "its instance {instance} is an IP address that no kube_node_info series maps to a node (internal_ip) \
                 during the window; scrape kube-state-metrics, or give the series a node label"
            )),
            None => Ok(host.to_string()),
        }
    }
}

/// `host` of `host:port`, `[v6]:port` or a bare host (an IPv6 address without brackets is kept whole).
fn host_of(instance: &str) -> &str {
    if let Some(rest) = instance.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match instance.split_once(':') {
        Some((host, port)) if !port.contains(':') => host,
        _ => instance,
    }
}

/// `{a="1", b="2"}`: a series as PromQL writes it.
pub fn show_labels(labels: &BTreeMap<String, String>) -> String {
    let parts: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
    format!("{{{}}}", parts.join(", "))
}

/// Samples of one window being merged, with the input errors met.
#[derive(Debug)]
pub struct Merger {
    /// `[start, end)` of the window, for the errors.
    window: String,
    /// The first and last instants asked, in microseconds: a point outside
    /// is not the window's (break-it 35 F13).
    instants: (i64, i64),
    /// Each object's slot in `objects`, by (kind, object: the node, or
    /// `namespace/pod`).
    slots: HashMap<(UsageKind, String), usize>,
    /// The objects met, in the order first met, with their points.
    objects: Vec<Object>,
    /// The node names met, each once: series refer to them by index
    /// (`u32::MAX`: no node), so a window of 600,000 points holds 5,000 names.
    nodes: Vec<String>,
    /// The series whose points were taken, in the order met: points refer
    /// to them by index.
    series: Vec<Taken>,
    /// Each name's index in `nodes`.
    node_ids: HashMap<String, u32>,
    /// Which series first gave an object's value of a query, per node (a
    /// second series for the same object and node is an error).
    given_by: HashMap<(&'static str, UsageKind, String, Option<String>), String>,
    /// The window's first 100 input errors (`kept_errors`).
    errors: Vec<String>,
    /// Its input errors past them, counted (break-it 34 M1).
    errors_not_kept: u64,
}

impl Merger {
    /// An empty window, `window` being how errors name it (`[start, end)`),
    /// `instants` the first and last instants asked (microseconds since the epoch).
    pub fn new(window: String, instants: (i64, i64)) -> Merger {
        Merger {
            window,
            instants,
            slots: HashMap::new(),
            objects: Vec::new(),
            nodes: Vec::new(),
            node_ids: HashMap::new(),
            series: Vec::new(),
            given_by: HashMap::new(),
            errors: Vec::new(),
            errors_not_kept: 0,
        }
    }

    /// Adds the answer of `query` (not `node_info`), naming nodes with `map`.
    pub fn add(&mut self, query: &NamedPromql, answer: &[Series], map: &NodeMap) {
        let (kind, cpu) = match query.measure {
            Measure::NodeCpu => (UsageKind::Node, true),
            Measure::NodeMemory => (UsageKind::Node, false),
            Measure::PodCpu => (UsageKind::Pod, true),
            Measure::PodMemory => (UsageKind::Pod, false),
            Measure::NodeInfo => return,
        };
        for series in answer {
            let shown = match series.position {
                Some(index) => format!("result[{index}]"),
                None => show_labels(&series.metric),
            };
            let error =
                |problem: String| format!("window {} query {} series {shown}: {problem}", self.window, query.name);
            if !series.problems.is_empty() {
                let problem = error(format!("{}; skipped", series.problems.join(", ")));
                keep(&mut self.errors, &mut self.errors_not_kept, problem);
                continue;
            }
            if let Some((index, point)) = &series.first_malformed {
                let problem = error(format!(
                    "{} point(s) are not [time, \"value\"] (the first, values[{index}]: {point}); skipped, the \
                     series' other points are stored",
                    series.malformed
                ));
                keep(&mut self.errors, &mut self.errors_not_kept, problem);
            }
            let node = map.node_of(&series.metric);
            let (object, namespace, pod) = match kind {
                UsageKind::Node => match &node {
                    Ok(n) => (n.clone(), None, None),
                    Err(why) => {
                        keep(
                            &mut self.errors,
                            &mut self.errors_not_kept,
                            error(format!("names no node: {why}; skipped")),
                        );
                        continue;
                    }
                },
                UsageKind::Pod => {
                    let label = |k: &str| series.metric.get(k).filter(|v| !v.is_empty()).cloned();
                    match (label("namespace"), label("pod")) {
                        // No Kubernetes name holds '/': two such pods would
                        // share the key NAMESPACE/POD (break-it 37 F6).
                        (Some(ns), Some(p)) if ns.contains('/') || p.contains('/') => {
                            let (which, value) = if ns.contains('/') { ("namespace", ns) } else { ("pod", p) };
                            let problem = error(format!(
                                "has {which} label {value:?} holding '/', which no Kubernetes name holds; skipped"
                            ));
                            keep(&mut self.errors, &mut self.errors_not_kept, problem);
                            continue;
                        }
                        (Some(ns), Some(p)) => (format!("{ns}/{p}"), Some(ns), Some(p)),
                        (ns, _) => {
                            let missing = if ns.is_none() { "namespace" } else { "pod" };
                            let problem = error(format!("has no {missing} label; skipped"));
                            keep(&mut self.errors, &mut self.errors_not_kept, problem);
                            continue;
                        }
                    }
                }
            };
            // No Kubernetes name holds a control character or a BOM (the
            // store's rule, `kdrift_rebalance::first_control`; break-it 43
            // L1: `\u{feff}node-5` was stored, matching no node).
            let mut names: Vec<(&str, &str)> = Vec::new();
            if let Ok(n) = &node {
                names.push(("node", n));
            }
            names.extend(namespace.as_deref().map(|n| ("namespace", n)));
            names.extend(pod.as_deref().map(|p| ("pod", p)));
            let control = names.iter().find_map(|(w, v)| kdrift_rebalance::first_control(v).map(|c| (*w, *v, c)));
            if let Some((which, value, character)) = control {
                let problem = error(format!(
                    "has {which} \"{}\" holding the control character {character}, which no Kubernetes name holds; \
                     skipped",
                    kdrift_rebalance::visible(value)
                ));
                keep(&mut self.errors, &mut self.errors_not_kept, problem);
                continue;
            }
            // A pod re-created under its name on another node (a StatefulSet's)
            // has one series per node: both are its.
            let identity = (query.name, kind, object.clone(), node.clone().ok());
            match self.given_by.get(&identity) {
                Some(first) => {
                    let what = if kind == UsageKind::Node { "node" } else { "pod" };
                    let problem = error(format!("gives {what} {object} again (series {first} gave it first); skipped"));
                    keep(&mut self.errors, &mut self.errors_not_kept, problem);
                    continue;
                }
                None => {
                    self.given_by.insert(identity, shown.clone());
                }
            }
            let node_id = match &node {
                Ok(name) => match self.node_ids.get(name) {
                    Some(id) => *id,
                    None => {
                        let id = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX - 1).min(u32::MAX - 1);
                        self.nodes.push(name.clone());
                        self.node_ids.insert(name.clone(), id);
                        id
                    }
                },
                Err(_) => NO_NODE,
            };
            let series_id = u32::try_from(self.series.len()).unwrap_or(u32::MAX);
            self.series.push(Taken { node: node_id, query: query.name, shown: shown.clone() });
            let slot = match self.slots.get(&(kind, object.clone())) {
                Some(i) => *i,
                None => {
                    self.objects.push(Object { kind, object: object.clone(), namespace, pod, points: Vec::new() });
                    self.slots.insert((kind, object.clone()), self.objects.len() - 1);
                    self.objects.len() - 1
                }
            };
            let slot = &mut self.objects[slot];
            slot.points.reserve(series.points.len() - series.malformed);
            let mut bad = 0usize;
            let mut first_bad = None;
            let mut outside = 0usize;
            let mut first_outside = None;
            // Instants this series already gave (break-it 34: a second point
            // at one instant was dropped silently when the window merged).
            // Servers answer in time order: a set only for one that does not.
            let mut instants = SeriesInstants::default();
            let given_from = slot.points.len();
            let mut repeated = 0usize;
            let mut first_repeated = None;
            for (index, &(t, value)) in series.points.iter().enumerate() {
                if t.is_nan() {
                    // Malformed: said above.
                    continue;
                }
                // To the millisecond (the module doc).
                let at_us = ((t * 1e3).round() as i64).saturating_mul(1000);
                if !(self.instants.0..=self.instants.1).contains(&at_us) {
                    outside += 1;
                    first_outside.get_or_insert((index, t));
                    continue;
                }
                let fine = Some(value).filter(|v| v.is_finite() && *v >= 0.0);
                let amount = fine.map(|v| if cpu { v * 1000.0 } else { v }).filter(|v| *v < 9.0e18);
                let Some(amount) = amount else {
                    bad += 1;
                    first_bad.get_or_insert((at_us, index, value));
                    continue;
                };
                if !instants.first(at_us, &slot.points[given_from..]) {
                    repeated += 1;
                    first_repeated.get_or_insert((at_us, index, value));
                    continue;
                }
                slot.points.push(Point { at_us, series: series_id, cpu, value: amount.round() as i64 });
            }
            if let Some((at_us, index, value)) = first_repeated {
                let text = series.value_text(index, value);
                let at = chrono::DateTime::from_timestamp_micros(at_us)
                    .map_or_else(|| at_us.to_string(), |t| crate::victorialogs::error::show_time(&t));
                let problem = error(format!(
                    "{repeated} point(s) repeat an instant the series already gave (the first, values[{index}] at \
                     {at}: {text:?}); skipped, the series' first point at each instant is stored"
                ));
                keep(&mut self.errors, &mut self.errors_not_kept, problem);
            }
            if let Some((index, t)) = first_outside {
                let t = if t.abs() < 1e15 { t.to_string() } else { format!("{t:e}") };
                let problem = error(format!(
                    "{outside} point(s) lie outside the instants asked (the first, values[{index}], at {t} s since \
                     the epoch); skipped, the series' other points are stored"
                ));
                keep(&mut self.errors, &mut self.errors_not_kept, problem);
            }
            if let Some((at_us, index, value)) = first_bad {
                let text = series.value_text(index, value);
                let at = chrono::DateTime::from_timestamp_micros(at_us)
                    .map_or_else(|| at_us.to_string(), |t| crate::victorialogs::error::show_time(&t));
                let problem = error(format!(
                    "{bad} point(s) are not a finite number ≥ 0 (the first at {at}: {text:?}); skipped, the series' \
                     other points are stored"
                ));
                keep(&mut self.errors, &mut self.errors_not_kept, problem);
            }
        }
    }

    /// The window's samples in time order (then kind, object), its input
    /// errors (the first 100, then one saying how many more were counted)
    /// and their true number.
    pub fn finish(mut self) -> (Vec<UsageSample>, Vec<String>, u64) {
        let mut objects = std::mem::take(&mut self.objects);
        // Objects in (kind, object) order: the order of a window's samples
        // at each instant.
        objects.sort_unstable_by(|a, b| (a.kind, &a.object).cmp(&(b.kind, &b.object)));
        for o in &mut objects {
            // Stable: at one instant the points keep the order their series
            // were answered in, so the first series' value and node win
            // where a moved pod's old and new series overlap (the old one's
            // last minutes of lookback); servers sort series by their labels,
            // so the pick is stable.
            o.points.sort_by_key(|p| p.at_us);
        }
        // Instant by instant, each object's next point: every object's points
        // are in time order, so the samples come out in (instant, kind,
        // object) order without sorting them.
        let mut cursors = vec![0usize; objects.len()];
        let mut samples = Vec::with_capacity(objects.iter().map(|o| o.points.len()).sum());
        let mut next = objects.iter().filter_map(|o| o.points.first()).map(|p| p.at_us).min();
        // Per series whose points lost to another series' at the same
        // instants: how many, the first instant, and the series that won it.
        let mut overlapped: BTreeMap<u32, (usize, i64, u32)> = BTreeMap::new();
        while let Some(at_us) = next {
            next = None;
            for (o, cursor) in objects.iter().zip(cursors.iter_mut()) {
                let points = &o.points[*cursor..];
                let here = points.iter().take_while(|p| p.at_us == at_us).count();
                if here > 0 {
                    let (mut cpu_millis, mut memory_bytes) = (None, None);
                    for p in &points[..here] {
                        let value = if p.cpu { &mut cpu_millis } else { &mut memory_bytes };
                        match value {
                            Some((_, winner)) => {
                                let lost = overlapped.entry(p.series).or_insert((0, at_us, *winner));
                                lost.0 += 1;
                            }
                            None => *value = Some((p.value, p.series)),
                        }
                    }
                    let node = self.series.get(points[0].series as usize).map_or(NO_NODE, |s| s.node);
                    samples.push(UsageSample {
                        kind: o.kind,
                        node: self.nodes.get(node as usize).cloned(),
                        namespace: o.namespace.clone(),
                        pod: o.pod.clone(),
                        at_us,
                        cpu_millis: cpu_millis.map(|(v, _)| v),
                        memory_bytes: memory_bytes.map(|(v, _)| v),
                    });
                    *cursor += here;
                }
                if let Some(p) = o.points.get(*cursor) {
                    next = Some(next.map_or(p.at_us, |n: i64| n.min(p.at_us)));
                }
            }
        }
        for (lost, (count, at_us, winner)) in overlapped {
            let (Some(lost), Some(winner)) = (self.series.get(lost as usize), self.series.get(winner as usize)) else {
                continue;
            };
            let at = chrono::DateTime::from_timestamp_micros(at_us)
                .map_or_else(|| at_us.to_string(), |t| crate::victorialogs::error::show_time(&t));
            let problem = format!(
                "window {} query {} series {}: {count} point(s) at instants series {} already gave (the first at \
                 {at}); skipped, the first series' value is stored (a pod moved to another node has both series for \
                 a few instants; more is one pod measured twice)",
                self.window, lost.query, lost.shown, winner.shown
            );
            keep(&mut self.errors, &mut self.errors_not_kept, problem);
        }
        let total = self.errors.len() as u64 + self.errors_not_kept;
        if self.errors_not_kept > 0 {
            let location = format!("window {}", self.window);
            self.errors.push(crate::kept_errors::more_errors(self.errors_not_kept, &location));
        }
        (samples, self.errors, total)
    }
}

/// A series whose points a [`Merger`] took: its node (an index in the
/// merger's node names, [`NO_NODE`]: none), query and labels (for errors).
#[derive(Debug)]
struct Taken {
    node: u32,
    query: &'static str,
    shown: String,
}

/// The instants one series has given a stored point at: the last one
/// while they come in time order (as servers answer), every one once
/// they do not.
#[derive(Debug, Default)]
struct SeriesInstants {
    last: Option<i64>,
    unordered: Option<std::collections::HashSet<i64>>,
}

impl SeriesInstants {
    /// Whether `at_us` is an instant not given before (then noted);
    /// `given` holds the points the series stored so far.
    fn first(&mut self, at_us: i64, given: &[Point]) -> bool {
        if let Some(seen) = &mut self.unordered {
            return seen.insert(at_us);
        }
        match self.last {
            Some(last) if at_us == last => false,
            Some(last) if at_us < last => {
                let mut seen: std::collections::HashSet<i64> = given.iter().map(|p| p.at_us).collect();
                let fresh = seen.insert(at_us);
                self.unordered = Some(seen);
                fresh
            }
            _ => {
                self.last = Some(at_us);
                true
            }
        }
    }
}

/// `node` of a [`Point`] whose series named no node (a pod sample stored
/// without its node).
const NO_NODE: u32 = u32::MAX;

/// One object (a node, or a pod) of a window, with its points in the order
/// the answers gave them.
#[derive(Debug)]
struct Object {
    kind: UsageKind,
    /// The node, or `namespace/pod`: what orders the window's samples.
    object: String,
    namespace: Option<String>,
    pod: Option<String>,
    points: Vec<Point>,
}

/// One value of one series at one instant.
#[derive(Debug, Clone, Copy)]
struct Point {
    at_us: i64,
    /// The series, an index in [`Merger`]'s series taken.
    series: u32,
    /// CPU (millicores) or memory (bytes).
    cpu: bool,
    value: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn a_series_is_named_by_its_node_label_then_kube_node_info_then_its_host() {
        let info = vec![
            Series { metric: labels(&[("node", "n-a"), ("internal_ip", "10.0.0.1")]), ..Default::default() },
            Series { metric: labels(&[("node", "n-b"), ("internal_ip", "10.0.0.2")]), ..Default::default() },
            Series { metric: labels(&[("node", "n-c"), ("internal_ip", "10.0.0.2")]), ..Default::default() },
        ];
        let map = NodeMap::from_info(&info);
        let of = |pairs: &[(&str, &str)]| map.node_of(&labels(pairs));
        assert_eq!(of(&[("node", "n-x"), ("instance", "10.0.0.1:9100")]), Ok("n-x".into()));
        assert_eq!(of(&[("instance", "10.0.0.1:9100")]), Ok("n-a".into()));
        assert_eq!(of(&[("instance", "worker-7:9100")]), Ok("worker-7".into()));
        assert_eq!(of(&[("instance", "worker-7")]), Ok("worker-7".into()));
        assert!(of(&[("instance", "10.0.0.2:9100")]).expect_err("two nodes").contains("(n-b, n-c)"));
        assert!(of(&[("instance", "[fd00::9]:9100")]).expect_err("unmapped v6").contains("is an IP address"));
        assert_eq!(of(&[("job", "x")]), Err("it has neither a node nor an instance label".into()));
    }
}

#[cfg(test)]
mod value_tests {
    use super::*;
    use crate::prometheus::queries::resolve;

    #[test]
    fn a_pod_moved_to_another_node_keeps_both_series_and_the_first_wins_where_they_overlap() {
        let queries = resolve(&[]).expect("defaults");
        let pod_memory = queries.iter().find(|q| q.name == "pod_memory").expect("pod_memory");
        let on = |node: &str, values: Vec<(f64, &str)>| {
            let metric = [("namespace", "db"), ("pod", "pg-0"), ("node", node)];
            let metric = metric.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            Series::with_points(metric, &values)
        };
        let t = 1_794_528_000.0;
        let old = on("n1", vec![(t, "100"), (t + 30.0, "100")]);
        let new = on("n2", vec![(t + 30.0, "200"), (t + 60.0, "200")]);
        let again = on("n2", vec![(t + 90.0, "300")]);
        let mut merger = Merger::new("[w)".into(), (0, i64::MAX));
        merger.add(pod_memory, &[old, new, again], &NodeMap::default());
        let (samples, errors, _) = merger.finish();
        let shown: Vec<(i64, Option<String>, Option<i64>)> =
            samples.iter().map(|s| (s.at_us / 1_000_000 - 1_794_528_000, s.node.clone(), s.memory_bytes)).collect();
        assert_eq!(
            shown,
            [(0, Some("n1".into()), Some(100)), (30, Some("n1".into()), Some(100)), (60, Some("n2".into()), Some(200))]
        );
        assert_eq!(
            errors,
            [
                "window [w) query pod_memory series {namespace=\"db\", node=\"n2\", pod=\"pg-0\"}: gives pod db/pg-0 \
                 again (series {namespace=\"db\", node=\"n2\", pod=\"pg-0\"} gave it first); skipped",
                // The overlap is counted and named (break-it 40 F10).
                "window [w) query pod_memory series {namespace=\"db\", node=\"n2\", pod=\"pg-0\"}: 1 point(s) at \
                 instants series {namespace=\"db\", node=\"n1\", pod=\"pg-0\"} already gave (the first at \
                 2026-11-13T00:00:30Z); skipped, the first series' value is stored (a pod moved to another node has \
                 both series for a few instants; more is one pod measured twice)",
            ]
        );
    }

    #[test]
    fn points_repeating_an_instant_of_their_series_are_counted_and_named_and_the_first_is_stored() {
        // Break-it 34: a second point at one instant was dropped silently.
        let queries = resolve(&[]).expect("defaults");
        let node_memory = queries.iter().find(|q| q.name == "node_memory").expect("node_memory");
        let t = 1_794_528_000.0;
        let metric = |node: &str| [("node".to_string(), node.to_string())].into_iter().collect();
        let series = vec![
            // In time order, one instant twice (another value) and once more (the same).
            Series::with_points(metric("n1"), &[(t, "100"), (t + 30.0, "200"), (t + 30.0, "999"), (t + 30.0, "200")]),
            // Out of order: t given again after t + 60.
            Series::with_points(metric("n2"), &[(t, "5"), (t + 60.0, "7"), (t, "6"), (t + 30.0, "8")]),
            Series::with_points(metric("n3"), &[(t, "1"), (t + 30.0, "2")]),
        ];
        let mut merger = Merger::new("[w)".into(), (0, i64::MAX));
        merger.add(node_memory, &series, &NodeMap::default());
        let (samples, errors, total) = merger.finish();
        let shown: Vec<(i64, Option<String>, Option<i64>)> =
            samples.iter().map(|s| (s.at_us / 1_000_000 - 1_794_528_000, s.node.clone(), s.memory_bytes)).collect();
        assert_eq!(
            shown,
            [
                (0, Some("n1".into()), Some(100)),
                (0, Some("n2".into()), Some(5)),
                (0, Some("n3".into()), Some(1)),
                (30, Some("n1".into()), Some(200)),
                (30, Some("n2".into()), Some(8)),
                (30, Some("n3".into()), Some(2)),
                (60, Some("n2".into()), Some(7)),
            ]
        );
        assert_eq!(
            errors,
            [
                "window [w) query node_memory series {node=\"n1\"}: 2 point(s) repeat an instant the series \
                 already gave (the first, values[2] at 2026-11-13T00:00:30Z: \"999\"); skipped, the series' first \
                 point at each instant is stored",
                "window [w) query node_memory series {node=\"n2\"}: 1 point(s) repeat an instant the series \
                 already gave (the first, values[2] at 2026-11-13T00:00:00Z: \"6\"); skipped, the series' first \
                 point at each instant is stored",
            ]
        );
        assert_eq!(total, 2);
    }

    #[test]
    fn a_pod_or_namespace_label_holding_a_slash_is_an_error_not_a_merge() {
        // Break-it 37 F6: {a/b, c} and {a, b/c} were one pod "a/b/c".
        let queries = resolve(&[]).expect("defaults");
        let pod_cpu = queries.iter().find(|q| q.name == "pod_cpu").expect("pod_cpu");
        let labels = |ns: &str, pod: &str| {
            [("namespace", ns), ("pod", pod), ("node", "n1")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .into_iter()
                .collect()
        };
        let series = vec![
            Series::with_points(labels("a/b", "c"), &[(1_794_528_000.0, "0.1")]),
            Series::with_points(labels("a", "b/c"), &[(1_794_528_000.0, "0.9")]),
            Series::with_points(labels("a", "c"), &[(1_794_528_000.0, "0.5")]),
        ];
        let mut merger = Merger::new("[w)".into(), (0, i64::MAX));
        merger.add(pod_cpu, &series, &NodeMap::default());
        let (samples, errors, _) = merger.finish();
        assert_eq!(samples.len(), 1, "only a/c is a pod");
        assert_eq!(
            errors,
            [
                "window [w) query pod_cpu series {namespace=\"a/b\", node=\"n1\", pod=\"c\"}: has namespace label \
                 \"a/b\" holding '/', which no Kubernetes name holds; skipped",
                "window [w) query pod_cpu series {namespace=\"a\", node=\"n1\", pod=\"b/c\"}: has pod label \"b/c\" \
                 holding '/', which no Kubernetes name holds; skipped",
            ]
        );
    }

    #[test]
    fn a_name_holding_a_bom_or_a_control_character_is_an_error() {
        // Break-it 43 L1: node `\u{feff}node-5` was stored, matching no node.
        let queries = resolve(&[]).expect("defaults");
        let pod_cpu = queries.iter().find(|q| q.name == "pod_cpu").expect("pod_cpu");
        let labels = |ns: &str, pod: &str, node: &str| {
            [("namespace", ns), ("pod", pod), ("node", node)]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .into_iter()
                .collect()
        };
        let series = vec![
            Series::with_points(labels("a", "b", "\u{feff}n1"), &[(1_794_528_000.0, "0.1")]),
            Series::with_points(labels("a", "c\u{1b}", "n1"), &[(1_794_528_000.0, "0.9")]),
            Series::with_points(labels("a", "c", "n1"), &[(1_794_528_000.0, "0.5")]),
        ];
        let mut merger = Merger::new("[w)".into(), (0, i64::MAX));
        merger.add(pod_cpu, &series, &NodeMap::default());
        let (samples, errors, _) = merger.finish();
        assert_eq!(samples.len(), 1, "only a/c is a pod");
        assert_eq!(
            errors,
            [
                "window [w) query pod_cpu series {namespace=\"a\", node=\"\\u{feff}n1\", pod=\"b\"}: has node \
                 \"\\u{feff}n1\" holding the control character \\u{feff}, which no Kubernetes name holds; skipped",
                "window [w) query pod_cpu series {namespace=\"a\", node=\"n1\", pod=\"c\\u{1b}\"}: has pod \
                 \"c\\e\" holding the control character \\e, which no Kubernetes name holds; skipped",
            ]
        );
    }

    #[test]
    fn a_windows_errors_past_100_are_counted_and_said_once() {
        // Break-it 34 M1 for Prometheus: every bad series was kept.
        let queries = resolve(&[]).expect("defaults");
        let pod_cpu = queries.iter().find(|q| q.name == "pod_cpu").expect("pod_cpu");
        let series: Vec<Series> = (0..250)
            .map(|i| {
                let metric = [("pod".to_string(), format!("p{i}"))].into_iter().collect();
                Series::with_points(metric, &[(1_794_528_000.0, "0.5")])
            })
            .collect();
        let mut merger = Merger::new("[w)".into(), (0, i64::MAX));
        merger.add(pod_cpu, &series, &NodeMap::default());
        let (samples, errors, total) = merger.finish();
        assert_eq!((samples.len(), errors.len(), total), (0, 101, 250));
        assert_eq!(errors[0], "window [w) query pod_cpu series {pod=\"p0\"}: has no namespace label; skipped");
        assert_eq!(
            errors[100],
            "… and 150 more errors like these in window [w) (only the first 100 are shown and stored; the others are \
             counted)"
        );
    }

    #[test]
    fn bad_points_are_named_and_the_series_other_points_stored() {
        let queries = resolve(&[]).expect("defaults");
        let node_cpu = queries.iter().find(|q| q.name == "node_cpu").expect("node_cpu");
        let labels: BTreeMap<String, String> = [("node".to_string(), "n1".to_string())].into_iter().collect();
        let t = 1_794_528_000.0;
        let values = [(t, "0.25"), (t + 30.0, "NaN"), (t + 60.0, "+Inf"), (t + 90.0, "1.0005")];
        let mut merger = Merger::new("[w)".into(), (0, i64::MAX));
        merger.add(node_cpu, &[Series::with_points(labels, &values)], &NodeMap::default());
        let (samples, errors, _) = merger.finish();
        let cpu: Vec<(i64, Option<i64>)> = samples.iter().map(|s| (s.at_us, s.cpu_millis)).collect();
        assert_eq!(cpu, [(1_794_528_000_000_000, Some(250)), (1_794_528_090_000_000, Some(1001))]);
        assert_eq!(
            errors,
            ["window [w) query node_cpu series {node=\"n1\"}: 2 point(s) are not a finite number ≥ 0 (the first at \
              2026-11-13T00:00:30Z: \"NaN\"); skipped, the series' other points are stored"]
        );
    }

    #[test]
    fn malformed_points_out_of_window_points_and_a_label_twice_are_named_and_the_rest_stored() {
        // Break-it 35 F13-F15: one such point lost the whole answer (or
        // stopped the window at the store, or was stored at year 8364); a
        // label twice kept its last value silently.
        let queries = resolve(&[]).expect("defaults");
        let node_cpu = queries.iter().find(|q| q.name == "node_cpu").expect("node_cpu");
        let answer = r#"[
            {"metric":{"node":"n1"},"values":[[1794528000,"0.5"],[1794528030,1],["x","1"],[1e300,"1"],
                                              [1794528060,"0.25"],[1794528000.5e3,"1"]]},
            {"metric":{"node":"n2","node":"n3"},"values":[[1794528000,"2"]]},
            {"metric":{"node":"n4"},"values":[[1794528000,"1"]]}
        ]"#;
        let series: Vec<Series> = serde_json::from_str(answer).expect("read tolerantly");
        let mut merger = Merger::new("[w)".into(), (1_794_528_000_000_000, 1_794_528_060_000_000));
        merger.add(node_cpu, &series, &NodeMap::default());
        let (samples, errors, total) = merger.finish();
        let cpu: Vec<(i64, String, Option<i64>)> = samples
            .iter()
            .map(|s| (s.at_us / 1_000_000 - 1_794_528_000, s.node.clone().unwrap_or_default(), s.cpu_millis))
            .collect();
        assert_eq!(cpu, [(0, "n1".into(), Some(500)), (0, "n4".into(), Some(1000)), (60, "n1".into(), Some(250))]);
        assert_eq!(total, 3);
        assert_eq!(
            errors,
            [
                "window [w) query node_cpu series {node=\"n1\"}: 2 point(s) are not [time, \"value\"] (the first, \
                 values[1]: [1794528030,1]); skipped, the series' other points are stored",
                "window [w) query node_cpu series {node=\"n1\"}: 2 point(s) lie outside the instants asked (the first, \
                 values[3], at 1e300 s since the epoch); skipped, the series' other points are stored",
                "window [w) query node_cpu series {node=\"n3\"}: label \"node\" twice; skipped",
            ]
        );
    }
}
