//! The bindings a drain timeline's moves look up, read without the rest of
//! the history: the bindings inside each operation's window (where an
//! evicted pod's replacement is found: [`super::moves::find_replacements`]
//! looks from 5 s before an eviction, and an eviction lies inside its
//! operation's window) and every binding of the pods the eviction evidence
//! names (their own latest binding gives their owner, and the node of
//! evidence that names none). The moves [`super::moves`] finds in these are
//! those it finds in every binding of the range, at a fraction of the rows
//! (kdrift issue 6: 820,000 bindings at 10M events); a test compares both
//! timelines.

use chrono::{DateTime, Utc};
use kdrift_ingest::store::sql;
use kdrift_ingest::Store;
use serde_json::json;

use super::moves::REPLACED_BEFORE;
use crate::history::{self, EvictionEvidence, Placement};
use crate::AnalyzeError;

/// The rows of `pod_placements` over `range` (UTC, inclusive) that the
/// moves of operations with `windows` (UTC, inclusive) and `evidence` can
/// look up, in `pod_placements`' order (bound_at, namespace, name, uid,
/// node): each row of the range at most as often as the range has it.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(super) fn for_moves(
    store: &Store,
    range: (DateTime<Utc>, DateTime<Utc>),
    windows: &[(DateTime<Utc>, DateTime<Utc>)],
    evidence: &[EvictionEvidence],
) -> Result<Vec<Placement>, AnalyzeError> {
    let (from, to) = range;
    let merged = disjoint(windows.iter().map(|(a, b)| ((*a - REPLACED_BEFORE).max(from), (*b).min(to))));
    let mut out = Vec::new();
    for (a, b) in &merged {
        out.extend(history::placements(store, *a, *b)?);
    }
    // The evidence's pods, bound in the range outside those windows.
    let mut pods: Vec<(&str, &str)> = evidence.iter().map(|e| (e.namespace.as_str(), e.name.as_str())).collect();
    pods.sort_unstable();
    pods.dedup();
    if !pods.is_empty() {
        let list = serde_json::Value::Array(pods.iter().map(|(ns, n)| json!({"namespace": ns, "name": n})).collect());
        let params = duckdb::params![list.to_string(), "[]", to.timestamp_micros()];
        let own = store.query_map(&sql::OWNER_BINDINGS, params, history::placement_row)?;
        let inside = |t: DateTime<Utc>| merged.iter().any(|(a, b)| t >= *a && t <= *b);
        out.extend(own.into_iter().filter(|p| p.bound_at >= from && !inside(p.bound_at)));
    }
    // Stable: rows equal in every key field keep their count.
    out.sort_by(|a, b| {
        (a.bound_at, &a.namespace, &a.name, &a.uid, &a.node).cmp(&(b.bound_at, &b.namespace, &b.name, &b.uid, &b.node))
    });
    Ok(out)
}

/// Inclusive ranges merged into disjoint ones, in time order (empty ranges dropped).
fn disjoint(ranges: impl Iterator<Item = (DateTime<Utc>, DateTime<Utc>)>) -> Vec<(DateTime<Utc>, DateTime<Utc>)> {
    let mut sorted: Vec<(DateTime<Utc>, DateTime<Utc>)> = ranges.filter(|(a, b)| a <= b).collect();
    sorted.sort_unstable();
    let mut out: Vec<(DateTime<Utc>, DateTime<Utc>)> = Vec::new();
    for (a, b) in sorted {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
    }

    #[test]
    fn overlapping_windows_merge_and_disjoint_ones_stay() {
        let got = disjoint(
            [
                (t("2026-11-01T03:00:00Z"), t("2026-11-01T04:00:00Z")),
                (t("2026-11-01T01:00:00Z"), t("2026-11-01T02:00:00Z")),
                (t("2026-11-01T01:30:00Z"), t("2026-11-01T03:00:00Z")),
                (t("2026-11-01T06:00:00Z"), t("2026-11-01T05:00:00Z")),
                (t("2026-11-01T07:00:00Z"), t("2026-11-01T08:00:00Z")),
            ]
            .into_iter(),
        );
        assert_eq!(
            got,
            [
                (t("2026-11-01T01:00:00Z"), t("2026-11-01T04:00:00Z")),
                (t("2026-11-01T07:00:00Z"), t("2026-11-01T08:00:00Z"))
            ]
        );
    }
}
