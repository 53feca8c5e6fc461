//! Execution: the effectful side of rebalancing, kept apart from the pure
//! planner. It reads the cluster, checks a plan still holds, evicts, waits
//! for the replacements, and writes down what happened.
//!
//! - [`apply`] (`kdrift rebalance apply plan.json`): re-reads the cluster
//!   with [`read_snapshot`], plans again with the document's policy and
//!   options, and refuses a plan the cluster has drifted from
//!   ([`crate::document::drift`]) — unless [`ExecuteOptions::replan`], in
//!   which case it executes the new plan and says so;
//! - [`run`] (`kdrift rebalance run --yes`): reads, plans, simulates and
//!   executes in one go;
//! - both execute through [`execute_plan`]: every planned eviction, in plan
//!   order, at most [`ExecuteOptions::concurrency`] in flight. Before each
//!   one the live pod is read again (gone, recreated, moved, terminating,
//!   `noEvictionPolicy: Mandatory` with the prefer-no-eviction annotation →
//!   skipped) and the matching [`probe`]s are asked. The Eviction
//!   (`policy/v1`, uid precondition, the policy's `gracePeriodSeconds`):
//!   201 → evicted; 429 with the PodDisruptionBudget message → skipped and
//!   reported, the run goes on (no retry: descheduler does the same); 404 →
//!   gone; 5xx, other 429s, no answer, a timeout → retried with exponential
//!   backoff, then the run stops: no further evictions. Then the
//!   replacement (a new pod of the same controller) is awaited until Ready
//!   ([`ExecuteOptions::ready_timeout`]) and its node compared with the
//!   prediction.
//!
//! Every attempt and replacement is an Event, and the run a `RebalanceRun`,
//! handed to an [`EventSink`] ([`record`]); each eviction's progress, as it
//! happens, goes to [`ExecuteOptions::progress`] ([`progress`]).

pub mod client;
mod evict;
#[cfg(test)]
mod fake;
mod kube_client;
pub mod probe;
pub mod progress;
pub mod record;
mod replacement;
pub mod report;
pub mod sessions;
mod snapshot;
#[cfg(test)]
mod tests;

use std::time::Duration;

use chrono::Utc;

pub use client::{kinds, ClientError, ClusterClient, EvictionRequest, PodPatcher};
pub use kube_client::KubeClient;
pub use probe::{Probe, ProbeError};
pub use progress::{ExecutionProgress, NoProgress, ProgressHandle, Step};
pub use record::EventSink;
pub use report::{EvictionOutcome, EvictionResult, ExecutionReport, Replacement, RunOutcome, RunSettings, SkipCause};
pub use snapshot::{needs_pvcs, read_snapshot, LiveSnapshot};

use crate::document::drift::drift;
use crate::document::{DocumentError, PlanDocument, PlanInputs, PlanSource};
use crate::planner::{plan, PlanOptions, Snapshot};
use crate::policy::Policy;
use crate::simulate::simulate_plan;

/// Why an execution could not even start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecuteError {
    /// Listing a kind failed.
    #[error("reading {resource} from the cluster")]
    Read {
        /// The resource, as kubectl names it (`pods`, `poddisruptionbudgets.policy`).
        resource: String,
        /// The API error.
        #[source]
        source: ClientError,
    },
    /// The plan document is unusable (its policy does not read back).
    #[error("the plan file")]
    Document(#[source] DocumentError),
    /// An option is out of range.
    #[error("{0}")]
    Options(String),
}

/// How to execute. Construct with `..Default::default()`.
#[derive(Debug, Clone)]
pub struct ExecuteOptions {
    /// Evictions in flight at once (>= 1; default 1).
    pub concurrency: usize,
    /// How long to wait for each replacement to be Ready (default 5 min;
    /// zero: do not wait).
    pub ready_timeout: Duration,
    /// How often to look for the replacement (default 2 s).
    pub poll_interval: Duration,
    /// Timeout of one API call (default 30 s).
    pub request_timeout: Duration,
    /// Retries of a transient failure before the run stops (default 3).
    pub retries: u32,
    /// The first retry's delay; doubled at each retry (default 1 s).
    pub backoff: Duration,
    /// Pre-flight probes.
    pub probes: Vec<Probe>,
    /// `apply`: when the cluster drifted, plan again and execute the new plan.
    pub replan: bool,
    /// Told of each eviction as it happens (default: nobody).
    pub progress: ProgressHandle,
    /// Measured usage to plan with (a policy with `metricsUtilization`):
    /// the live snapshot gets it before the plan is made again, so a plan
    /// made on measured usage is checked on measured usage. `None`: requests.
    pub measured: Option<crate::MeasuredUsage>,
    /// The policy's Prometheus query result to plan with
    /// ([`Snapshot::metric_samples`]: `metricsUtilization` source Prometheus
    /// with `--prometheus-url`), run just before, so that the plan made
    /// again classifies on the source the plan was made on. `None`: the
    /// stand-in ([`Self::measured`]).
    pub metric_samples: Option<Vec<crate::MetricSample>>,
    /// Why that query gave no vector ([`Snapshot::metric_query_error`]).
    pub metric_query_error: Option<String>,
}

impl Default for ExecuteOptions {
    fn default() -> Self {
        ExecuteOptions {
            concurrency: 1,
            ready_timeout: Duration::from_secs(300),
            poll_interval: Duration::from_secs(2),
            request_timeout: Duration::from_secs(30),
            retries: 3,
            backoff: Duration::from_secs(1),
            probes: Vec::new(),
            replan: false,
            progress: ProgressHandle::default(),
            measured: None,
            metric_samples: None,
            metric_query_error: None,
        }
    }
}

impl ExecuteOptions {
    /// Puts the usage readings to plan with into the live `snapshot`.
    fn usage_into(&self, snapshot: &mut Snapshot) {
        snapshot.measured = self.measured.clone();
        snapshot.metric_samples = self.metric_samples.clone();
        snapshot.metric_query_error = self.metric_query_error.clone();
    }

    fn settings(&self) -> RunSettings {
        RunSettings {
            concurrency: self.concurrency,
            ready_timeout_seconds: self.ready_timeout.as_secs(),
            retries: self.retries,
            probes: self.probes.iter().map(Probe::spec).collect(),
        }
    }

    fn check(&self) -> Result<(), ExecuteError> {
        if self.concurrency == 0 {
            return Err(ExecuteError::Options("concurrency must be at least 1".to_string()));
        }
        if self.poll_interval.is_zero() {
            return Err(ExecuteError::Options("the poll interval must be positive".to_string()));
        }
        Ok(())
    }
}

/// Plans on `snapshot` and builds the plan document, with the landing
/// simulation (so the executor can compare landings with predictions).
///
/// # Errors
/// [`ExecuteError::Document`] when the document cannot be built.
pub fn plan_document(
    snapshot: &Snapshot,
    policy: &Policy,
    policy_source: &str,
    options: PlanOptions,
    source: &PlanSource,
    notes: Vec<String>,
) -> Result<PlanDocument, ExecuteError> {
    let planned = plan(snapshot, policy, &options);
    let simulation = simulate_plan(snapshot, &planned);
    let inputs = PlanInputs { snapshot, policy, policy_source, options, source };
    PlanDocument::build(inputs, &planned, Some(&simulation), None, notes).map_err(ExecuteError::Document)
}

/// `rebalance apply`: see the module docs. Returns the report (outcome
/// [`RunOutcome::Refused`] when the plan no longer holds and `replan` is off)
/// and the plan executed (the document's, or the new one).
///
/// # Errors
/// [`ExecuteError`] when the cluster cannot be read or the document's policy does not read back.
pub async fn apply_plan<C: ClusterClient, S: EventSink>(
    client: &C,
    doc: &PlanDocument,
    options: &ExecuteOptions,
    sink: &mut S,
) -> Result<(ExecutionReport, PlanDocument), ExecuteError> {
    options.check()?;
    let started_at = Utc::now();
    let policy = doc.policy().map_err(ExecuteError::Document)?;
    let mut live = read_snapshot(client, &policy, started_at).await?;
    options.usage_into(&mut live.snapshot);
    let replanned = plan(&live.snapshot, &policy, &doc.plan_options());
    let d = drift(doc, &live.snapshot, &replanned);
    let mut notes = d.notes.clone();
    notes.extend(live.notes.iter().cloned());
    let differences: Vec<String> = d.differences.iter().map(ToString::to_string).collect();
    let (executed, replan) = if d.is_empty() {
        (doc.clone(), false)
    } else if options.replan {
        let simulation = simulate_plan(&live.snapshot, &replanned);
        let source = PlanSource { kind: "live".to_string(), detail: format!("replanned from {}", doc.source.detail) };
        let inputs = PlanInputs {
            snapshot: &live.snapshot,
            policy: &policy,
            policy_source: &doc.policy_source,
            options: doc.plan_options(),
            source: &source,
        };
        let new = PlanDocument::build(inputs, &replanned, Some(&simulation), None, live.notes.clone())
            .map_err(ExecuteError::Document)?;
        (new, true)
    } else {
        let mut report = evict::empty_report("apply", &doc.policy_source, started_at, options);
        report.outcome = RunOutcome::Refused;
        report.planned = doc.evictions.len();
        report.differences = differences;
        report.difference_details = d.differences;
        report.notes = notes;
        report.finished_at = Utc::now();
        evict::record_run(sink, &mut report);
        return Ok((report, doc.clone()));
    };
    let mut report = evict::empty_report("apply", &doc.policy_source, started_at, options);
    report.replanned = replan;
    report.differences = differences;
    report.difference_details = d.differences;
    report.notes = notes;
    let report = evict::execute(client, &executed, &policy, &live.snapshot, options, sink, report).await;
    Ok((report, executed))
}

/// `rebalance run --yes`: read, plan, simulate, execute. Returns the report
/// and the plan executed.
///
/// # Errors
/// [`ExecuteError`] when the cluster cannot be read.
pub async fn run_rebalance<C: ClusterClient, S: EventSink>(
    client: &C,
    policy: &Policy,
    policy_source: &str,
    plan_options: PlanOptions,
    source: &PlanSource,
    options: &ExecuteOptions,
    sink: &mut S,
) -> Result<(ExecutionReport, PlanDocument), ExecuteError> {
    options.check()?;
    let started_at = Utc::now();
    let mut live = read_snapshot(client, policy, started_at).await?;
    options.usage_into(&mut live.snapshot);
    let doc = plan_document(&live.snapshot, policy, policy_source, plan_options, source, live.notes.clone())?;
    let mut report = evict::empty_report("run", policy_source, started_at, options);
    report.notes = live.notes;
    let report = evict::execute(client, &doc, policy, &live.snapshot, options, sink, report).await;
    Ok((report, doc))
}

/// Executes `doc`'s evictions on a cluster whose state is `live` (read just
/// before; its pod uids tell replacements from pods that already existed),
/// records every attempt and the run in `sink`, and reports. No drift check:
/// for the tests of the eviction loop alone.
#[cfg(test)]
async fn execute_plan<C: ClusterClient, S: EventSink>(
    client: &C,
    doc: &PlanDocument,
    policy: &Policy,
    live: &Snapshot,
    options: &ExecuteOptions,
    sink: &mut S,
) -> Result<ExecutionReport, ExecuteError> {
    options.check()?;
    let report = evict::empty_report("execute", &doc.policy_source, Utc::now(), options);
    Ok(evict::execute(client, doc, policy, live, options, sink, report).await)
}
