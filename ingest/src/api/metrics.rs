//! `metrics.k8s.io/v1beta1` as a source of measured usage (issue 37):
//! metrics-server's NodeMetrics and PodMetrics, read with the shared list
//! pager (deadlines, redaction) and stored as `usage_samples` with source
//! `metrics-api`, each at its item's `timestamp` (the instant the kubelet
//! measured; re-reading the same reading adds nothing).
//!
//! A node's sample is its `usage`; a pod's is the sum of its containers'
//! (as `kubectl top pods` sums them). Quantities are parsed exactly
//! (`kdrift_rebalance::Quantity`): cpu `123456789n` is 124 millicores
//! (nanocores summed, then rounded up as apimachinery's `MilliValue`),
//! memory `1234Ki` is 1,263,616 bytes. An item that does not read is an
//! error naming it; the other items are stored.
//!
//! A server that does not serve the API (404: metrics-server not
//! installed) gives [`METRICS_NOT_SERVED`], a note, not an error:
//! `kdrift ingest api` says it once and stores the rest, `kdrift record`
//! says it once and keeps asking every interval.

use chrono::{DateTime, Utc};
use kdrift_rebalance::{ClusterError, Deadlines, ListPager, Quantity, ResourceKind, Scope, NODE_METRICS, POD_METRICS};
use kube::Client;
use serde_json::Value;

use crate::kept_errors::{keep, more_errors};
use crate::store::{Store, StoreError, UsageKind, UsageSample, UsageSource};

/// The note when the API server does not serve `metrics.k8s.io`.
pub const METRICS_NOT_SERVED: &str = "metrics.k8s.io is not served (metrics-server not installed?): no usage samples";

/// What reading the metrics API gave: one sample (`kdrift ingest api`) or
/// every sample of a recorder run (`kdrift record`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct MetricsReport {
    /// The API was asked this many times.
    pub takes: u64,
    /// Node samples read.
    pub nodes: u64,
    /// Pod samples read.
    pub pods: u64,
    /// Samples new to the store.
    pub added: u64,
    /// Samples the store already had (a reading not renewed since).
    pub duplicates: u64,
    /// The server does not serve `metrics.k8s.io` ([`METRICS_NOT_SERVED`]).
    pub not_served: bool,
    /// Items that could not be read, and lists that failed (not a 404),
    /// each naming the resource; redacted. Per take, the first 100
    /// (`KEPT_ERRORS_PER_FILE`) and one "… and N more errors like these";
    /// an error said by an earlier take is not repeated (`kdrift record`
    /// asks every interval: said once per cause).
    pub errors: Vec<String>,
    /// Input errors in all, over every take, the ones only counted or
    /// said before included (the "… more" lines themselves not).
    pub error_total: u64,
    /// Every error said so far.
    #[serde(skip)]
    said: std::collections::HashSet<String>,
}

impl MetricsReport {
    /// The errors of `take` not said by an earlier take, now noted as said.
    fn fresh(&mut self, take: &Take) -> Vec<String> {
        take.errors.iter().filter(|e| self.said.insert((*e).clone())).cloned().collect()
    }

    /// Adds what one take gave, `fresh` its errors not said before.
    fn add(&mut self, take: &Take, added: u64, fresh: Vec<String>) {
        self.takes += 1;
        self.nodes += take.count(UsageKind::Node);
        self.pods += take.count(UsageKind::Pod);
        self.added += added;
        self.duplicates += (take.samples.len() as u64).saturating_sub(added);
        self.not_served |= take.not_served;
        self.error_total += take.errors.len() as u64 - u64::from(take.errors_not_kept > 0) + take.errors_not_kept;
        self.errors.extend(fresh);
    }
}

/// Where the metrics API is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricsSource {
    /// The cluster URL (for locations).
    pub cluster: String,
    /// Namespaces whose pods are read (nodes are always read).
    pub scope: Scope,
    /// The longest wait for an answer (kubectl's `--request-timeout`).
    pub request_timeout: std::time::Duration,
    /// The most bytes of one list page read (`--max-page-bytes`).
    pub max_page_bytes: usize,
}

impl MetricsSource {
    /// The location runs and errors name: the group's URL and the scope.
    pub fn location(&self) -> String {
        format!("{}{} ({})", self.cluster, NODE_METRICS.group_path(), self.scope)
    }
}

/// One reading of NodeMetrics and PodMetrics.
#[derive(Debug, Default)]
pub(crate) struct Take {
    pub(crate) samples: Vec<UsageSample>,
    /// The first 100 (`KEPT_ERRORS_PER_FILE`), then one "… and N more".
    pub(crate) errors: Vec<String>,
    /// Errors past the first 100, only counted.
    pub(crate) errors_not_kept: u64,
    pub(crate) not_served: bool,
    /// The lists that failed (not a 404): each one's message and innermost
    /// cause (NodeMetrics, then PodMetrics).
    pub(crate) failures: Vec<(String, String)>,
}

impl Take {
    fn count(&self, kind: UsageKind) -> u64 {
        self.samples.iter().filter(|s| s.kind == kind).count() as u64
    }
}

/// Reads NodeMetrics then PodMetrics once. A 404 (either) is
/// [`Take::not_served`]; another failure is one of [`Take::failures`], what
/// was read before it kept. Pages are read up to `source.max_page_bytes`.
pub(crate) async fn take(client: &Client, source: &MetricsSource) -> Take {
    let mut take = Take::default();
    let deadlines = Deadlines::new(&source.cluster, source.request_timeout);
    for resource in [NODE_METRICS, POD_METRICS] {
        let mut pager = ListPager::new(client.clone(), &resource, &source.scope, 0)
            .with_deadlines(deadlines.clone())
            .with_max_page_bytes(source.max_page_bytes)
            .without_resource_version();
        loop {
            match pager.next_page().await {
                Ok(Some(page)) => {
                    let name = resource.name();
                    let skipped = page.bad.iter().map(ToString::to_string).chain(page.odd.iter().cloned());
                    for bad in skipped {
                        let message = kdrift_rebalance::mask_shown(&format!("{name}: {bad}"));
                        keep(&mut take.errors, &mut take.errors_not_kept, message);
                    }
                    for item in &page.items {
                        match sample(&resource, item) {
                            Ok(s) => take.samples.push(s),
                            Err(e) => {
                                keep(&mut take.errors, &mut take.errors_not_kept, e);
                            }
                        }
                    }
                }
                Ok(None) => break,
                Err(e) if e.code() == Some(404) => {
                    take.not_served = true;
                    return take;
                }
                Err(e) => {
                    take.failures.push((failure(&e), kdrift_rebalance::root_cause(&e)));
                    break;
                }
            }
        }
    }
    if take.errors_not_kept > 0 {
        take.errors.push(more_errors(take.errors_not_kept, &source.location()));
    }
    take
}

fn failure(e: &ClusterError) -> String {
    super::report::ResourceProblem::from_error(e).message
}

/// The sample of one NodeMetrics or PodMetrics item, or the error naming it.
fn sample(resource: &ResourceKind, item: &Value) -> Result<UsageSample, String> {
    let text = |ptr: &str| item.pointer(ptr).and_then(Value::as_str);
    let name = text("/metadata/name").unwrap_or_default();
    let namespace = text("/metadata/namespace");
    let object = match namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    };
    let named = |what: String| kdrift_rebalance::mask_shown(&format!("{}: {object}: {what}", resource.name()));
    if name.is_empty() {
        return Err(named("an item without metadata.name; skipped".into()));
    }
    let at = text("/timestamp")
        .ok_or_else(|| "no timestamp".to_string())
        .and_then(|t| DateTime::parse_from_rfc3339(t).map_err(|e| format!("timestamp {t:?} is not RFC 3339 ({e})")))
        .map_err(|e| named(format!("{e}; skipped")))?
        .with_timezone(&Utc);
    if let Some(why) = crate::usage_times::implausible(at, Utc::now()) {
        return Err(named(format!("timestamp {why}; skipped")));
    }
    let usages: Vec<&Value> = if resource.namespaced {
        item.get("containers").and_then(Value::as_array).into_iter().flatten().filter_map(|c| c.get("usage")).collect()
    } else {
        item.get("usage").into_iter().collect()
    };
    let (cpu_nanos, memory_bytes) = summed(&usages).map_err(|e| named(format!("{e}; skipped")))?;
    let cpu_millis = cpu_nanos.map(|n| n.div_euclid(1_000_000) + i64::from(n.rem_euclid(1_000_000) != 0));
    let at_us = at.timestamp_micros();
    Ok(if resource.namespaced {
        UsageSample {
            kind: UsageKind::Pod,
            node: None,
            namespace: namespace.map(str::to_string),
            pod: Some(name.to_string()),
            at_us,
            cpu_millis,
            memory_bytes,
        }
    } else {
        UsageSample {
            kind: UsageKind::Node,
            node: Some(name.to_string()),
            namespace: None,
            pod: None,
            at_us,
            cpu_millis,
            memory_bytes,
        }
    })
}

/// CPU in nanocores and memory in bytes over `usages` (`None`: no usage
/// gave it).
fn summed(usages: &[&Value]) -> Result<(Option<i64>, Option<i64>), String> {
    let mut cpu: Option<i64> = None;
    let mut memory: Option<i64> = None;
    for usage in usages {
        for (resource, total) in [("cpu", &mut cpu), ("memory", &mut memory)] {
            let Some(value) = usage.get(resource) else { continue };
            let text = value.as_str().ok_or_else(|| format!("usage.{resource} {value} is not a quantity string"))?;
            let q = Quantity::parse(text).map_err(|e| format!("usage.{resource} {e}"))?;
            let amount = if resource == "cpu" { q.nano_value() } else { q.value() };
            let amount = amount
                .filter(|a| *a >= 0)
                .ok_or_else(|| format!("usage.{resource} {text:?} is negative or too large"))?;
            *total = Some(total.unwrap_or(0).saturating_add(amount));
        }
    }
    Ok((cpu, memory))
}

/// `kdrift ingest api`'s sample: reads the metrics API once and stores what
/// it gave as one ingest run of its own (source kind `api`, location
/// [`MetricsSource::location`]); nothing is stored when the API is not
/// served.
///
/// # Errors
/// [`StoreError`] (nothing of the take is stored).
pub async fn sample_metrics(
    store: &Store,
    client: &Client,
    source: &MetricsSource,
) -> Result<MetricsReport, StoreError> {
    let mut take = take(client, source).await;
    // The failure of a one-shot sample is an error of its run.
    let failures = std::mem::take(&mut take.failures);
    take.errors.extend(failures.into_iter().map(|(message, _)| message));
    let mut report = MetricsReport::default();
    let fresh = report.fresh(&take);
    if take.not_served {
        report.add(&take, 0, fresh);
        return Ok(report);
    }
    let commit = store.commit_usage("api", &source.location(), UsageSource::MetricsApi, &take.samples, &fresh, None)?;
    report.add(&take, commit.added, fresh);
    Ok(report)
}

/// Stores one take of the recorder under its open run `run_id`, with the
/// errors no earlier take said (a cause is stored once, not every
/// interval); the errors stored.
pub(crate) fn store_take(
    store: &Store,
    run_id: i64,
    source: &MetricsSource,
    take: &Take,
    report: &mut MetricsReport,
) -> Result<u64, StoreError> {
    let fresh = report.fresh(take);
    let stored = fresh.len() as u64;
    if take.not_served {
        report.add(take, 0, fresh);
        return Ok(stored);
    }
    let commit = store.add_usage_to_run(run_id, &source.location(), UsageSource::MetricsApi, &take.samples, &fresh)?;
    report.add(take, commit.added, fresh);
    Ok(stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_sums_its_containers_in_nanocores_and_a_bad_item_is_named() {
        let pod = serde_json::json!({"metadata": {"name": "api-1", "namespace": "web"},
            "timestamp": "2026-11-13T00:00:05Z", "window": "20.044s",
            "containers": [{"name": "a", "usage": {"cpu": "100500000n", "memory": "1234Ki"}},
                           {"name": "b", "usage": {"cpu": "100500000n", "memory": "1Mi"}}]});
        let s = sample(&POD_METRICS, &pod).expect("sample");
        assert_eq!(
            (s.kind, s.namespace.as_deref(), s.pod.as_deref(), s.cpu_millis, s.memory_bytes, s.at_us),
            (
                UsageKind::Pod,
                Some("web"),
                Some("api-1"),
                Some(201),
                Some(1234 * 1024 + (1 << 20)),
                1_794_528_005_000_000
            )
        );
        let node = serde_json::json!({"metadata": {"name": "node-1"}, "timestamp": "2026-11-13T00:00:05Z",
            "usage": {"cpu": "123456789n", "memory": "123456Ki"}});
        let s = sample(&NODE_METRICS, &node).expect("sample");
        assert_eq!(
            (s.node.as_deref(), s.cpu_millis, s.memory_bytes),
            (Some("node-1"), Some(124), Some(123_456 * 1024))
        );
        let bad = serde_json::json!({"metadata": {"name": "node-2"}, "timestamp": "2026-11-13T00:00:05Z",
            "usage": {"cpu": "lots", "memory": "1Ki"}});
        let e = sample(&NODE_METRICS, &bad).expect_err("bad");
        assert!(e.starts_with("nodes.metrics.k8s.io: node-2: usage.cpu \"lots\" is not a quantity"), "{e}");
        assert!(e.ends_with("; skipped"), "{e}");
    }

    #[test]
    fn a_reading_dated_9999_or_0001_is_an_error_naming_it() {
        // Break-it 35 F12: such readings were stored and moved `skew --usage`'s "now" to year 9999.
        for t in ["9999-12-31T00:00:00Z", "0001-01-01T00:00:00Z"] {
            let node = serde_json::json!({"metadata": {"name": "n1"}, "timestamp": t,
                "usage": {"cpu": "1n", "memory": "1Ki"}});
            let e = sample(&NODE_METRICS, &node).expect_err("implausible");
            assert!(
                e.starts_with(&format!(
                    "nodes.metrics.k8s.io: n1: timestamp {t} is before 1970 or more than a day after now ("
                )),
                "{e}"
            );
            assert!(e.ends_with("), an instant no usage analysis takes; skipped"), "{e}");
        }
    }
}
