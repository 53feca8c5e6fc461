//! Measured usage against requests (kdrift issue 37): the nodes hot in fact
//! but not on paper, and the pods that make them so.
//!
//! - `skew_usage`: `kdrift skew --usage` ([`skew_usage()`]), each node's
//!   requested % and used % side by side at an instant, the nodes hot in
//!   fact but not on paper and the reverse, and each hotspot's pods;
//! - `hotspots`: `kdrift hotspots` ([`hotspots()`]), the episodes where a
//!   node stayed above a used-% threshold for consecutive step buckets, the
//!   pods that drove each and what put them there;
//! - `drivers`: a hotspot's pods (usage, request, usage/request);
//! - `used_series`: every node's used % over a range, for the HTML report.
//!
//! Units: cpu in millicores, memory in bytes (working set), percents of
//! the node's allocatable (serialized with two decimals), instants UTC.

mod drivers;
mod episodes;
mod hotspots;
mod skew_usage;
mod used_series;

pub use drivers::Driver;
pub use episodes::{Episode, Hotspots, HotspotsOptions};
pub use hotspots::hotspots;
pub use skew_usage::{skew_usage, NodeUsed, Spot, UsageSkew, UsedLine};
pub use used_series::{used_series, UsedPoint, UsedSeries};

use chrono::{DateTime, Utc};
use kdrift_store::{sql, Reader};

use crate::AnalyzeError;

/// The resources measured usage covers, in output order.
pub const MEASURED: [&str; 2] = [kdrift_rebalance::CPU, kdrift_rebalance::MEMORY];

/// What to say when the store holds no usage sample at all: how to get some.
pub const NO_SAMPLES: &str = "the store holds no usage samples: load them with `kdrift ingest prometheus --url URL` \
     (node-exporter, cAdvisor), `kdrift record` or `kdrift ingest api` (metrics.k8s.io, metrics-server), or \
     `kdrift ingest file` of saved `kubectl top nodes` / `kubectl top pods -A` output";

/// How many usage samples, the first and the last instant (UTC).
pub type UsageSpan = (i64, DateTime<Utc>, DateTime<Utc>);

/// The store's plausible usage samples: how many, the first and the last
/// instant (query `usage_span` over [`kdrift_store::plausible_range`]: a
/// sample dated 9999 or 0001 neither moves "now" nor stretches the range,
/// break-it 35 F12); `None` when it holds none.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn usage_span(store: &Reader) -> Result<Option<UsageSpan>, AnalyzeError> {
    let (lower, upper) = kdrift_store::plausible_range(Utc::now());
    let bounds = [lower.timestamp_micros(), upper.timestamp_micros()];
    let rows = store.query_map(&sql::USAGE_SPAN, bounds, |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?, r.get::<_, Option<i64>>(2)?))
    })?;
    Ok(rows.into_iter().next().and_then(|(n, first, last)| {
        let first = DateTime::from_timestamp_micros(first?)?;
        let last = DateTime::from_timestamp_micros(last?)?;
        (n > 0).then_some((n, first, last))
    }))
}

/// `amount × 100 / allocatable`; `None` when allocatable is 0.
pub(crate) fn percent_of(amount: f64, allocatable: i64) -> Option<f64> {
    (allocatable > 0).then(|| amount * 100.0 / allocatable as f64)
}

/// An optional percent with two decimals (`None` stays `null`).
pub(crate) fn opt_hundredths<S: serde::Serializer>(p: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Some(p) => s.serialize_some(&kdrift_rebalance::hundredths(*p)),
        None => s.serialize_none(),
    }
}

/// RFC 3339 with seconds, `Z`.
pub(crate) fn utc(t: DateTime<Utc>) -> String {
    kdrift_store::instant_text(t)
}

#[cfg(test)]
mod tests {
    use kdrift_store::{Store, UsageKind, UsageSample, UsageSource};

    use super::*;

    #[test]
    fn samples_dated_9999_or_0001_neither_move_now_nor_stretch_the_span() {
        // Break-it 35 F12: `skew --usage` evaluated at 9999-12-31 and
        // `hotspots` spanned 0001 … 9999.
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("s.duckdb")).expect("store");
        let at = |s: &str| DateTime::parse_from_rfc3339(s).expect("t").with_timezone(&Utc).timestamp_micros();
        let node = |name: &str, at_us: i64| UsageSample {
            kind: UsageKind::Node,
            node: Some(name.into()),
            namespace: None,
            pod: None,
            at_us,
            cpu_millis: Some(100),
            memory_bytes: Some(1 << 20),
        };
        let samples = [
            node("n1", at("2026-11-27T00:00:00Z")),
            node("n1", at("9999-12-31T00:00:00Z")),
            node("n2", at("0001-01-01T00:00:00Z")),
            node("n2", at("2026-11-27T00:00:30Z")),
        ];
        store.commit_usage("test", "t", UsageSource::MetricsApi, &samples, &[], None).expect("commit");
        let (n, first, last) = usage_span(&store).expect("span").expect("samples");
        assert_eq!((n, utc(first), utc(last)), (2, "2026-11-27T00:00:00Z".into(), "2026-11-27T00:00:30Z".into()));
    }
}
