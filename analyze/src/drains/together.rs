//! Nodes cordoned together inside one operation: a rolling drain whose
//! operator cordoned several nodes within seconds (the demo's drain #2:
//! node-2, node-3 and node-4 at 02:03:04–08), or a node-pool upgrade. There
//! is no order among them, and every pod they held had only the nodes left
//! schedulable to go to — which is what sends a burst to one node.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::{NodeEpisode, SIMULTANEOUS};

/// Two or more nodes of one operation cordoned within `SIMULTANEOUS` of
/// the first of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CordonedTogether {
    /// The nodes, in cordon order.
    pub nodes: Vec<String>,
    /// The first of their cordons (UTC).
    pub first_at: DateTime<Utc>,
    /// The last of their cordons (UTC).
    pub last_at: DateTime<Utc>,
    /// The nodes schedulable right after the last of these cordons (not
    /// cordoned, not NotReady), in name order: where the pods they held
    /// could go. Among the nodes the operation knows (its episodes and the
    /// nodes of its "before" amounts).
    pub left: Vec<String>,
}

/// The groups of nodes cordoned together among `episodes`, oldest first.
/// `known_nodes`: every node known at the operation's start (may be empty:
/// then only the operation's own nodes count for [`CordonedTogether::left`]).
pub fn cordoned_together(episodes: &[NodeEpisode], known_nodes: &[&str]) -> Vec<CordonedTogether> {
    let mut cordons: Vec<(DateTime<Utc>, &str)> =
        episodes.iter().filter_map(|e| e.cordoned_at.map(|at| (at, e.node.as_str()))).collect();
    cordons.sort();
    let mut groups: Vec<Vec<(DateTime<Utc>, &str)>> = Vec::new();
    for c in cordons {
        match groups.last_mut() {
            Some(g) if c.0 - g[0].0 <= SIMULTANEOUS => g.push(c),
            _ => groups.push(vec![c]),
        }
    }
    let mut all: Vec<&str> = known_nodes.iter().copied().chain(episodes.iter().map(|e| e.node.as_str())).collect();
    all.sort_unstable();
    all.dedup();
    groups
        .into_iter()
        .filter(|g| g.len() >= 2)
        .map(|g| {
            let (first_at, last_at) = (g[0].0, g[g.len() - 1].0);
            let just_after = last_at + Duration::seconds(1);
            let left = all.iter().filter(|n| schedulable(episodes, n, just_after)).map(|n| n.to_string()).collect();
            CordonedTogether { nodes: g.into_iter().map(|(_, n)| n.to_string()).collect(), first_at, last_at, left }
        })
        .collect()
}

/// Whether `node` was schedulable at `at` as far as its episodes here say:
/// not inside a cordon (cordoned, not yet uncordoned) nor a NotReady span.
fn schedulable(episodes: &[NodeEpisode], node: &str, at: DateTime<Utc>) -> bool {
    let inside = |from: Option<DateTime<Utc>>, to: Option<DateTime<Utc>>| {
        from.is_some_and(|f| f <= at && to.is_none_or(|t| t > at))
    };
    !episodes.iter().filter(|e| e.node == node).any(|e| {
        inside(e.cordoned_at, e.uncordoned_at.or(e.ended_at)) || inside(e.not_ready_at, e.ready_at.or(e.ended_at))
    })
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Duration, Utc};

    use super::cordoned_together;
    use crate::drains::simultaneous_tests::signal;
    use crate::drains::{all_episodes, group};
    use crate::history::SignalKind;

    #[test]
    fn three_nodes_cordoned_within_seconds_inside_a_rolling_drain_are_named_with_the_nodes_left() {
        // The demo's drain #2: node-1 drained and back, then node-2, node-3,
        // node-4 cordoned 2 s apart, node-5 four minutes later.
        let t0 = DateTime::parse_from_rfc3339("2026-11-28T02:00:00Z").expect("t").with_timezone(&Utc);
        let mut signals = Vec::new();
        let mut cordon = |node: &str, at: DateTime<Utc>, back: Duration| {
            signals.push(signal(node, at, SignalKind::Cordon));
            signals.push(signal(node, at + back, SignalKind::Uncordon));
        };
        cordon("node-1", t0, Duration::seconds(164));
        for (i, node) in ["node-2", "node-3", "node-4"].iter().enumerate() {
            cordon(node, t0 + Duration::seconds(184 + 2 * i as i64), Duration::minutes(3));
        }
        cordon("node-5", t0 + Duration::seconds(446), Duration::minutes(3));
        let groups = group(all_episodes(&signals));
        assert_eq!(groups.len(), 1, "{groups:?}");
        let together = cordoned_together(&groups[0], &["node-1", "node-2", "node-3", "node-4", "node-5", "node-6"]);
        assert_eq!(together.len(), 1, "{together:?}");
        assert_eq!(together[0].nodes, ["node-2", "node-3", "node-4"]);
        assert_eq!(together[0].first_at, t0 + Duration::seconds(184));
        assert_eq!(together[0].last_at, t0 + Duration::seconds(188));
        // node-1 is back (uncordoned at +164 s); node-5 not yet cordoned; node-6 outside the operation.
        assert_eq!(together[0].left, ["node-1", "node-5", "node-6"]);
        // Cordons a minute apart are a rolling order, not a group.
        assert!(cordoned_together(&groups[0][..2], &[]).is_empty());
    }
}
