//! The pods' requested amounts per node at one instant, read from the
//! checkpoints and changes ingest keeps (schema v8: `requested_checkpoints`,
//! `requested_changes`) plus the few pod versions they leave out (observed
//! after the instant, unreadable, or requesting resources other than cpu and
//! memory): the same numbers as `requested_by_node` and `pods_summary_at`,
//! which join every pod version interval to the instants (kdrift issue 6:
//! ~3 s for the drain timeline's 20 instants at 10M events). Each part is
//! one query per instant with plain range bounds, so DuckDB reads only the
//! row groups of one checkpoint and at most an hour of changes
//! ([`pod_amounts_at`]); for many instants (the report's requested %
//! series: up to 5,000), each part is one query for all of them
//! ([`pod_amounts_at_instants`]: `requested_at_instants`,
//! `requested_extras_at_instants`), the same numbers.

use std::collections::{BTreeMap, HashMap};

use kdrift_rebalance::ResourceList;
use kdrift_rebalance::{CPU, MEMORY, PODS};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde_json::Value;

use super::amounts::NodeUsage;
use crate::AnalyzeError;

/// An hour in UTC microseconds: checkpoints are an hour apart at most from
/// the changes they hold.
const HOUR_US: i64 = 3_600_000_000;

/// What the stored pods add to the nodes at one instant.
#[derive(Debug, Default)]
pub(crate) struct PodAmounts {
    /// Per node name: what counts toward it (nodes without pods are absent).
    pub usage: BTreeMap<String, NodeUsage>,
    /// Pods stored at the instant whose version was observed after it.
    pub estimated_pods: u64,
    /// Pods the model cannot read (`Pod namespace/name: why`), by namespace and name.
    pub unreadable: Vec<String>,
}

/// The checkpoint instants of a store (UTC microseconds, oldest first), read
/// once per set of instants.
pub(crate) fn checkpoint_times(store: &Reader) -> Result<Vec<i64>, AnalyzeError> {
    Ok(store.query_map(&sql::REQUESTED_CHECKPOINT_TIMES, [], |r| r.get::<_, i64>(0))?)
}

/// Per-node sums before they become a [`NodeUsage`].
#[derive(Default)]
struct Sums {
    pods: i64,
    cpu: i128,
    memory: i128,
    other: Vec<String>,
    estimated: bool,
}

/// The amounts at `at_us` (UTC microseconds), given the store's
/// [`checkpoint_times`].
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(crate) fn pod_amounts_at(store: &Reader, times: &[i64], at_us: i64) -> Result<PodAmounts, AnalyzeError> {
    // Before the first checkpoint: from an hour before it, before every
    // change (the earliest change is in the hour up to the first checkpoint),
    // where no checkpoint is. Without checkpoints there is no change.
    let checkpoint = match times.partition_point(|t| *t <= at_us) {
        0 => times.first().map_or(at_us, |first| first.saturating_sub(HOUR_US)),
        i => times[i - 1],
    };
    let rows = store.query_map(&sql::REQUESTED_SINCE_CHECKPOINT, [checkpoint, at_us], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, i128>(2)?, r.get::<_, i128>(3)?))
    })?;
    let extras = store.query_map(&sql::REQUESTED_EXTRAS_AT, [at_us], |r| Extra::read(r, 0))?;
    Ok(fold(rows, extras))
}

/// The amounts at each of `instants` (UTC microseconds), in one query per
/// part for all of them: `requested_at_instants` (each instant's checkpoint
/// and changes, found in SQL) and `requested_extras_at_instants`. The same
/// numbers as [`pod_amounts_at`] at each instant; a repeated instant is
/// answered once.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(crate) fn pod_amounts_at_instants(
    store: &Reader,
    instants: &[i64],
) -> Result<HashMap<i64, PodAmounts>, AnalyzeError> {
    let list = instants.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    let mut rows: HashMap<i64, Vec<(String, i64, i128, i128)>> = HashMap::new();
    for (at_us, row) in store.query_map(&sql::REQUESTED_AT_INSTANTS, [&list], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            (r.get::<_, String>(1)?, r.get::<_, i64>(2)?, r.get::<_, i128>(3)?, r.get::<_, i128>(4)?),
        ))
    })? {
        rows.entry(at_us).or_default().push(row);
    }
    let mut extras: HashMap<i64, Vec<Extra>> = HashMap::new();
    for (at_us, extra) in store
        .query_map(&sql::REQUESTED_EXTRAS_AT_INSTANTS, [&list], |r| Ok((r.get::<_, i64>(0)?, Extra::read(r, 1)?)))?
    {
        extras.entry(at_us).or_default().push(extra);
    }
    Ok(instants
        .iter()
        .map(|at| (*at, fold(rows.remove(at).unwrap_or_default(), extras.remove(at).unwrap_or_default())))
        .collect())
}

/// The amounts at one instant from its `requested_since_checkpoint` rows
/// (node, pods, cpu, memory) and its `requested_extras_at` rows (in the
/// query's order: by namespace and name).
fn fold(rows: Vec<(String, i64, i128, i128)>, extras: Vec<Extra>) -> PodAmounts {
    let mut sums: BTreeMap<String, Sums> = BTreeMap::new();
    for (node, pods, cpu, memory) in rows {
        sums.insert(node, Sums { pods, cpu, memory, ..Sums::default() });
    }
    let mut out = PodAmounts::default();
    for extra in extras {
        out.estimated_pods += u64::from(extra.estimated);
        if let Some(note) = extra.unreadable {
            out.unreadable.push(note);
        }
        // As `requested_by_node`: readable, counting toward a node, and (when
        // estimated) not bound only after the instant.
        let Some(node) = extra.node else { continue };
        if extra.model_error || (extra.estimated && extra.scheduled_after) {
            continue;
        }
        let s = sums.entry(node).or_default();
        if extra.estimated {
            // Not in the checkpoints: counted whole.
            s.pods += 1;
            s.cpu += i128::from(extra.cpu.unwrap_or(0));
            s.memory += i128::from(extra.memory.unwrap_or(0));
            s.estimated = true;
        }
        s.other.extend(extra.other);
    }
    out.usage = sums.into_iter().map(|(node, s)| (node, s.into_usage())).collect();
    out
}

/// One row of `requested_extras_at` (or of `requested_extras_at_instants`, after its `at_us`).
struct Extra {
    node: Option<String>,
    cpu: Option<i64>,
    memory: Option<i64>,
    other: Option<String>,
    model_error: bool,
    unreadable: Option<String>,
    scheduled_after: bool,
    estimated: bool,
}

impl Extra {
    /// The row's columns from `usage_node` on, which is column `first + 2`.
    fn read(r: &kdrift_store::Row<'_, '_>, first: usize) -> Result<Extra, kdrift_store::RowError> {
        Ok(Extra {
            node: r.get(first + 2)?,
            cpu: r.get(first + 3)?,
            memory: r.get(first + 4)?,
            other: r.get(first + 5)?,
            model_error: r.get::<_, Option<String>>(first + 6)?.is_some(),
            unreadable: r.get(first + 7)?,
            scheduled_after: r.get(first + 8)?,
            estimated: r.get(first + 9)?,
        })
    }
}

impl Sums {
    /// As `amounts_at` builds a node's list from `requested_by_node`: cpu and
    /// memory set (saturating), the other resources added, then `pods`.
    fn into_usage(self) -> NodeUsage {
        let mut requested = ResourceList::new();
        requested.set(CPU, saturate(self.cpu));
        requested.set(MEMORY, saturate(self.memory));
        for text in &self.other {
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) {
                let extra: Vec<(String, i64)> =
                    map.into_iter().filter_map(|(k, v)| v.as_i64().map(|v| (k, v))).collect();
                requested.add(&ResourceList::from_pairs(&extra));
            }
        }
        requested.set(PODS, self.pods);
        NodeUsage { requested, estimated: self.estimated, requests_unknown: 0 }
    }
}

/// A HUGEINT sum as i64, saturating (the amounts saturate the same way in the model).
pub(crate) fn saturate(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}
