//! The Kubernetes API as an ingest source (issue 3), through the shared
//! cluster client of `kdrift_rebalance` (`cluster/`):
//!
//! - [`snapshot`]: `kdrift ingest api`, every history resource listed once;
//! - [`record`]: `kdrift record`, list then watch, batched commits;
//! - [`clock`]: where observation times come from (wall clock, or a manual
//!   clock for replayed histories);
//! - [`report`]: what a run reports per resource;
//! - [`metrics`]: `metrics.k8s.io` usage samples, taken once by the
//!   snapshot's caller and every interval by the recorder.
//!
//! Both store runs with source kind `api`, one observation per object
//! version, located by the collection URL.

pub mod clock;
pub mod metrics;
pub mod record;
pub mod report;
pub mod snapshot;
mod stage;

pub use clock::{Clock, ManualClock, ReplayClock, WallClock};
pub use metrics::{sample_metrics, MetricsReport, MetricsSource, METRICS_NOT_SERVED};
pub use record::serve::{metrics_text, serve as serve_recorder_metrics};
pub use record::stats::{RecorderStats, StatsSnapshot, DEFAULT_UNHEALTHY_AFTER};
pub use record::{record, NoObserver, RecordObserver, RecordOptions};
pub use report::{ApiReport, ResourceProblem, ResourceReport, Severity};
pub use snapshot::{snapshot, snapshot_with_progress, ListingProgress, NoListingProgress, SnapshotOptions};
