//! Measured usage: the CPU and memory nodes and pods actually used, as one
//! reading per object at a plan's or an analysis' instant (kdrift issue 37).
//!
//! What descheduler v0.36 calls `metricsUtilization`: LowNodeUtilization
//! classifies nodes on the usage metrics-server or Prometheus reports
//! (`../shared/reference/descheduler-plugins.md` §4) instead of on requests.
//! kdrift reads it from the store's `usage_samples` in one of two ways
//! ([`Reading`]): the latest sample (as descheduler: an instantaneous
//! reading), or a percentile over a window (opt-in, beyond descheduler: a
//! 5-minute spike does not make a node hot for a 1-hour p95).
//!
//! Units: cpu in millicores, memory in bytes (working set), instants in UTC
//! microseconds. Pure data: loading is `kdrift_analyze::measured_at`.

use std::collections::BTreeMap;

/// How a reading is taken from the samples before an instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reading {
    /// Each object's latest sample at or before the instant and no older
    /// than `max_age_us` (a node whose last sample is older is unmeasured):
    /// what descheduler's metrics collector gives (one reading).
    Latest {
        /// Oldest sample accepted, µs before the instant (e.g. 15 minutes).
        max_age_us: i64,
    },
    /// Each object's `percentile` (0 < p ≤ 100, nearest rank: a reading that
    /// was actually measured) of its samples in (instant − `window_us`, instant].
    Percentile {
        /// Window length, µs.
        window_us: i64,
        /// Percentile, 0 < p ≤ 100 (e.g. 95).
        percentile: f64,
    },
}

impl Reading {
    /// The window samples are read from, µs before the instant.
    pub fn span_us(&self) -> i64 {
        match *self {
            Reading::Latest { max_age_us } => max_age_us,
            Reading::Percentile { window_us, .. } => window_us,
        }
    }

    /// How the reading is written in outputs: `latest sample (≤ 15m old)`,
    /// `p95 over 1h`.
    pub fn describe(&self) -> String {
        match *self {
            Reading::Latest { max_age_us } => format!("latest sample (≤ {} old)", duration_text(max_age_us)),
            Reading::Percentile { window_us, percentile } => {
                format!("p{} over {}", trim_float(percentile), duration_text(window_us))
            }
        }
    }
}

/// One object's reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Measured {
    /// CPU used, millicores (`None`: no cpu sample in the window).
    pub cpu_millis: Option<i64>,
    /// Memory working set, bytes (`None`: no memory sample in the window).
    pub memory_bytes: Option<i64>,
    /// The latest sample read, UTC µs.
    pub sampled_at_us: i64,
    /// Samples read (1 for [`Reading::Latest`]).
    pub samples: u32,
}

/// The readings of every node and pod measured at one instant.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeasuredUsage {
    /// The instant, UTC µs.
    pub at_us: i64,
    /// How the readings were taken (`None`: an empty reading).
    pub reading: Option<Reading>,
    /// Per node name.
    pub nodes: BTreeMap<String, Measured>,
    /// Per pod (`namespace`, `name`): its reading and the node its latest
    /// sample named (`None`: the source did not say).
    pub pods: BTreeMap<(String, String), (Measured, Option<String>)>,
}

impl MeasuredUsage {
    /// No node or pod measured.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.pods.is_empty()
    }

    /// The node's reading.
    pub fn node(&self, name: &str) -> Option<&Measured> {
        self.nodes.get(name)
    }

    /// The pod's reading.
    pub fn pod(&self, namespace: &str, name: &str) -> Option<&Measured> {
        self.pods.get(&(namespace.to_string(), name.to_string())).map(|(m, _)| m)
    }
}

/// `90s` → `1m30s`, `3600 s` → `1h`: a duration in µs as people write it.
fn duration_text(us: i64) -> String {
    let mut s = us.max(0) / 1_000_000;
    if s == 0 {
        return "0s".into();
    }
    let mut out = String::new();
    for (unit, len) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] {
        if s >= len {
            out.push_str(&format!("{}{unit}", s / len));
            s %= len;
        }
    }
    out
}

/// `95.0` → `95`, `99.5` → `99.5`.
fn trim_float(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_describe_themselves_as_people_write_durations() {
        assert_eq!(Reading::Latest { max_age_us: 900_000_000 }.describe(), "latest sample (≤ 15m old)");
        assert_eq!(Reading::Percentile { window_us: 3_600_000_000, percentile: 95.0 }.describe(), "p95 over 1h");
        assert_eq!(Reading::Percentile { window_us: 5_400_000_000, percentile: 99.5 }.describe(), "p99.5 over 1h30m");
    }
}
