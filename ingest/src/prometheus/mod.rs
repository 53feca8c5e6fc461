//! `kdrift ingest prometheus`: measured CPU and memory usage of nodes and
//! pods pulled from a Prometheus-compatible HTTP API (Prometheus,
//! VictoriaMetrics, Thanos, Mimir: `/api/v1/query_range`) into the store's
//! `usage_samples` (kdrift issue 37).
//!
//! - [`queries`]: the default PromQL per exporter and `--query NAME=PROMQL`;
//! - [`client`]: the HTTP request, with the VictoriaLogs source's
//!   credentials (`KDRIFT_PROM_*` variables or files) and redaction;
//! - [`windows`]: the range cut into step-aligned windows under the
//!   server's points limit;
//! - [`answer`]: an answer parsed in one pass, of each series only the
//!   labels kdrift reads;
//! - [`series`]: answers into samples (which node a series is, bad points);
//! - [`pull`]: the windows committed one by one, `--resume`; `fetch`
//!   asks and merges the next window on its own thread meanwhile.

pub mod answer;
pub mod client;
pub mod error;
mod fetch;
pub mod pull;
pub mod queries;
pub mod series;
pub mod windows;

pub use client::{
    InstantAnswer, InstantSample, PromClient, PromFlags, PROM_ANSWER_LIMIT, PROM_ENV, PROM_REQUEST_TIMEOUT,
    REBALANCE_FLAGS,
};
pub use error::PromError;
pub use pull::{pull_prometheus, PromOptions, PromPullFailed, PromReport, PromWindowReport};
pub use queries::{resolve as resolve_queries, NamedPromql};
pub use series::show_labels;
pub use windows::{PromWindow, MAX_POINTS};
