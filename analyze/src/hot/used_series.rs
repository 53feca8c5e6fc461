//! Every node's used % of allocatable over a range, for the HTML report's
//! charts next to requested %: the node samples averaged per step (query
//! `usage_node_buckets`), the step chosen so that the range has at most a
//! given number of points (never under 30 s, the recorder's interval).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use kdrift_store::{sql, Reader};
use serde::Serialize;

use super::percent_of;
use crate::AnalyzeError;

/// The shortest step charted, seconds.
pub const MIN_STEP_SECONDS: i64 = 30;

/// One step of one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsedPoint {
    /// The step's start (UTC).
    pub at: DateTime<Utc>,
    /// Mean cpu used over the step, % of allocatable (`None`: no cpu sample).
    #[serde(serialize_with = "super::opt_hundredths")]
    pub cpu_percent: Option<f64>,
    /// Mean memory used over the step, % of allocatable (`None`: no memory sample).
    #[serde(serialize_with = "super::opt_hundredths")]
    pub memory_percent: Option<f64>,
}

/// Used % per node over a range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsedSeries {
    /// The step, seconds.
    pub step_seconds: i64,
    /// Per node name, its steps with samples, oldest first (a node without
    /// a Node object at the range's end or start has no allocatable: left out).
    pub nodes: BTreeMap<String, Vec<UsedPoint>>,
}

impl UsedSeries {
    /// One node's used % of `cpu` or `memory` at each step with a sample.
    pub fn percent_of(&self, node: &str, resource: &str) -> Vec<(DateTime<Utc>, f64)> {
        let cpu = resource == kdrift_rebalance::CPU;
        self.nodes
            .get(node)
            .map(|points| {
                points
                    .iter()
                    .filter_map(|p| Some((p.at, if cpu { p.cpu_percent? } else { p.memory_percent? })))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The used % of every node measured in `[from, to]`, at most about
/// `max_points` steps; `None` when no node sample falls in the range
/// (a store without usage samples charts requests only).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn used_series(
    store: &Reader,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    max_points: usize,
) -> Result<Option<UsedSeries>, AnalyzeError> {
    let seconds = (to - from).num_seconds().max(0);
    let step = (seconds / max_points.max(1) as i64 + 1).max(MIN_STEP_SECONDS);
    let (from_us, until_us) = (from.timestamp_micros(), to.timestamp_micros().saturating_add(1));
    let rows: Vec<(String, i64, Option<f64>, Option<f64>)> =
        store.query_map(&sql::USAGE_NODE_BUCKETS, [from_us, until_us, step * 1_000_000], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(4)?))
        })?;
    if rows.is_empty() {
        return Ok(None);
    }
    let end = crate::ClusterAt::load_nodes(store, to)?.nodes;
    let start = crate::ClusterAt::load_nodes(store, from)?.nodes;
    let mut nodes: BTreeMap<String, Vec<UsedPoint>> = BTreeMap::new();
    for (node, bucket_us, cpu, memory) in rows {
        let Some(n) = end.iter().chain(&start).find(|n| n.name == node) else { continue };
        let Some(at) = DateTime::from_timestamp_micros(bucket_us) else { continue };
        let pct = |v: Option<f64>, r: &str| v.and_then(|v| percent_of(v, n.allocatable.get(r)));
        nodes.entry(node).or_default().push(UsedPoint {
            at,
            cpu_percent: pct(cpu, kdrift_rebalance::CPU),
            memory_percent: pct(memory, kdrift_rebalance::MEMORY),
        });
    }
    Ok(Some(UsedSeries { step_seconds: step, nodes }))
}
