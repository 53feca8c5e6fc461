//! `kdrift hotspots`' findings and the rule that finds them: a node is in
//! an episode while its mean usage of a resource over each step bucket is at
//! or above the threshold (percent of allocatable) for at least N buckets
//! in a row; a bucket below it, or without a sample, ends the run. Shorter
//! runs are spikes, counted but not reported — descheduler's
//! metricsUtilization acts on one reading; Koordinator's and Volcano's
//! load-aware plugins on windows, as this does.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::drivers::Driver;

/// What `kdrift hotspots` looks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HotspotsOptions {
    /// Start of the range (default: the store's first usage sample).
    pub since: Option<DateTime<Utc>>,
    /// End of the range, exclusive (default: just after the store's last usage sample).
    pub until: Option<DateTime<Utc>>,
    /// Used % of allocatable a bucket's mean must reach (e.g. 80).
    pub threshold: f64,
    /// Buckets in a row a node must stay at or above it (e.g. 3).
    pub windows: usize,
    /// Bucket length (e.g. 5 minutes; at least one second).
    pub step: Duration,
}

/// One node above the threshold for consecutive buckets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Episode {
    /// Node name.
    pub node: String,
    /// `cpu` or `memory`.
    pub resource: String,
    /// The first hot bucket's start (UTC).
    pub started_at: DateTime<Utc>,
    /// The last hot bucket's end (UTC, exclusive): its start + the step,
    /// for an ongoing episode too (it may then be after the last sample);
    /// `ended_at − started_at` is `windows` steps.
    pub ended_at: DateTime<Utc>,
    /// Hot buckets in the run.
    pub windows: usize,
    /// The run reaches the range's last bucket: it may go on.
    pub ongoing: bool,
    /// The node's allocatable (millicores, bytes).
    pub allocatable: i64,
    /// The highest bucket mean, % of allocatable.
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub peak_percent: f64,
    /// The mean of the bucket means, % of allocatable.
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub mean_percent: f64,
    /// Requested % of allocatable in the middle of the episode (`None`: no Node object then).
    #[serde(serialize_with = "super::opt_hundredths")]
    pub requested_percent: Option<f64>,
    /// `requested_percent` is a lower bound (shown `≥`), as in `kdrift
    /// skew`: the store lacks pods or their requests (see the notes).
    pub lower_bound: bool,
    /// The pods measured on the node during the episode, heaviest mean
    /// user first, with their requests and what put them there (at most
    /// 10).
    pub pods: Vec<Driver>,
    /// How many more pods were measured on the node than `pods` lists
    /// (left out of the JSON when 0).
    #[serde(skip_serializing_if = "super::skew_usage::is_zero")]
    pub pods_left_out: usize,
}

/// What `kdrift hotspots` says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hotspots {
    /// Start of the range (UTC): `--since`, else the store's first node
    /// usage sample; `None` (JSON `null`) when neither is there.
    pub since: Option<DateTime<Utc>>,
    /// End of the range (UTC, exclusive): `--until`, else just after the
    /// store's last node usage sample; `None` when neither is there.
    pub until: Option<DateTime<Utc>>,
    /// Bucket length, seconds.
    pub step_seconds: i64,
    /// The threshold, used % of allocatable.
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub threshold: f64,
    /// Buckets in a row an episode needs.
    pub windows: usize,
    /// Episodes, by start, then node and resource.
    pub episodes: Vec<Episode>,
    /// Runs above the threshold shorter than `windows` buckets (spikes), not reported.
    pub spikes: usize,
    /// Why nothing could be measured: no usage sample at all (and how to
    /// get some), or none in the range (with the store's span).
    pub no_samples: Option<String>,
    /// Caveats: nodes measured but without a Node object (no allocatable).
    pub notes: Vec<String>,
}

/// The runs of at least `windows` buckets whose value is at or above
/// `threshold`, in `buckets` (`(bucket start µs, value)`, by start; a gap
/// of more than `step_us` between two breaks a run): `(first index, last
/// index)` of each, and how many shorter runs there were.
pub fn runs(buckets: &[(i64, f64)], step_us: i64, threshold: f64, windows: usize) -> (Vec<(usize, usize)>, usize) {
    let mut out = Vec::new();
    let mut spikes = 0;
    let mut start: Option<usize> = None;
    let mut close = |s: usize, e: usize, out: &mut Vec<(usize, usize)>| {
        if e + 1 - s >= windows.max(1) {
            out.push((s, e));
        } else {
            spikes += 1;
        }
    };
    for (i, (at, v)) in buckets.iter().enumerate() {
        let follows = i > 0 && at - buckets[i - 1].0 <= step_us;
        if let Some(s) = start.filter(|_| *v < threshold || !follows) {
            close(s, i - 1, &mut out);
            start = None;
        }
        if *v >= threshold && start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        close(s, buckets.len() - 1, &mut out);
    }
    (out, spikes)
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn three_buckets_in_a_row_make_an_episode_a_single_spike_and_a_gap_do_not() {
        let b = |v: &[(i64, f64)]| v.to_vec();
        // 5-minute buckets (step 300 s): a one-bucket spike at 0, a run of 3 from 900,
        // a run of 2 from 2100 (a spike), then a bucket missing at 2700: the 6 from 3000
        // reaching the end are a run of their own.
        let buckets = b(&[
            (0, 95.0),
            (300, 40.0),
            (600, 50.0),
            (900, 90.0),
            (1200, 80.0),
            (1500, 99.0),
            (1800, 79.9),
            (2100, 85.0),
            (2400, 85.0),
            (3000, 85.0),
            (3300, 85.0),
            (3600, 91.0),
            (3900, 92.0),
            (4200, 93.0),
            (4500, 94.0),
        ]);
        let (episodes, spikes) = runs(&buckets, 300, 80.0, 3);
        assert_eq!(episodes, vec![(3, 5), (9, 14)]);
        assert_eq!(spikes, 2);
        assert_eq!(runs(&buckets[7..9], 300, 80.0, 2), (vec![(0, 1)], 0));
    }
}
