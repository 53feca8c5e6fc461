//! kdrift's analyses: store → findings. Every analysis reads the store
//! through `kdrift-store` (its named queries, rows mapped through its `Row`,
//! or its typed readers) and returns plain data (serde-serialisable) that the
//! CLI renders as tables or JSON. The analyses only read, and the compiler
//! holds them to it: they are handed a `kdrift_store::Reader` (a `Store`
//! derefs to one), which has no write. They never write to the store (the drain moves the CLI keeps after an ingest are computed
//! here by [`drains::moves_to_keep`] and written by the store), and never
//! touch DuckDB or depend on `kdrift-ingest`.
//!
//! - [`failed_scheduling`]: the FailedScheduling message parser (every era);
//! - [`pending`]: `why-pending`, one pod's chain or every pending pod;
//! - [`state`]: the cluster at an instant, from object versions;
//! - [`next_steps`]: what to do about each reason;
//! - [`history`]: node signals, eviction evidence and placements between two instants;
//! - [`usage`]: per-node requested % of allocatable at an instant, and the skew;
//! - [`skew`]: `kdrift skew`, requested % per node with LowNodeUtilization classes;
//! - [`postmortem`]: `postmortem job`, why a Job (or a CronJob's runs) failed;
//! - [`drains`]: `timeline drains`, drains and outages grouped into rolling operations;
//! - [`series`]: every node's requested % over a time range, sampled where it changes;
//! - [`report`]: what `kdrift report` shows, gathered from the analyses above;
//! - [`plausible`]: the store's "now" and range, from times an analysis may believe;
//! - [`words`]: counts in words, agreeing in number.

mod alongside;
pub mod drains;
pub mod error;
pub mod failed_scheduling;
pub mod history;
pub mod next_steps;
pub mod pending;
pub mod plausible;
pub mod postmortem;
pub mod rebalance_runs;
pub mod report;
pub mod series;
pub mod skew;
pub mod snapshot;
pub mod state;
mod steps;
pub mod usage;
pub mod words;

pub use drains::{
    drain_moves, drain_moves_and_placements, drain_moves_to_nodes, drain_timeline, DrainTimeline, NodeEpisode,
    Operation,
};
pub use error::AnalyzeError;
pub use pending::{pending_pods, why_pending, PendingPod, PendingReport, PreemptionVerdict};
pub use postmortem::{postmortem_job, JobPostmortem};
pub use usage::{requested_at, requested_at_instants, requested_over_time, RequestedAt};
