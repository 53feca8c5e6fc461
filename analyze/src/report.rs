//! What `kdrift report` shows, gathered from the other analyses — nothing
//! is derived here: the store's time span and counts, the drain timeline
//! ([`crate::drains`]), every node's requested % over the range
//! ([`crate::series`]) next to their measured used % when the store has
//! usage samples ([`crate::used_series`]), and the why-pending chain ([`crate::pending`]) of
//! each pod that was Pending in the range, longest-pending first.

use chrono::{DateTime, Utc};
use kdrift_store::Reader;
use kdrift_store::StoreCounts;
use serde::Serialize;

use crate::drains::{drain_timeline, DrainTimeline};
use crate::hot::{used_series, UsedSeries};
use crate::pending::{pending_pods_where, why_pending, PendingPod, PendingReport};
use crate::series::{requested_series_within, RequestedSeries};
use crate::AnalyzeError;

/// Limits of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportOptions {
    /// At most this many samples per requested % series: above it, the
    /// changes are coalesced (`crate::series::sampling_instants`); below,
    /// the series has a point at every change.
    pub max_samples: usize,
    /// At most this many steps of the measured used % series.
    pub max_used_steps: usize,
    /// At most this many Pending chains (the longest-pending pods).
    pub max_chains: usize,
    /// At most this many Pending pods listed (the longest-pending; the
    /// report counts the rest): a list of 200,000 rows is not readable,
    /// and was most of the report's time and memory (kdrift issue 39).
    pub max_listed: usize,
    /// At most this many node samples (samples taken × the store's nodes)
    /// in the requested % series: each sample holds every node, so at 5,000
    /// nodes [`ReportOptions::max_samples`] samples were 25M entries, over
    /// 4 GiB and DuckDB's memory limit (kdrift issue 39); above it, fewer
    /// samples are taken (at least 2; `crate::series::requested_series_within`).
    pub max_series_cells: usize,
}

/// [`ReportOptions::max_listed`] by default.
pub const MAX_LISTED: usize = 500;

/// [`ReportOptions::max_series_cells`] by default: 500 nodes × 500 samples
/// (about 60 MiB of series); 50 samples at 5,000 nodes.
pub const MAX_SERIES_CELLS: usize = 250_000;

impl ReportOptions {
    /// The samples that may be taken for a series over `nodes` nodes:
    /// [`ReportOptions::max_series_cells`] / `nodes`, never below 2.
    pub fn samples_for(&self, nodes: usize) -> usize {
        (self.max_series_cells / nodes.max(1)).max(2)
    }
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            max_samples: 5000,
            max_used_steps: 400,
            max_chains: 20,
            max_listed: MAX_LISTED,
            max_series_cells: MAX_SERIES_CELLS,
        }
    }
}

/// Everything one report shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportData {
    /// The store file, as given.
    pub store: String,
    /// What the store holds.
    pub counts: StoreCounts,
    /// The first instant the store knows about (UTC); `None` for an empty store.
    pub store_first_at: Option<DateTime<Utc>>,
    /// The last instant the store knows about (UTC).
    pub store_last_at: Option<DateTime<Utc>>,
    /// The report's range: `--since`, else the store's first instant (UTC);
    /// `None` (JSON `null`, never 1970) when neither is known.
    pub from: Option<DateTime<Utc>>,
    /// `--until`, else the store's last instant (UTC); never before `from`;
    /// `None` when neither is known.
    pub to: Option<DateTime<Utc>>,
    /// Drains, rolling drains and outages overlapping the range.
    pub timeline: DrainTimeline,
    /// Every node's requested amounts over the range.
    pub requested: RequestedSeries,
    /// Every node's measured used % over the range, when the store has
    /// usage samples in it (omitted from JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used: Option<UsedSeries>,
    /// Every node seen in the timeline or the samples, in name order.
    pub nodes: Vec<String>,
    /// Pods with FailedScheduling whose pending time overlaps the range,
    /// longest-pending first: the first [`ReportOptions::max_listed`] of them.
    pub pending: Vec<PendingPod>,
    /// How many pods with FailedScheduling had a pending time overlapping
    /// the range in all (those of `pending` and the rest).
    pub pending_total: usize,
    /// The why-pending chain of the first [`ReportOptions::max_chains`] of them.
    pub chains: Vec<PendingReport>,
    /// Caveats.
    pub notes: Vec<String>,
    /// `--since` is after the store's history or `--until` before it: the
    /// report shows nothing of the range (a note says so; no requested %
    /// is charted).
    pub outside_history: bool,
}

/// A time range: first and last instant (UTC).
pub type Span = (DateTime<Utc>, DateTime<Utc>);

/// The store's first and last instants (query `time_span`), leaving out
/// times before 1970 or after tomorrow (`crate::plausible::time_span`);
/// `None` for an empty store.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn time_span(store: &Reader) -> Result<Option<Span>, AnalyzeError> {
    crate::plausible::time_span(store)
}

/// Whether a pending pod's wait (first failure to scheduling, deletion or
/// last failure: `first_failure` + `pending_seconds`, or `last_failure`
/// when later) overlaps `[from, to]`.
fn wait_in(
    first_failure: DateTime<Utc>,
    last_failure: DateTime<Utc>,
    pending_seconds: i64,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> bool {
    let end = first_failure + chrono::Duration::seconds(pending_seconds.max(0));
    first_failure <= to && end.max(last_failure) >= from
}

/// Every node name of the timeline and the series, sorted.
pub fn node_names(timeline: &DrainTimeline, requested: &RequestedSeries) -> Vec<String> {
    let mut names = requested.nodes();
    for op in &timeline.operations {
        names.extend(op.order.iter().cloned());
        for e in &op.episodes {
            names.extend(e.evicted.iter().filter_map(|m| m.replacement.as_ref().map(|r| r.node.clone())));
        }
    }
    names.sort_unstable();
    names.dedup();
    names
}

/// Gathers a report over `[since, until]` (each defaulting to the store's span).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn report_data(
    store: &Reader,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    options: &ReportOptions,
) -> Result<ReportData, AnalyzeError> {
    let mut steps = crate::steps::Steps::start();
    let counts = store.counts()?;
    let span = time_span(store)?;
    steps.done("report: counts, span");
    let given_from = since.or(span.map(|s| s.0));
    let given_to = until.or(span.map(|s| s.1)).map(|t| given_from.map_or(t, |f| t.max(f)));
    // The queries' bounds: what nothing set reads from the beginning of time.
    let from = given_from.unwrap_or_else(crate::history::beginning);
    let to = given_to.unwrap_or(from).max(from);
    let mut notes = Vec::new();
    // From the range as given: `from` and `to` are clamped (an --until
    // before the history gave the history's first instant for both).
    let outside_history =
        span.is_some_and(|(first, last)| since.is_some_and(|s| s > last) || until.is_some_and(|u| u < first));
    match span {
        None => notes.push("the store holds nothing with a time: ingest events, Pod and Node objects first".into()),
        Some((first, last)) if outside_history => notes.push(format!(
            "the range {} → {} is outside the store's history ({} → {}): nothing in the store falls in it",
            since.map_or("its start".to_string(), stamp),
            until.map_or("its end".to_string(), stamp),
            stamp(first),
            stamp(last)
        )),
        Some(_) => {}
    }
    let timeline = drain_timeline(store, since, until)?;
    steps.done("report: drain timeline");
    // Outside the history nothing is charted: the series would carry the
    // last (or first) state into a range the store knows nothing of.
    let max_taken = options.samples_for(usize::try_from(counts.nodes).unwrap_or(0));
    let (requested, bounded) = if outside_history {
        (RequestedSeries { from, to, changes: 0, coalesced: false, samples: Vec::new(), lower_bound_note: None }, false)
    } else {
        requested_series_within(store, from, to, options.max_samples, max_taken)?
    };
    steps.done("report: requested series");
    if requested.coalesced {
        let why = if bounded {
            format!(" (at most {max_taken} samples of the store's {} nodes)", counts.nodes)
        } else {
            String::new()
        };
        notes.push(format!(
            "requested %: {} changes in the range, sampled at the last change of each of {} equal slices{why}",
            requested.changes,
            requested.samples.len().saturating_sub(1).max(1)
        ));
    }
    // Listed before any chain: a chain is explained only for a listed pod.
    let listed = pending_pods_where(store, options.max_listed.max(options.max_chains), |first, last, seconds| {
        wait_in(first, last, seconds, from, to)
    })?;
    let (pending, pending_total) = (listed.pods, listed.total);
    steps.done("report: pending pods");
    let chains = chains_of(store, &pending[..pending.len().min(options.max_chains)])?;
    steps.done("report: chains");
    if pending_total > options.max_chains {
        notes.push(format!(
            "{} pods were Pending in the range; the chains of the {} longest-pending are shown \
             (`kdrift why-pending NAMESPACE/POD` explains any other)",
            pending_total, options.max_chains
        ));
    }
    let pending: Vec<PendingPod> = pending.into_iter().take(options.max_listed).collect();
    let nodes = node_names(&timeline, &requested);
    let used =
        if outside_history || nodes.is_empty() { None } else { used_series(store, from, to, options.max_used_steps)? };
    steps.done("report: used series");
    Ok(ReportData {
        store: store.path().display().to_string(),
        counts,
        store_first_at: span.map(|s| s.0),
        store_last_at: span.map(|s| s.1),
        from: given_from,
        to: given_to,
        timeline,
        requested,
        used,
        nodes,
        pending,
        pending_total,
        chains,
        outside_history,
        notes,
    })
}

/// The why-pending chains of `pods`, in their order (a pod without one is
/// left out): every other pod's on a second connection, on the other core
/// (`crate::alongside`); each chain is one `why_pending`, ~0.6 s at 1M
/// events and 5,000 nodes (kdrift issue 39).
fn chains_of(store: &Reader, pods: &[PendingPod]) -> Result<Vec<PendingReport>, AnalyzeError> {
    let explain = |reader: &Reader, parity: usize| -> Result<Vec<(usize, PendingReport)>, AnalyzeError> {
        let mut out = Vec::new();
        for (i, p) in pods.iter().enumerate().filter(|(i, _)| i % 2 == parity) {
            if let Some(r) = why_pending(reader, &p.namespace, &p.name)? {
                out.push((i, r));
            }
        }
        Ok(out)
    };
    if pods.len() < 2 {
        return Ok(explain(store, 0)?.into_iter().map(|(_, r)| r).collect());
    }
    let (even, odd) = crate::alongside::alongside(store, |reader| explain(reader, 1), || explain(store, 0))?;
    let mut all = even?;
    all.extend(odd?);
    all.sort_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, r)| r).collect())
}

fn stamp(t: DateTime<Utc>) -> String {
    kdrift_store::instant_text(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
    }

    fn pod(first: &str, last: &str, pending_seconds: i64) -> PendingPod {
        PendingPod {
            namespace: "media".into(),
            name: "backup-1".into(),
            uid: String::new(),
            first_failure: t(first),
            last_failure: t(last),
            occurrences: 1,
            failure_events: 1,
            latest_message: String::new(),
            latest_is_deleting_skip: false,
            scheduled_at: None,
            scheduled_node: None,
            pending_seconds,
            pending_is_lower_bound: true,
            deleted_at: None,
            rejected_at: None,
            rejected_reason: None,
            reasons: String::new(),
            reason_items: Vec::new(),
        }
    }

    fn pending_in(p: &PendingPod, from: DateTime<Utc>, to: DateTime<Utc>) -> bool {
        wait_in(p.first_failure, p.last_failure, p.pending_seconds, from, to)
    }

    #[test]
    fn a_wait_overlapping_the_range_is_in() {
        let p = pod("2026-11-28T04:00:00Z", "2026-11-28T05:15:00Z", 5400);
        let (a, b) = (t("2026-11-28T05:20:00Z"), t("2026-11-28T06:00:00Z"));
        assert!(pending_in(&p, a, b), "deleted at 05:30, still pending at 05:20");
        assert!(!pending_in(&p, t("2026-11-28T05:31:00Z"), b));
        assert!(!pending_in(&p, t("2026-11-28T00:00:00Z"), t("2026-11-28T03:59:59Z")));
        assert!(pending_in(&p, t("2026-11-28T00:00:00Z"), t("2026-11-28T04:00:00Z")));
    }
}
