//! Rendering of findings to any `Write`: tables (tabled) for people, JSON for
//! machines. Nothing here computes a finding.

pub mod api;
pub mod ingest;
pub mod pending;
pub mod postmortem;
pub mod query;
pub mod rebalance;
pub mod rebalance_exec;
pub mod report;
pub mod skew;
pub mod timeline;

use std::io::Write;

/// Writes `value` as pretty JSON followed by a newline.
pub fn json<W: Write, T: serde::Serialize>(out: &mut W, value: &T) -> anyhow::Result<()> {
    // As io::Error, so that a closed pipe (`| head`) is recognised as one.
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

/// One resource's skew: `97.1 points (node-1 99.6 % − node-5 2.5 %)`, every
/// number with one decimal, the points the difference of the percents shown
/// (so the line adds up; `-o json` has the exact values). Offered by fewer
/// than two nodes: `needs at least two nodes with allocatable cpu (only a
/// offers it)`.
pub fn skew_points(s: &kdrift_analyze::usage::ResourceSkew) -> String {
    use kdrift_rebalance::percent::{percent_text, points_text};
    if s.nodes < 2 {
        // A node against itself (`0.0 points (a − a)`) measures nothing.
        return format!("needs at least two nodes with allocatable {} (only {} offers it)", s.resource, s.max_node);
    }
    format!(
        "{} points ({} {} % − {} {} %)",
        points_text(s.max_percent, s.min_percent),
        s.max_node,
        percent_text(s.max_percent),
        s.min_node,
        percent_text(s.min_percent)
    )
}

/// How long a pod of `why-pending --all` was pending: `1h 30m`, or `at
/// least 10m 6s` when the store never saw it scheduled or deleted (the
/// single-pod report's "pending for at least" wording).
pub fn pending_duration(p: &kdrift_analyze::PendingPod) -> String {
    if p.pending_is_lower_bound {
        format!("at least {}", duration(p.pending_seconds))
    } else {
        duration(p.pending_seconds)
    }
}

/// `2h 5m`, `90m`, `42s`: a compact human duration.
pub fn duration(seconds: i64) -> String {
    let s = seconds.max(0);
    let (d, h, m, sec) = (s / 86_400, (s % 86_400) / 3600, (s % 3600) / 60, s % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{sec}s"),
        (0, 0, _) if sec == 0 => format!("{m}m"),
        (0, 0, _) => format!("{m}m {sec}s"),
        (0, _, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}

#[cfg(test)]
mod tests {
    use super::{duration, skew_points};

    #[test]
    fn durations() {
        assert_eq!(duration(42), "42s");
        assert_eq!(duration(5400), "1h 30m");
        assert_eq!(duration(90 * 60 + 5), "1h 30m");
        assert_eq!(duration(600), "10m");
        assert_eq!(duration(61), "1m 1s");
        assert_eq!(duration(200_000), "2d 7h");
        assert_eq!(duration(-5), "0s");
    }

    #[test]
    fn skew_parts_add_up_to_the_points() {
        let s = kdrift_analyze::usage::ResourceSkew {
            resource: "cpu".into(),
            max_node: "node-1".into(),
            max_percent: 99.64,
            min_node: "node-5".into(),
            min_percent: 2.46,
            skew: 99.64 - 2.46,
            nodes: 5,
        };
        // 97.18 exactly, but 99.6 − 2.5 is what the reader checks.
        assert_eq!(skew_points(&s), "97.1 points (node-1 99.6 % − node-5 2.5 %)");
    }
}
