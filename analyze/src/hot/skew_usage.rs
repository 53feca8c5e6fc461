//! `kdrift skew --usage`: at an instant, each node's requested % and used %
//! of allocatable side by side (cpu, memory), the nodes hot in fact but not
//! on paper (used % at or above the threshold, requested % below it) and
//! the reverse (requested % at or above it, used % below), and the pods
//! that drive each hotspot.
//!
//! Requested amounts and allocatable are `kdrift skew`'s
//! ([`crate::requested_at`]: the node versions and per-node aggregates at the
//! instant); used amounts are each node's and pod's [`Reading`] there
//! ([`crate::measured_at`]). A node without a reading is "no sample", not 0.

use chrono::{DateTime, Utc};
use kdrift_rebalance::{MeasuredUsage, Reading};
use kdrift_store::Reader;
use serde::Serialize;

use super::drivers::{by_name, drivers, Driver};
use super::{percent_of, usage_span, utc, MEASURED, NO_SAMPLES};
use crate::usage::RequestedAt;
use crate::AnalyzeError;

/// One resource of one node, requested and used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsedLine {
    /// `cpu` or `memory`.
    pub resource: String,
    /// Allocatable (millicores, bytes).
    pub allocatable: i64,
    /// Sum of the requests counting toward the node.
    pub requested: i64,
    /// `requested × 100 / allocatable` (0 when allocatable is 0).
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub requested_percent: f64,
    /// Measured usage (`None`: no sample in the reading's window).
    pub used: Option<i64>,
    /// `used × 100 / allocatable` (`None`: no sample, or no allocatable).
    #[serde(serialize_with = "super::opt_hundredths")]
    pub used_percent: Option<f64>,
}

/// One node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeUsed {
    /// Node name.
    pub node: String,
    /// The latest sample read for it (`None`: no sample).
    pub sampled_at: Option<DateTime<Utc>>,
    /// cpu, then memory.
    pub resources: Vec<UsedLine>,
    /// The requested amounts are a lower bound (shown `≥`), as in `kdrift
    /// skew`: the store lacks pods or their requests (see the notes).
    pub lower_bound: bool,
}

impl NodeUsed {
    /// One resource's line.
    pub fn get(&self, resource: &str) -> Option<&UsedLine> {
        self.resources.iter().find(|l| l.resource == resource)
    }
}

/// A node whose measured usage and requests disagree about one resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spot {
    /// Node name.
    pub node: String,
    /// `cpu` or `memory`.
    pub resource: String,
    /// Requested % of allocatable.
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub requested_percent: f64,
    /// Used % of allocatable.
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub used_percent: f64,
    /// `requested_percent` is a lower bound (the node's requests may be
    /// higher: the store lacks pods or their requests), so "not on paper"
    /// may not hold.
    pub lower_bound: bool,
    /// The pods measured on the node, heaviest user of the resource first
    /// (hot nodes only; at most 10).
    pub pods: Vec<Driver>,
    /// How many more pods were measured on the node than `pods` lists
    /// (left out of the JSON when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub pods_left_out: usize,
}

/// Serde's `skip_serializing_if` for counts of 0.
pub(crate) fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What `kdrift skew --usage` says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageSkew {
    /// The instant (UTC).
    pub at: DateTime<Utc>,
    /// How usage was read (`latest sample (≤ 15m old)`).
    pub reading: String,
    /// The used-% threshold a node is hot at (and at or above which its requests are high).
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub hot_percent: f64,
    /// Nodes, in name order.
    pub nodes: Vec<NodeUsed>,
    /// Hot in fact but not on paper: used % ≥ the threshold, requested % below it.
    pub hot_not_requested: Vec<Spot>,
    /// Hot on paper but not in fact: requested % ≥ the threshold, used % below it.
    pub requested_not_used: Vec<Spot>,
    /// Why no node has a reading, as said on stderr (`no measured usage: …`):
    /// the store holds no usage sample at all (and how to get some), no
    /// Node object at the instant (`kdrift skew`'s words, with the store's
    /// history; `usage measured on NODES but …` when samples are there), or
    /// no sample in the reading's window up to the instant (with the store's
    /// span of samples).
    pub no_samples: Option<String>,
    /// Caveats: an instant over a day after the store's object history (first), lower
    /// bounds and estimates (`kdrift skew`'s), no Node object at the
    /// instant, nodes measured but unknown.
    pub notes: Vec<String>,
}

/// How far after the store's last object version a reading's instant must
/// be for the report to say it is after the store's history (one day).
pub const FAR_AFTER_HISTORY: chrono::TimeDelta = chrono::TimeDelta::days(1);

/// The report at `at` (default: the store's latest usage sample), usage
/// read as `reading`, hot at `hot_percent` used % of allocatable.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn skew_usage(
    store: &Reader,
    at: Option<DateTime<Utc>>,
    reading: Reading,
    hot_percent: f64,
) -> Result<UsageSkew, AnalyzeError> {
    let span = usage_span(store)?;
    let at = match (at, span) {
        (Some(at), _) => at,
        (None, Some((_, _, last))) => last,
        (None, None) => crate::plausible::latest_observation(store)?.unwrap_or_else(Utc::now),
    };
    let mut report = UsageSkew {
        at,
        reading: reading.describe(),
        hot_percent,
        nodes: Vec::new(),
        hot_not_requested: Vec::new(),
        requested_not_used: Vec::new(),
        no_samples: None,
        notes: Vec::new(),
    };
    let Some((_, first, last)) = span else {
        report.no_samples = Some(format!("no measured usage: {NO_SAMPLES}"));
        return Ok(report);
    };
    let measured = crate::measured_at(store, at, reading)?;
    // Readings far after the store's object history (`kdrift ingest file`
    // of a `kubectl top` table at its modification time, years on): requests
    // as last recorded, `kdrift skew --at`'s note. Objects are stored on
    // change, so samples hours after the last one are the usual case.
    if crate::report::time_span(store)?.is_some_and(|(_, last)| at - last > FAR_AFTER_HISTORY) {
        report.notes.extend(crate::state::after_history(store, at)?);
    }
    let (_, requested, caveats) = crate::skew::requested_noted(store, at)?;
    report.notes.extend(caveats);
    report.nodes = nodes(&requested, &measured);
    let unknown: Vec<&str> =
        measured.nodes.keys().filter(|n| requested.node(n).is_none()).map(String::as_str).collect();
    if requested.nodes.is_empty() {
        // No Node object at the instant (an --at before the history):
        // what `kdrift skew --at` says, not a missing sample — nor "no
        // measured usage" when there is some (new-user trial 43).
        let why = crate::skew::no_nodes_why(store, at)?;
        report.no_samples = Some(if unknown.is_empty() {
            format!("no measured usage: {why}")
        } else {
            format!("usage measured on {} but {why}", unknown.join(", "))
        });
    } else if report.nodes.iter().all(|n| n.sampled_at.is_none()) {
        report.no_samples = Some(format!(
            "no measured usage: no node has a usage sample in the {} up to {} ({}); the store's samples span {} to {}",
            window_words(reading.span_us()),
            utc(at),
            reading.describe(),
            utc(first),
            utc(last)
        ));
    }
    if !unknown.is_empty() && !requested.nodes.is_empty() {
        report.notes.push(format!(
            "measured but without a Node object at {}, left out: {}",
            utc(at),
            unknown.join(", ")
        ));
    }
    spots(&mut report, hot_percent);
    if !report.hot_not_requested.is_empty() {
        let state = crate::ClusterAt::load(store, at)?;
        let pods = by_name(&state.pods);
        for spot in &mut report.hot_not_requested {
            let used: Vec<((String, String), i64)> = measured
                .pods
                .iter()
                .filter(|((ns, name), (_, node))| {
                    let on = node.as_deref().or_else(|| pods.get(&(ns.as_str(), name.as_str()))?.node_name.as_deref());
                    on == Some(spot.node.as_str())
                })
                .filter_map(|(key, (m, _))| {
                    let v = if spot.resource == kdrift_rebalance::CPU { m.cpu_millis } else { m.memory_bytes };
                    Some((key.clone(), v?))
                })
                .collect();
            (spot.pods, spot.pods_left_out) = drivers(&spot.resource, used, &pods);
        }
    }
    Ok(report)
}

/// Every node of `requested`, with its reading of `measured`.
fn nodes(requested: &RequestedAt, measured: &MeasuredUsage) -> Vec<NodeUsed> {
    requested
        .nodes
        .iter()
        .map(|n| {
            let m = measured.node(&n.node);
            let resources = MEASURED
                .iter()
                .map(|r| {
                    let (allocatable, req, requested_percent) =
                        n.get(r).map_or((0, 0, 0.0), |l| (l.allocatable, l.requested, l.percent));
                    let used = m.and_then(|m| if *r == kdrift_rebalance::CPU { m.cpu_millis } else { m.memory_bytes });
                    UsedLine {
                        resource: r.to_string(),
                        allocatable,
                        requested: req,
                        requested_percent,
                        used,
                        used_percent: used.and_then(|u| percent_of(u as f64, allocatable)),
                    }
                })
                .collect();
            NodeUsed {
                node: n.node.clone(),
                sampled_at: m.and_then(|m| DateTime::from_timestamp_micros(m.sampled_at_us)),
                resources,
                lower_bound: n.lower_bound,
            }
        })
        .collect()
}

/// The nodes whose usage and requests fall on either side of `hot`.
fn spots(report: &mut UsageSkew, hot: f64) {
    for n in &report.nodes {
        for l in &n.resources {
            let Some(used) = l.used_percent else { continue };
            let spot = || Spot {
                node: n.node.clone(),
                resource: l.resource.clone(),
                requested_percent: l.requested_percent,
                used_percent: used,
                lower_bound: n.lower_bound,
                pods: Vec::new(),
                pods_left_out: 0,
            };
            if used >= hot && l.requested_percent < hot {
                report.hot_not_requested.push(spot());
            } else if l.requested_percent >= hot && used < hot {
                report.requested_not_used.push(spot());
            }
        }
    }
}

/// A reading's window in words: `15 minutes`, `1 hour`, `90 seconds`.
fn window_words(us: i64) -> String {
    let s = us.max(0) / 1_000_000;
    let (n, unit) = if s > 0 && s % 3600 == 0 {
        (s / 3600, "hour")
    } else if s > 0 && s % 60 == 0 {
        (s / 60, "minute")
    } else {
        (s, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    #[test]
    fn window_words_are_whole_units() {
        assert_eq!(super::window_words(15 * 60_000_000), "15 minutes");
        assert_eq!(super::window_words(3_600_000_000), "1 hour");
        assert_eq!(super::window_words(90_000_000), "90 seconds");
    }
}
