//! Scale generator for benchmarks (issue 6): a month of history of a large
//! cluster — by default 5,000 nodes (8 CPU / 32 GiB) running 150,000
//! Deployment pods — with rolling drains, scheduling failures and the
//! everyday churn (pod replacements, readiness-probe warnings), streamed in
//! time order with memory bounded by the cluster size, not by the history.
//!
//! "Events" are Kubernetes Event versions (core/v1, and events.k8s.io/v1 for
//! the scheduler's): the generator stops right after the `events`-th one, so
//! a 1M history has exactly 1,000,000 of them. Pod and Node versions come on
//! top (the initial listing of every node and pod, then each change).
//!
//! The story, all deterministic for a seed:
//!
//! - at the start every node and pod is listed (Added), pods Running;
//! - rolling drains: `events / 2000` nodes in all (at least 1, at most every
//!   node), in ten rolling operations spread over the days; each node is
//!   cordoned, its pods evicted (DisruptionTarget, Killing) and replaced on
//!   other nodes (SuccessfulCreate, Scheduled, Pulled, Created, Started),
//!   then it reboots (NodeNotReady, Starting, Rebooted, NodeReady) and is
//!   uncordoned (NodeSchedulable);
//! - scheduling failures: `events / 5000` Jobs (at least 1; or `failures`) in namespace
//!   `batch-jobs` whose pod requests 7800m CPU, more than any node has free:
//!   FailedScheduling with six series versions over 25 minutes, then
//!   DeadlineExceeded and the pod's deletion;
//! - churn until the event budget is spent: one pod replaced (a third of
//!   the steps) or one readiness-probe warning counted up six times.
//!
//! Records reuse the demo's builders (pod rendering, Event shapes); the
//! nodes are rendered here. Node names and addresses are leaked once per
//! generator (a few hundred KiB for 5,000 nodes): the pod builder wants
//! `&'static str`.

mod cluster;
mod dump;
mod steps;

#[cfg(test)]
mod tests;

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ObjectChange, ScenarioRecord};
use cluster::Cluster;
pub use dump::KubectlDump;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScaleConfig {
    /// Seed of every identifier and random choice.
    pub seed: u64,
    /// Nodes (`node-00001` …), 8 CPU / 32 GiB each.
    pub nodes: u32,
    /// Pods listed at the start (Deployments of 30 replicas in 50 namespaces).
    pub pods: u32,
    /// Event versions to emit; the stream ends right after the last one.
    pub events: u64,
    /// Days the history spans (the churn is paced to fill them).
    pub days: u32,
    /// Failing Jobs (each pod with six FailedScheduling versions, eight
    /// events in all); `None`: `events / 5000`, at least 1. A store of many
    /// Pending pods (issue 39: 200,000 of them in 1M events) sets it.
    #[serde(default)]
    pub failures: Option<u32>,
}

impl ScaleConfig {
    /// The issue-6 shape: 5,000 nodes, 150,000 pods, 30 days, `events` events.
    pub fn issue6(events: u64) -> Self {
        ScaleConfig { seed: 1, nodes: 5_000, pods: 150_000, events, days: 30, failures: None }
    }
}

/// What a generated history holds (for tests and benchmarks to pick their targets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScaleFacts {
    /// First record (2026-10-29T00:00:00Z).
    pub start: DateTime<Utc>,
    /// Last record.
    pub end: DateTime<Utc>,
    /// Nodes listed.
    pub nodes: u32,
    /// Pods listed at the start.
    pub initial_pods: u32,
    /// Pods that existed at some point (listed, replacements, failed Job pods).
    pub pods_created: u64,
    /// Event versions emitted (= the config's `events`).
    pub events: u64,
    /// Pod and Node versions emitted.
    pub objects: u64,
    /// Node drains started (cordon + evictions + reboot + uncordon).
    pub drained_nodes: u32,
    /// Pods evicted by the drains.
    pub evicted_pods: u64,
    /// Pods that got FailedScheduling.
    pub failed_pods: u32,
    /// The last pod with FailedScheduling (`namespace`, `name`).
    pub last_failed_pod: Option<(String, String)>,
    /// Instant of the middle of the history, for `--at` style queries.
    pub middle: DateTime<Utc>,
}

/// The scenario's first instant.
pub fn scale_start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, 29, 0, 0, 0).single().unwrap_or(DateTime::UNIX_EPOCH)
}

/// One object version waiting for its turn.
struct Pending {
    at: DateTime<Utc>,
    seq: u64,
    change: ObjectChange,
    object: Value,
}

impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

/// Orders the versions that the steps emit (each step's versions lie at or
/// after its start) and hands them to the sink in time order, stamping
/// resourceVersions. Holds only what lies after the current step's start.
pub(crate) struct Out<'s> {
    heap: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    rv: u64,
    sink: &'s mut dyn FnMut(ScenarioRecord),
    budget: u64,
    events: u64,
    objects: u64,
    last: DateTime<Utc>,
}

impl Out<'_> {
    /// Queues `object` as seen at `at`.
    pub(crate) fn push(&mut self, at: DateTime<Utc>, change: ObjectChange, object: Value) {
        self.seq += 1;
        self.heap.push(Reverse(Pending { at, seq: self.seq, change, object }));
    }

    /// The event budget is spent: the stream has ended.
    pub(crate) fn done(&self) -> bool {
        self.events >= self.budget
    }

    /// Emits every queued version before `until` (all with `None`).
    fn flush(&mut self, until: Option<DateTime<Utc>>) {
        while let Some(Reverse(p)) = self.heap.peek() {
            if self.done() || until.is_some_and(|u| p.at >= u) {
                break;
            }
            let Some(Reverse(mut p)) = self.heap.pop() else { break };
            self.rv += 1;
            if let Some(meta) = p.object.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.insert("resourceVersion".into(), Value::String(self.rv.to_string()));
            }
            if p.object.get("kind").and_then(Value::as_str) == Some("Event") {
                self.events += 1;
            } else {
                self.objects += 1;
            }
            self.last = p.at;
            (self.sink)(ScenarioRecord { observed_at: p.at, change: p.change, object: p.object });
        }
        if self.done() {
            self.heap.clear();
        }
    }
}

/// A step of the story, run at its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Step {
    /// Cordon a node and evict its pods.
    Drain(u32),
    /// The drained node is back after its reboot.
    Ready(u32),
    /// Uncordon it.
    Uncordon(u32),
    /// The k-th scheduling failure.
    Failure(u32),
    /// The k-th churn step.
    Churn(u64),
}

/// A streaming generator. [`ScaleGen::run`] emits the history;
/// afterwards [`ScaleGen::final_nodes`] and [`ScaleGen::final_pods`] give
/// the objects a `kubectl get` at the end would list.
pub struct ScaleGen {
    config: ScaleConfig,
    cluster: Cluster,
}

impl ScaleGen {
    /// Builds the cluster at its start (nodes and placed pods, nothing emitted yet).
    pub fn new(config: &ScaleConfig) -> Self {
        ScaleGen { config: *config, cluster: Cluster::new(config, scale_start()) }
    }

    /// Emits the history into `sink`, in time order, and returns its facts.
    pub fn run(&mut self, sink: &mut dyn FnMut(ScenarioRecord)) -> ScaleFacts {
        let c = self.config;
        let start = scale_start();
        let span = Duration::days(i64::from(c.days.max(1)));
        let mut out = Out {
            heap: BinaryHeap::new(),
            seq: 0,
            rv: 41_000_000,
            sink,
            budget: c.events,
            events: 0,
            objects: 0,
            last: start,
        };
        self.cluster.list_all(&mut out, start);

        // The plan: drains and failures at fixed times, churn paced to spend the rest.
        let drains = (c.events / 2000).clamp(1, u64::from(c.nodes.max(1))) as u32;
        let failures = c.failures.unwrap_or((c.events / 5000).max(1) as u32);
        let pods_per_node = u64::from(c.pods) / u64::from(c.nodes.max(1));
        let planned = u64::from(drains) * (6 + 6 * pods_per_node) + u64::from(failures) * 8;
        let churn_steps = c.events.saturating_sub(planned).div_ceil(6).max(1);
        let churn_every = (span - Duration::hours(1)).num_microseconds().unwrap_or(i64::MAX) / churn_steps as i64;
        let mut queue: BinaryHeap<Reverse<(DateTime<Utc>, Step)>> = BinaryHeap::new();
        let operations = 10u32.min(drains);
        let per_op = drains.div_ceil(operations);
        let op_every = span / operations as i32;
        // Nodes of one rolling drain follow each other every `gap` (≤ 12 min), within 80 % of its slot.
        let gap = (op_every * 4 / 5 / per_op as i32).min(Duration::minutes(12));
        for d in 0..drains {
            let (op, i) = (d / per_op, d % per_op);
            let at = start + Duration::hours(2) + op_every * op as i32 + gap * i as i32;
            // Spread over the node list so every rolling drain takes different nodes.
            let node = (u64::from(d) * 7919 % u64::from(c.nodes.max(1))) as u32;
            queue.push(Reverse((at, Step::Drain(node))));
        }
        let fail_every = span / (failures as i32 + 1);
        for k in 0..failures {
            queue.push(Reverse((start + fail_every * (k as i32 + 1) + Duration::seconds(17), Step::Failure(k))));
        }
        queue.push(Reverse((start + Duration::minutes(1), Step::Churn(0))));

        let mut facts = ScaleFacts {
            start,
            end: start,
            nodes: c.nodes,
            initial_pods: c.pods,
            pods_created: u64::from(c.pods),
            events: 0,
            objects: 0,
            drained_nodes: 0,
            evicted_pods: 0,
            failed_pods: 0,
            last_failed_pod: None,
            middle: start + span / 2,
        };
        while let Some(Reverse((at, step))) = queue.pop() {
            out.flush(Some(at));
            if out.done() {
                break;
            }
            match step {
                Step::Drain(n) => {
                    let moved = self.cluster.drain(&mut out, n, at);
                    facts.drained_nodes += 1;
                    facts.evicted_pods += moved;
                    facts.pods_created += moved;
                    queue.push(Reverse((at + Duration::minutes(5), Step::Ready(n))));
                    queue.push(Reverse((at + Duration::minutes(6), Step::Uncordon(n))));
                }
                Step::Ready(n) => self.cluster.ready(&mut out, n, at),
                Step::Uncordon(n) => self.cluster.uncordon(&mut out, n, at),
                Step::Failure(k) => {
                    facts.last_failed_pod = Some(self.cluster.failure(&mut out, k, at));
                    facts.failed_pods += 1;
                    facts.pods_created += 1;
                }
                Step::Churn(k) => {
                    facts.pods_created += u64::from(self.cluster.churn(&mut out, k, at));
                    let next = at + Duration::microseconds(churn_every.max(1));
                    queue.push(Reverse((next, Step::Churn(k + 1))));
                }
            }
        }
        out.flush(None);
        facts.events = out.events;
        facts.objects = out.objects;
        facts.end = out.last;
        facts
    }

    /// Every node as it is at the end (as `kubectl get nodes -o json` lists them).
    pub fn final_nodes(&self) -> impl Iterator<Item = Value> + '_ {
        self.cluster.node_objects()
    }

    /// Every pod still present at the end.
    pub fn final_pods(&self) -> impl Iterator<Item = Value> + '_ {
        self.cluster.pod_objects()
    }
}
