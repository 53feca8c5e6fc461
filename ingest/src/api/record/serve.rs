//! `kdrift record --metrics-addr`: the recorder's [`RecorderStats`] over
//! HTTP (axum; issue 38 item 2):
//!
//! - `/metrics`: the Prometheus text format (version 0.0.4, encoded by
//!   `prometheus-client`, the Prometheus project's Rust client), every
//!   metric prefixed `kdrift_recorder_` ([`encode`] lists them);
//! - `/readyz`: 200 once every resource's first list ended, 503 before,
//!   naming the resources still listing ([`RecorderStats::readiness`]);
//! - `/healthz`: 200 unless the last N batch commits failed, then 503 with
//!   the last error ([`RecorderStats::health`]).

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use super::stats::{RecorderStats, ResourceStats, StatsSnapshot};

/// What the server reads.
#[derive(Debug, Clone)]
struct Scraped {
    stats: Arc<RecorderStats>,
    /// The store file: its size (and its write-ahead log's) is `store_bytes`.
    store: Option<PathBuf>,
}

/// Bytes of the store file and its `.wal` beside it (0 when absent).
pub fn store_bytes(path: &std::path::Path) -> u64 {
    let size = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut wal = path.as_os_str().to_owned();
    wal.push(".wal");
    size(path) + size(std::path::Path::new(&wal))
}

type Labels<'a> = [(&'static str, &'a str); 1];

fn per_resource(
    e: &mut DescriptorEncoder,
    s: &StatsSnapshot,
    name: &str,
    help: &str,
    value: impl Fn(&ResourceStats) -> u64,
) -> Result<(), std::fmt::Error> {
    let mut family = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (resource, r) in &s.resources {
        let labels: Labels = [("resource", resource.as_str())];
        ConstCounter::new(value(r)).encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, value: u64) -> Result<(), std::fmt::Error> {
    ConstCounter::new(value).encode(e.encode_descriptor(name, help, None, MetricType::Counter)?)
}

fn gauge(e: &mut DescriptorEncoder, name: &str, help: &str, value: f64) -> Result<(), std::fmt::Error> {
    ConstGauge::new(value).encode(e.encode_descriptor(name, help, None, MetricType::Gauge)?)
}

/// Encodes a snapshot's metrics (names without the `kdrift_recorder_`
/// prefix the registry adds; counters end in `_total`):
/// per resource `records_committed`, `item_errors`, `watch_failures`,
/// `watch_restarts`, `relists`, `gone` (410 answers), `synced` (0/1);
/// `commits`, `failed_commits`, `failed_commits_in_a_row`,
/// `last_commit_timestamp_seconds` (Unix seconds, 0 before the first),
/// `metrics_takes`, `metrics_samples` (node and pod samples read) and
/// `store_bytes`.
///
/// # Errors
/// The encoder's.
pub fn encode(mut e: DescriptorEncoder, s: &StatsSnapshot, store_bytes: Option<u64>) -> Result<(), std::fmt::Error> {
    let e = &mut e;
    per_resource(
        e,
        s,
        "records_committed",
        "Object versions received (listed or watched) and committed, new or already stored",
        |r| r.committed,
    )?;
    per_resource(e, s, "item_errors", "List items and watch lines skipped (errors of the run)", |r| r.item_errors)?;
    per_resource(e, s, "watch_failures", "Lists and watches that failed (retried, or 403/404)", |r| r.failures)?;
    per_resource(e, s, "watch_restarts", "Watch requests started again after one ended", |r| r.watch_restarts)?;
    per_resource(e, s, "relists", "Lists after the first (after a 410 Gone or a failure)", |r| r.relists)?;
    per_resource(e, s, "gone", "410 Gone answers (expired resourceVersion or continue token)", |r| r.gone)?;
    {
        let mut family =
            e.encode_descriptor("synced", "1 once the resource's first list ended (watched)", None, MetricType::Gauge)?;
        for (resource, r) in &s.resources {
            let labels: Labels = [("resource", resource.as_str())];
            ConstGauge::new(i64::from(r.synced)).encode(family.encode_family(&labels)?)?;
        }
    }
    counter(e, "commits", "Batch commits that succeeded", s.commits)?;
    counter(e, "failed_commits", "Batch commits that failed (the batch stays staged)", s.failed_commits)?;
    gauge(e, "failed_commits_in_a_row", "Batch commits failed since the last success", f64::from(s.failed_in_a_row))?;
    gauge(
        e,
        "last_commit_timestamp_seconds",
        "When the last batch committed, Unix seconds (0: none yet)",
        s.last_commit_unix_seconds.unwrap_or(0.0),
    )?;
    counter(e, "metrics_takes", "Times metrics.k8s.io was asked", s.usage_takes)?;
    counter(e, "metrics_samples", "Node and pod usage samples read from metrics.k8s.io", s.usage_samples)?;
    if let Some(bytes) = store_bytes {
        gauge(e, "store_bytes", "Bytes of the store file and its write-ahead log", bytes as f64)?;
    }
    Ok(())
}

impl Collector for Scraped {
    fn encode(&self, e: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        encode(e, &self.stats.snapshot(), self.store.as_deref().map(store_bytes))
    }
}

/// The Prometheus text of `stats` (`store`: the store file whose bytes are reported).
pub fn metrics_text(stats: &Arc<RecorderStats>, store: Option<PathBuf>) -> String {
    let mut registry = Registry::with_prefix("kdrift_recorder");
    registry.register_collector(Box::new(Scraped { stats: Arc::clone(stats), store }));
    let mut text = String::new();
    // Writing to a String does not fail.
    let _ = prometheus_client::encoding::prometheus_text::encode(&mut text, &registry);
    text
}

async fn metrics(State(s): State<Scraped>) -> impl IntoResponse {
    let text = metrics_text(&s.stats, s.store.clone());
    ([(header::CONTENT_TYPE, prometheus_client::encoding::prometheus_text::CONTENT_TYPE)], text)
}

fn answer(result: Result<(), String>) -> (StatusCode, String) {
    match result {
        Ok(()) => (StatusCode::OK, "ok\n".to_string()),
        Err(why) => (StatusCode::SERVICE_UNAVAILABLE, format!("{why}\n")),
    }
}

async fn readyz(State(s): State<Scraped>) -> (StatusCode, String) {
    answer(s.stats.readiness())
}

async fn healthz(State(s): State<Scraped>) -> (StatusCode, String) {
    answer(s.stats.health())
}

/// Serves `/metrics`, `/readyz` and `/healthz` on `listener` until the
/// task is dropped.
///
/// # Errors
/// The listener's I/O errors.
pub async fn serve(
    listener: tokio::net::TcpListener,
    stats: Arc<RecorderStats>,
    store: Option<PathBuf>,
) -> std::io::Result<()> {
    let app = Router::new()
        .route("/metrics", get(metrics))
        .route("/readyz", get(readyz))
        .route("/healthz", get(healthz))
        .with_state(Scraped { stats, store });
    axum::serve(listener, app).await
}
