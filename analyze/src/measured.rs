//! Measured usage at an instant, read from the store's `usage_samples`
//! (kdrift issue 37): one [`Reading`] per node and pod, what `skew --usage`,
//! `hotspots` and the planner's `metricsUtilization` work on.

use chrono::{DateTime, Utc};
use kdrift_rebalance::{Measured, MeasuredUsage, Reading};
use kdrift_store::{sql, Reader, Row, RowError};

use crate::AnalyzeError;

/// Every node's and pod's reading at `at` (see [`Reading`]: the latest
/// sample no older than its max age, or a percentile over its window).
/// Objects with no sample in the span are absent. A percentile outside
/// (0, 100] is clamped to it (0.1 … 100).
///
/// # Errors
/// [`AnalyzeError::Store`] naming the query.
pub fn measured_at(store: &Reader, at: DateTime<Utc>, reading: Reading) -> Result<MeasuredUsage, AnalyzeError> {
    let at_us = at.timestamp_micros();
    type Read = (String, Option<String>, Option<String>, Option<String>, Measured);
    let row = |r: &Row<'_, '_>| -> Result<Read, RowError> {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            Measured {
                sampled_at_us: r.get(4)?,
                cpu_millis: r.get(5)?,
                memory_bytes: r.get(6)?,
                samples: u32::try_from(r.get::<_, i64>(7)?).unwrap_or(u32::MAX),
            },
        ))
    };
    let rows = match reading {
        Reading::Latest { max_age_us } => store.query_map(&sql::USAGE_LATEST_AT, [at_us, max_age_us.max(0)], row)?,
        Reading::Percentile { window_us, percentile } => {
            let permille = (percentile * 10.0).round().clamp(1.0, 1000.0) as i64;
            store.query_map(&sql::USAGE_PERCENTILE_AT, [at_us, window_us.max(0), permille], row)?
        }
    };
    let mut usage = MeasuredUsage { at_us, reading: Some(reading), ..MeasuredUsage::default() };
    for (kind, node, namespace, pod, measured) in rows {
        match (kind.as_str(), node, namespace, pod) {
            ("node", Some(node), _, _) => {
                usage.nodes.insert(node, measured);
            }
            ("pod", node, Some(namespace), Some(pod)) => {
                usage.pods.insert((namespace, pod), (measured, node));
            }
            _ => {}
        }
    }
    Ok(usage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kdrift_store::{Store, UsageKind, UsageSample, UsageSource};

    /// 2026-11-13T00:00:00Z, UTC µs.
    const T0: i64 = 1_794_528_000_000_000;
    const MIN: i64 = 60_000_000;

    fn sample(
        kind: UsageKind,
        node: &str,
        pod: Option<&str>,
        at_us: i64,
        cpu: Option<i64>,
        mem: Option<i64>,
    ) -> UsageSample {
        UsageSample {
            kind,
            node: Some(node.into()),
            namespace: pod.map(|_| "web".into()),
            pod: pod.map(str::to_string),
            at_us,
            cpu_millis: cpu,
            memory_bytes: mem,
        }
    }

    #[test]
    fn the_latest_reading_takes_each_resource_latest_sample_and_the_percentile_ignores_a_short_spike() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("m.duckdb")).expect("store");
        // n1: 1000m for an hour, with a 5-minute spike to 3900m at the end; its last
        // sample has no memory reading. n2: sampled 20 minutes ago only.
        let mut samples: Vec<UsageSample> = (0..60)
            .map(|m| {
                let cpu = if m >= 55 { 3900 } else { 1000 };
                let mem = if m == 59 { None } else { Some(2 << 30) };
                sample(UsageKind::Node, "n1", None, T0 + m * MIN, Some(cpu), mem)
            })
            .collect();
        samples.push(sample(UsageKind::Node, "n2", None, T0 + 39 * MIN, Some(500), Some(1 << 30)));
        samples.push(sample(UsageKind::Pod, "n1", Some("api-1"), T0 + 59 * MIN, Some(2900), Some(1 << 28)));
        store.commit_usage("test", "t", UsageSource::Prometheus, &samples, &[], None).expect("commit");
        // The metrics API's sample at the same instant wins over Prometheus'.
        let api = [sample(UsageKind::Node, "n1", None, T0 + 59 * MIN, Some(3950), None)];
        store.commit_usage("test", "t", UsageSource::MetricsApi, &api, &[], None).expect("commit");

        let at = DateTime::from_timestamp_micros(T0 + 59 * MIN).expect("at");
        let latest = measured_at(&store, at, Reading::Latest { max_age_us: 15 * MIN }).expect("latest");
        let n1 = latest.node("n1").expect("n1");
        assert_eq!((n1.cpu_millis, n1.memory_bytes, n1.sampled_at_us), (Some(3950), Some(2 << 30), T0 + 59 * MIN));
        assert!(latest.node("n2").is_none(), "n2's sample is 20 minutes old");
        assert_eq!(
            latest.pods[&("web".into(), "api-1".into())],
            (
                Measured {
                    cpu_millis: Some(2900),
                    memory_bytes: Some(1 << 28),
                    sampled_at_us: T0 + 59 * MIN,
                    samples: 1
                },
                Some("n1".to_string())
            )
        );

        let p95 = measured_at(&store, at, Reading::Percentile { window_us: 60 * MIN, percentile: 95.0 }).expect("p95");
        let n1 = p95.node("n1").expect("n1");
        // 61 samples in the hour (60 + the API's), 6 of them (10 %) the spike: p95 sees it, p80 does not.
        assert_eq!((n1.cpu_millis, n1.samples), (Some(3900), 61));
        let p80 = measured_at(&store, at, Reading::Percentile { window_us: 60 * MIN, percentile: 80.0 }).expect("p80");
        assert_eq!(p80.node("n1").expect("n1").cpu_millis, Some(1000));
        assert_eq!(p80.node("n2").expect("n2 within the hour").cpu_millis, Some(500));
    }
}
