//! The pods that drive a hotspot: each pod measured on the node, its usage
//! of the hot resource, its request and the ratio of the two, heaviest
//! user first — a pod using 4× what it requests is what the scheduler could
//! not see.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use kdrift_rebalance::PodInfo;
use serde::Serialize;

use crate::pending::Arrival;

/// At most this many pods are named per hotspot (the heaviest users).
pub const DRIVERS_SHOWN: usize = 10;

/// One pod on a hot node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Driver {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub name: String,
    /// What it used of the hot resource (cpu millicores, memory bytes):
    /// its reading at the instant (`skew --usage`), its mean over the
    /// episode (`hotspots`).
    pub used: i64,
    /// Its effective request of the resource (`None`: the store has no
    /// object of the pod at the instant).
    pub requested: Option<i64>,
    /// `used / requested` (`None`: no request known, or a request of 0).
    #[serde(serialize_with = "super::opt_hundredths")]
    pub ratio: Option<f64>,
    /// When it was bound to the node, when the store shows it (`hotspots`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound_at: Option<DateTime<Utc>>,
    /// What put it there: a drain, another component's eviction, a rollout,
    /// an HPA's scale-up, its DaemonSet or owner (`hotspots`; `None` in
    /// `skew --usage`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrival: Option<Arrival>,
}

/// The pods of `used` (`(namespace, name)` → amount of `resource` used),
/// with their requests from `pods`, heaviest user first (then by
/// namespace and name), at most [`DRIVERS_SHOWN`], and how many pods
/// measured there were left out (`0` when all are shown).
pub fn drivers(
    resource: &str,
    used: Vec<((String, String), i64)>,
    pods: &HashMap<(&str, &str), &PodInfo>,
) -> (Vec<Driver>, usize) {
    let mut out: Vec<Driver> = used
        .into_iter()
        .map(|((namespace, name), used)| {
            let requested = pods.get(&(namespace.as_str(), name.as_str())).map(|p| p.requests.get(resource));
            let ratio = requested.filter(|r| *r > 0).map(|r| used as f64 / r as f64);
            Driver { namespace, name, used, requested, ratio, bound_at: None, arrival: None }
        })
        .collect();
    out.sort_by(|a, b| b.used.cmp(&a.used).then_with(|| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name))));
    let left_out = out.len().saturating_sub(DRIVERS_SHOWN);
    out.truncate(DRIVERS_SHOWN);
    (out, left_out)
}

/// `pods` by `(namespace, name)`.
pub fn by_name(pods: &[PodInfo]) -> HashMap<(&str, &str), &PodInfo> {
    pods.iter().map(|p| ((p.namespace.as_str(), p.name.as_str()), p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heaviest_user_first_with_the_ratio_to_its_request_and_unknown_requests_left_unknown() {
        let mut p = PodInfo::new("batch", "crunch-1");
        p.requests.set("cpu", 500);
        let pods = vec![p];
        let used = vec![
            (("batch".to_string(), "crunch-1".to_string()), 2250),
            (("web".to_string(), "api-1".to_string()), 3000),
        ];
        let (d, left_out) = drivers("cpu", used, &by_name(&pods));
        assert_eq!(left_out, 0);
        assert_eq!((d[0].name.as_str(), d[0].requested, d[0].ratio), ("api-1", None, None));
        assert_eq!((d[1].name.as_str(), d[1].requested, d[1].ratio), ("crunch-1", Some(500), Some(4.5)));
    }

    #[test]
    fn past_ten_pods_the_lighter_users_are_counted_not_listed() {
        let used: Vec<((String, String), i64)> =
            (1..=13).map(|i| (("batch".to_string(), format!("job-{i:02}")), 100 * i)).collect();
        let (d, left_out) = drivers("cpu", used, &HashMap::new());
        assert_eq!((d.len(), left_out), (10, 3));
        assert_eq!((d[0].name.as_str(), d[0].used, d[9].name.as_str()), ("job-13", 1300, "job-04"));
    }
}
