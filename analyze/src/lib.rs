//! kdrift's analyses: store → findings. Every analysis reads the store
//! through named queries and returns plain data (serde-serialisable) that the
//! CLI renders as tables or JSON.
//!
//! - [`failed_scheduling`]: the FailedScheduling message parser (every era);
//! - [`pending`]: `why-pending`, one pod's chain or every pending pod;
//! - [`state`]: the cluster at an instant, from object versions;
//! - [`next_steps`]: what to do about each reason.

pub mod error;
pub mod failed_scheduling;
pub mod next_steps;
pub mod pending;
pub mod rebalance_runs;
pub mod snapshot;
pub mod state;

pub use error::AnalyzeError;
pub use pending::{pending_pods, why_pending, PendingPod, PendingReport};
