//! Every node's requested % of allocatable over a time range, for charts:
//! sampled where it can change, at most a given number of times.
//!
//! The sampling instants are the store's changes in the range (query
//! `requested_changes`: Pod and Node versions, Scheduled events, the events
//! that stop a pod). When there are more changes than samples allowed, the
//! range is cut into that many equal slices and each slice is sampled at its
//! last change, so every sample still shows the state right after a change
//! and a quiet stretch costs nothing. The first sample is at the range's
//! start. Each sample is [`crate::requested_at`] (the state of
//! [`crate::state::ClusterAt`]); a value holds until the next sample.

use chrono::{DateTime, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;

use crate::usage::{requested_at_instants, RequestedAt};
use crate::AnalyzeError;

/// Requested amounts per node at successive instants.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestedSeries {
    /// Start of the range (UTC); the first sample is here.
    pub from: DateTime<Utc>,
    /// End of the range (UTC); the last sample's values hold until here.
    pub to: DateTime<Utc>,
    /// Instants in `(from, to]` at which the store shows a change.
    pub changes: usize,
    /// Whether changes were coalesced (more changes than samples allowed).
    pub coalesced: bool,
    /// The samples, oldest first.
    pub samples: Vec<RequestedAt>,
    /// Set when the values are lower bounds (≥): events name pods of
    /// namespaces whose Pod objects the store never held (a dump without
    /// them), as `skew` and `why-pending` say it
    /// (`crate::state::lower_bound::unstored_note` at the range's end).
    pub lower_bound_note: Option<String>,
}

impl RequestedSeries {
    /// The samples a chart shows: those at which some node exists (a range
    /// that starts before the store's first Node object has earlier ones
    /// with none). The count `report` says on stdout, in JSON and in the
    /// HTML (new-user trial 46: "54 instants" in the file, 53 on stdout).
    pub fn charted_samples(&self) -> usize {
        self.samples.iter().filter(|s| !s.nodes.is_empty()).count()
    }

    /// Every node name over all samples, in name order.
    pub fn nodes(&self) -> Vec<String> {
        let mut names: Vec<String> = self.samples.iter().flat_map(|s| s.nodes.iter().map(|n| n.node.clone())).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// One node's percent of one resource at every sample where the node
    /// exists and offers it (allocatable > 0): `(instant, percent)`.
    pub fn percent_of(&self, node: &str, resource: &str) -> Vec<(DateTime<Utc>, f64)> {
        self.samples
            .iter()
            .filter_map(|s| {
                let r = s.node(node)?.get(resource).filter(|r| r.allocatable > 0)?;
                Some((s.at, r.percent))
            })
            .collect()
    }
}

/// The instants in `(from, to]` at which requested amounts can change, oldest first.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn change_instants(
    store: &Reader,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Vec<DateTime<Utc>>, AnalyzeError> {
    Ok(store.query_map(&sql::REQUESTED_CHANGES, [from.timestamp_micros(), to.timestamp_micros()], |r| {
        r.get::<_, DateTime<Utc>>(0)
    })?)
}

/// The sampling instants: `from`, then every change in `(from, to]` when
/// there are at most `max_samples − 1` of them, else the last change of each
/// of `max_samples − 1` equal slices of the range. Sorted, without duplicates.
/// `max_samples` below 2 is taken as 2.
pub fn sampling_instants(
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    changes: &[DateTime<Utc>],
    max_samples: usize,
) -> Vec<DateTime<Utc>> {
    let slices = max_samples.max(2) - 1;
    let mut inside: Vec<DateTime<Utc>> = changes.iter().copied().filter(|t| *t > from && *t <= to).collect();
    inside.sort_unstable();
    inside.dedup();
    let mut out = vec![from];
    if inside.len() <= slices {
        out.extend(inside);
        return out;
    }
    let span = (to - from).num_microseconds().unwrap_or(i64::MAX).max(1) as f64;
    let slice_of = |t: DateTime<Utc>| {
        let offset = (t - from).num_microseconds().unwrap_or(i64::MAX) as f64;
        ((offset / span * slices as f64).ceil() as usize).clamp(1, slices)
    };
    for (i, t) in inside.iter().enumerate() {
        // Keep a change when the next one falls in a later slice (the last of its slice).
        if inside.get(i + 1).is_none_or(|next| slice_of(*next) != slice_of(*t)) {
            out.push(*t);
        }
    }
    out
}

/// Every node's requested amounts from `from` to `to`, at most `max_samples`
/// samples (see the module docs).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn requested_series(
    store: &Reader,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    max_samples: usize,
) -> Result<RequestedSeries, AnalyzeError> {
    Ok(requested_series_within(store, from, to, max_samples, usize::MAX)?.0)
}

/// [`requested_series`], taking at most `max_taken` samples (at least 2):
/// when the `max_samples` slices leave more instants than that, the range
/// is cut into `max_taken` slices instead. Also says whether it did. Each
/// sample holds every node: the report bounds samples × nodes with it
/// (kdrift issue 39: 5,000 samples × 5,000 nodes was over 4 GiB).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn requested_series_within(
    store: &Reader,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    max_samples: usize,
    max_taken: usize,
) -> Result<(RequestedSeries, bool), AnalyzeError> {
    let to = to.max(from);
    let changes = change_instants(store, from, to)?;
    let mut instants = sampling_instants(from, to, &changes, max_samples);
    let bounded = instants.len() > max_taken.max(2);
    if bounded {
        instants = sampling_instants(from, to, &changes, max_taken);
    }
    let coalesced = instants.len() < changes.len() + 1;
    let samples = requested_at_instants(store, &instants)?;
    let unstored = crate::state::lower_bound::unstored_namespaces(store, to)?;
    let lower_bound_note = crate::state::lower_bound::unstored_note(to, &unstored);
    Ok((RequestedSeries { from, to, changes: changes.len(), coalesced, samples, lower_bound_note }, bounded))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
    }

    #[test]
    fn few_changes_are_all_sampled() {
        let from = t("2026-11-28T00:00:00Z");
        let to = t("2026-11-28T01:00:00Z");
        let changes = [t("2026-11-28T00:30:00Z"), t("2026-11-28T00:10:00Z"), t("2026-11-28T00:10:00Z")];
        assert_eq!(
            sampling_instants(from, to, &changes, 10),
            vec![from, t("2026-11-28T00:10:00Z"), t("2026-11-28T00:30:00Z")]
        );
        // Changes outside (from, to] are not samples.
        let outside = [from, t("2026-11-28T01:00:01Z")];
        assert_eq!(sampling_instants(from, to, &outside, 10), vec![from]);
    }

    #[test]
    fn many_changes_keep_the_last_of_each_slice() {
        let from = t("2026-11-28T00:00:00Z");
        let to = from + Duration::hours(4);
        // A burst of changes in the first hour, one in the last.
        let mut changes: Vec<_> = (1..=59).map(|m| from + Duration::minutes(m)).collect();
        changes.push(from + Duration::minutes(230));
        // 5 samples: from + 4 slices of one hour.
        let s = sampling_instants(from, to, &changes, 5);
        assert_eq!(s, vec![from, from + Duration::minutes(59), from + Duration::minutes(230)]);
        assert!(s.len() <= 5);
    }

    #[test]
    fn a_change_on_a_slice_boundary_belongs_to_the_earlier_slice() {
        let from = t("2026-11-28T00:00:00Z");
        let to = from + Duration::hours(2);
        let changes = [from + Duration::minutes(30), from + Duration::minutes(60), from + Duration::minutes(61)];
        // 2 slices: (0, 60] and (60, 120].
        assert_eq!(
            sampling_instants(from, to, &changes, 3),
            vec![from, from + Duration::minutes(60), from + Duration::minutes(61)]
        );
    }
}
