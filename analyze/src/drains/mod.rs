//! `kdrift timeline drains`: drains and outages reconstructed from node
//! signals and pod evidence, grouped into rolling operations.
//!
//! Per node, [`episodes`] turns cordon / readiness / reboot signals into
//! episodes; [`moves`] attaches the pods each episode evicted and finds
//! where their replacements landed. Episodes are then grouped into
//! operations: sorted by start, an episode joins the current operation when
//! it starts at most [`GROUP_GAP`] (10 minutes) after the latest end (or
//! last signal) of the operation's episodes — a rolling drain cordons the
//! next node minutes after the previous one is back. Per operation: the
//! nodes in the order they were disrupted, the pods moved and where they
//! landed, and every node's requested % of allocatable one second before
//! the first episode starts and one minute after the last one ends, with the
//! skew (max − min of cpu requested %) it left.

pub mod causes;
pub mod episodes;
mod focus;
pub mod kept;
pub mod moves;
mod none_found;
pub mod to_nodes;
mod together;

use chrono::{DateTime, Duration, Utc};
use kdrift_store::Reader;
use serde::Serialize;

pub use episodes::{Band, BandKind, EpisodeEnd, NodeEpisode};
pub use kept::{moves_are_fresh, moves_to_keep, read_kept_moves};
pub use moves::{MovedPod, Replacement};
pub use to_nodes::{drain_moves_to_nodes, EpisodeOnNode, MovesToNodes, OperationToNodes};
pub use together::{cordoned_together, CordonedTogether};

use crate::history::{self, NodeSignal, Placement};
use crate::usage::{requested_at_instants, RequestedAt};
use crate::AnalyzeError;

/// Episodes closer than this belong to one operation.
pub const GROUP_GAP: Duration = Duration::minutes(10);
/// Cordons of several nodes this close to the first are one simultaneous
/// cordon, not a rolling drain in an order ([`OperationKind::SimultaneousCordon`]).
pub const SIMULTANEOUS: Duration = Duration::seconds(30);
/// "After" is measured this long after an operation's last episode ends.
pub const SETTLE: Duration = Duration::minutes(1);

/// What kind of operation a group of episodes is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OperationKind {
    /// Two or more nodes, every one cordoned, one after another.
    RollingDrain,
    /// Two or more nodes, every one cordoned within `SIMULTANEOUS` of the
    /// first (a node-pool upgrade, a script cordoning them all): no node was
    /// drained before another, and every pod they held had to go to the
    /// nodes left.
    SimultaneousCordon,
    /// One node, cordoned.
    Drain,
    /// No node cordoned: NotReady, node-controller evictions, reboots.
    Outage,
    /// Some nodes cordoned, some not.
    Mixed,
}

/// Evicted pods that landed on one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Landing {
    /// The node.
    pub node: String,
    /// Replacements bound to it.
    pub pods: usize,
    /// Of them, evicted from it again later in the same operation (a
    /// rolling drain that drains this node after: they did not stay).
    pub moved_again: usize,
}

/// One rolling drain (or single drain, or outage).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Operation {
    /// 1-based, in time order over the whole store (stable under --since/--until).
    pub number: usize,
    /// Its kind.
    pub kind: OperationKind,
    /// The first episode's start (UTC).
    pub started_at: DateTime<Utc>,
    /// The last episode's end; `None` when some episode is still open.
    pub ended_at: Option<DateTime<Utc>>,
    /// Node names in the order they were disrupted.
    pub order: Vec<String>,
    /// Per node, in that order.
    pub episodes: Vec<NodeEpisode>,
    /// Nodes cordoned together within `SIMULTANEOUS` (two or more), with
    /// the nodes left schedulable: no order among them
    /// (`cordoned_together`). Empty when every cordon came apart.
    pub cordoned_together: Vec<CordonedTogether>,
    /// Pods evicted or stopped, over all episodes.
    pub pods_moved: usize,
    /// Replacements per destination node, most first (then by name).
    pub landed: Vec<Landing>,
    /// Moved pods without a replacement in the store.
    pub not_replaced: usize,
    /// Every node one second before the start.
    pub before: RequestedAt,
    /// Every node one minute after the end (or after the last signal while open).
    pub after: RequestedAt,
    /// cpu skew after (max − min of cpu requested %, percentage points);
    /// the skews' JSON has two decimals ([`kdrift_rebalance::hundredths`]).
    /// `None` (`null`) when fewer than two nodes offer the resource (no
    /// Node object stored: unknown, never 0.0, which reads as balanced;
    /// docs/cli.md).
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths_opt")]
    pub cpu_skew_after: Option<f64>,
    /// cpu skew before (`None` as `cpu_skew_after`).
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths_opt")]
    pub cpu_skew_before: Option<f64>,
    /// memory skew after (`None` as `cpu_skew_after`).
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths_opt")]
    pub memory_skew_after: Option<f64>,
}

impl Operation {
    /// The last instant the operation covers.
    pub fn last_at(&self) -> DateTime<Utc> {
        self.episodes.iter().map(NodeEpisode::last_at).max().unwrap_or(self.started_at)
    }

    /// The episode of one node.
    pub fn episode(&self, node: &str) -> Option<&NodeEpisode> {
        self.episodes.iter().find(|e| e.node == node)
    }
}

/// The drain timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrainTimeline {
    /// `--since`, when given.
    pub since: Option<DateTime<Utc>>,
    /// `--until`, when given.
    pub until: Option<DateTime<Utc>>,
    /// The grouping gap, seconds.
    pub group_gap_seconds: i64,
    /// Operations overlapping the window, oldest first.
    pub operations: Vec<Operation>,
    /// When there is none: why, and what to ingest (`None` with operations,
    /// and from the internal readers [`drain_moves`] and its kin).
    pub why_none: Option<String>,
    /// Caveats.
    pub notes: Vec<String>,
    /// The evictions other components asked for in the window (descheduler,
    /// kdrift, Karpenter, cluster-autoscaler, node controller; cordon or
    /// not), one run per cause, oldest first; only from `timeline drains`
    /// itself (omitted from JSON when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evictions: Vec<causes::EvictionRun>,
}

/// Groups episodes (any order) into operations' episode lists. See the module docs.
pub fn group(mut episodes: Vec<NodeEpisode>) -> Vec<Vec<NodeEpisode>> {
    episodes.sort_by(|a, b| (a.started_at, &a.node).cmp(&(b.started_at, &b.node)));
    let mut out: Vec<Vec<NodeEpisode>> = Vec::new();
    let mut reach: Option<DateTime<Utc>> = None;
    for e in episodes {
        let last = e.last_at();
        match (out.last_mut(), reach) {
            (Some(group), Some(r)) if e.started_at <= r + GROUP_GAP => {
                group.push(e);
                reach = Some(r.max(last));
            }
            _ => {
                out.push(vec![e]);
                reach = Some(last);
            }
        }
    }
    out
}

fn kind_of(episodes: &[NodeEpisode]) -> OperationKind {
    let cordoned = episodes.iter().filter(|e| e.cordoned()).count();
    match (cordoned, episodes.len()) {
        (0, _) => OperationKind::Outage,
        (c, n) if c == n && n >= 2 => {
            let cordons = episodes.iter().filter_map(|e| e.cordoned_at);
            let (first, last) = (cordons.clone().min(), cordons.max());
            match first.zip(last) {
                Some((first, last)) if last - first <= SIMULTANEOUS => OperationKind::SimultaneousCordon,
                _ => OperationKind::RollingDrain,
            }
        }
        (c, n) if c == n => OperationKind::Drain,
        _ => OperationKind::Mixed,
    }
}

/// Every node's episodes from the signals (any order).
pub fn all_episodes(signals: &[NodeSignal]) -> Vec<NodeEpisode> {
    // One pass to split the signals by node (time order kept), not one scan per node.
    let mut by_node: std::collections::BTreeMap<&str, Vec<NodeSignal>> = std::collections::BTreeMap::new();
    for s in signals {
        by_node.entry(s.node.as_str()).or_default().push(s.clone());
    }
    by_node.into_iter().flat_map(|(n, mine)| episodes::episodes(n, &mine)).collect()
}

/// Reconstructs the operations overlapping `[since, until]` (each bound
/// optional). Operations are numbered over the whole store, so "drain #2"
/// names the same operation whatever the window.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn drain_timeline(
    store: &Reader,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
) -> Result<DrainTimeline, AnalyzeError> {
    Ok(timeline(store, since, until, true, None, None, Moves::KeptWhenFresh)?.0)
}

/// [`drain_timeline`] without the requested amounts before and after each
/// operation (`before`, `after` and the skews stay empty): for callers that
/// only follow the evicted pods (why a node is full), and skip the two
/// whole-cluster loads per operation.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn drain_moves(
    store: &Reader,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
) -> Result<DrainTimeline, AnalyzeError> {
    Ok(timeline(store, since, until, false, None, None, Moves::KeptWhenFresh)?.0)
}

/// [`drain_moves`] up to `until`, and every binding of the history up to
/// `until` ([`history::placements`] from the beginning, oldest first) from
/// the same read: `pod_placements` is a whole-history query (about 1 s at
/// 1M events), so a caller that needs both (why a node is full) reads it
/// once instead of twice.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn drain_moves_and_placements(
    store: &Reader,
    until: DateTime<Utc>,
) -> Result<(DrainTimeline, Vec<Placement>), AnalyzeError> {
    let (moves, mut placed) = timeline(store, None, Some(until), false, Some(until), None, Moves::KeptWhenFresh)?;
    placed.retain(|p| p.bound_at <= until);
    Ok((moves, placed))
}

/// Every operation of the store with its moves computed from the history
/// (never the kept ones): what [`moves_to_keep`] gives the store to keep.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(crate) fn computed_moves(store: &Reader) -> Result<DrainTimeline, AnalyzeError> {
    Ok(timeline(store, None, None, false, None, None, Moves::FromHistory)?.0)
}

/// Where a timeline takes its operations' moves from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Moves {
    /// The moves the store kept ([`moves_to_keep`]), when they are those of the history as
    /// it is now; else computed from the history.
    KeptWhenFresh,
    /// Computed from the history's bindings and eviction evidence.
    FromHistory,
}

/// Whether the moves of the `selected` operations come from the kept rows
/// (then read into their episodes: no evidence is read and no binding
/// looked up for them), which needs `source` to allow it and the kept rows
/// to be fresh. A focus comes with `Moves::FromHistory` only: `to_nodes`
/// reads the kept rows for some nodes itself.
fn kept_or_history(
    store: &Reader,
    source: Moves,
    focus: &Option<focus::Focus>,
    selected: &mut [Selected],
) -> Result<bool, AnalyzeError> {
    debug_assert!(focus.is_none() || source == Moves::FromHistory, "a focus matches its moves from the history");
    let from_kept = source == Moves::KeptWhenFresh && {
        let mut episodes: Vec<(usize, &mut Vec<NodeEpisode>)> =
            selected.iter_mut().map(|(i, episodes, _, _)| (*i, episodes)).collect();
        kept::kept_moves(store, &mut episodes)?
    };
    if source == Moves::KeptWhenFresh {
        tracing::debug!(
            "drain moves: {}",
            if from_kept { "read from the kept rows" } else { "matched from the history (no fresh kept rows)" }
        );
    }
    Ok(from_kept)
}

/// One operation in the window: its number (from 0), episodes, start and last signal.
type Selected = (usize, Vec<NodeEpisode>, DateTime<Utc>, DateTime<Utc>);

/// The eviction runs ([`causes::eviction_runs`]) in `[since, until]`, with
/// the bindings up to an hour after the last eviction for their replacements.
fn eviction_runs_in(
    store: &Reader,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
) -> Result<Vec<causes::EvictionRun>, AnalyzeError> {
    let (from, to) = (since.unwrap_or_else(history::beginning), until.unwrap_or_else(history::far_future));
    let found = causes::move_causes(store, from, to)?;
    let evictions = found.iter().filter(|c| c.cause != causes::Cause::Hpa);
    let (Some(first), Some(last)) = (evictions.clone().map(|c| c.at).min(), evictions.map(|c| c.at).max()) else {
        return Ok(Vec::new());
    };
    let placed = history::placements(store, first - Duration::seconds(5), last + Duration::hours(1))?;
    Ok(causes::eviction_runs(&found, &placed))
}

fn timeline(
    store: &Reader,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    with_requested: bool,
    placements_until: Option<DateTime<Utc>>,
    to_nodes: Option<&[&str]>,
    source: Moves,
) -> Result<(DrainTimeline, Vec<Placement>), AnalyzeError> {
    let mut steps = crate::steps::Steps::start();
    let signals = history::node_signals(store, history::beginning(), history::far_future())?;
    steps.done("timeline: node signals");
    // The operations in the window, numbered over the whole store.
    let mut spans: Vec<(DateTime<Utc>, DateTime<Utc>)> = Vec::new();
    let mut selected: Vec<Selected> = group(all_episodes(&signals))
        .into_iter()
        .enumerate()
        .filter_map(|(i, episodes)| {
            let start = episodes.iter().map(|e| e.started_at).min().unwrap_or_else(history::beginning);
            let last = episodes.iter().map(NodeEpisode::last_at).max().unwrap_or(start);
            spans.push((start, last));
            let outside = since.is_some_and(|s| last < s) || until.is_some_and(|u| start > u);
            (!outside).then_some((i, episodes, start, last))
        })
        .collect();
    // Only for `timeline drains` itself (the other readers follow moves).
    let why_none = match (selected.is_empty(), with_requested) {
        (true, true) => Some(none_found::why_none(store, since, until, &spans, &signals)?),
        _ => None,
    };
    // Each operation reads evictions from 5 min before it to 2 h after, and
    // placements from 30 days before that: the history is read once for all
    // of them, then cut per operation.
    let window = |start: DateTime<Utc>, last: DateTime<Utc>| (start - Duration::minutes(5), last + Duration::hours(2));
    let reach =
        selected.iter().map(|(_, _, start, last)| window(*start, *last)).reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
    // `placements_until`: the caller also wants every binding from the
    // beginning to that instant; the query costs the same whatever its
    // range, so one read serves both.
    let placed_range = match (reach, placements_until) {
        (Some((from, to)), None) => Some((from - Duration::days(30), to)),
        (Some((_, to)), Some(t)) => Some((history::beginning(), to.max(t))),
        (None, Some(t)) => Some((history::beginning(), t)),
        (None, None) => None,
    };
    // Only the owners whose moves can reach `to_nodes`, when given.
    let focus = match (to_nodes, placed_range) {
        (Some(nodes), Some((_, to))) => Some(focus::Focus::of_nodes(nodes, to)),
        _ => None,
    };
    steps.done("timeline: operations, focus");
    // The amounts before and after every operation: one read for all
    // instants, on a second connection while this one reads the moves (at
    // 10M events each takes ~0.5 s, mostly on one core; kdrift issue 6).
    let instants: Vec<DateTime<Utc>> =
        selected.iter().flat_map(|(_, _, start, last)| [*start - Duration::seconds(1), *last + SETTLE]).collect();
    let (from_kept, amounts) = if with_requested {
        let (from_kept, amounts) = crate::alongside::alongside(
            store,
            |reader| requested_at_instants(reader, &instants),
            || kept_or_history(store, source, &focus, &mut selected),
        )?;
        (from_kept?, amounts?)
    } else {
        let from_kept = kept_or_history(store, source, &focus, &mut selected)?;
        (from_kept, instants.iter().map(|t| RequestedAt::empty(*t)).collect())
    };
    let mut amounts = amounts.into_iter();
    steps.done("timeline: kept moves, requested amounts");
    let all_evidence = match (reach, &focus) {
        _ if from_kept => Vec::new(),
        (Some((from, to)), Some(f)) => f.evidence(store, from, to)?,
        (Some((from, to)), None) => {
            // Only the evidence an episode can take: its node, inside its range and
            // its operation's window (evidence naming no node: the whole reach).
            let ranges: Vec<(&str, DateTime<Utc>, DateTime<Utc>)> = selected
                .iter()
                .flat_map(|(_, episodes, start, last)| {
                    let (from, to) = window(*start, *last);
                    episodes.iter().filter_map(move |e| {
                        let (ep_from, ep_to) = moves::evidence_range(e);
                        let (a, b) = (ep_from.max(from), ep_to.map_or(to, |t| t.min(to)));
                        (a <= b).then_some((e.node.as_str(), a, b))
                    })
                })
                .collect();
            history::eviction_evidence_in(store, &ranges, from, to)?
        }
        (None, _) => Vec::new(),
    };
    let all_placements = match (placed_range, &focus) {
        _ if from_kept && placements_until.is_none() => Vec::new(),
        // With a focus the range starts at the beginning (`placements_until`).
        (Some((_, to)), Some(f)) => f.placements(store, to)?,
        (Some((from, to)), None) => history::placements(store, from, to)?,
        (None, _) => Vec::new(),
    };
    steps.done("timeline: evidence, placements");
    let mut operations = Vec::new();
    let mut notes = Vec::new();
    let before_history = episodes::cordoned_before_history(&signals);
    if !before_history.is_empty() {
        let shown: Vec<String> = before_history
            .iter()
            .take(5)
            .map(|(n, at)| format!("{n} (first seen {})", kdrift_store::instant_text(*at)))
            .collect();
        let more = before_history.len().saturating_sub(shown.len());
        notes.push(format!(
            "{}{} {} cordoned before the history starts (unschedulable when first seen): not {}",
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() },
            if before_history.len() == 1 { "was" } else { "were" },
            if before_history.len() == 1 { "a drain" } else { "drains" },
        ));
    }
    // Indexed once for every operation; each looks at its own window of it.
    let index = moves::PlacementIndex::new(if from_kept { &[][..] } else { &all_placements[..] });
    for (i, mut episodes, start, last) in selected {
        let (window_from, window_to) = window(start, last);
        let evidence = all_evidence.iter().filter(|e| e.at >= window_from && e.at <= window_to);
        let placements = index.window(window_from - Duration::days(30), window_to);
        if !from_kept {
            moves::attach_evictions(&mut episodes, evidence, placements);
            if let Some(f) = &focus {
                f.retain_owned(store, &mut episodes, placements)?;
            }
            let mut moved: Vec<&mut MovedPod> = episodes.iter_mut().flat_map(|e| e.evicted.iter_mut()).collect();
            moves::find_replacements(&mut moved, placements);
            if let Some(f) = &focus {
                f.retain_landed(&mut episodes);
            }
        }
        let open = episodes.iter().any(|e| e.end != EpisodeEnd::Closed);
        let ended_at = if open { None } else { episodes.iter().filter_map(|e| e.ended_at).max() };
        let before = amounts.next().unwrap_or_else(|| RequestedAt::empty(start - Duration::seconds(1)));
        let after = amounts.next().unwrap_or_else(|| RequestedAt::empty(last + SETTLE));
        let moved: Vec<&MovedPod> = episodes.iter().flat_map(|e| e.evicted.iter()).collect();
        // Counted per node in a map: a rolling drain of 500 nodes lands its
        // pods on hundreds of nodes (a search of the list per pod cost 2 s at 10M events).
        // A replacement moved again: the same pod name evicted from the node
        // it landed on, after it was bound there (a StatefulSet pod keeps its
        // name; other owners' replacements are evicted under their own).
        let evicted_from: std::collections::HashMap<(&str, &str, &str), DateTime<Utc>> = moved
            .iter()
            .map(|m| ((m.namespace.as_str(), m.name.as_str(), m.from_node.as_str()), m.evicted_at))
            .fold(std::collections::HashMap::new(), |mut map, (key, at)| {
                let latest = map.entry(key).or_insert(at);
                *latest = (*latest).max(at);
                map
            });
        let mut per_node: std::collections::HashMap<&str, (usize, usize)> = std::collections::HashMap::new();
        for r in moved.iter().filter_map(|m| m.replacement.as_ref()) {
            let again = evicted_from
                .get(&(r.namespace.as_str(), r.name.as_str(), r.node.as_str()))
                .is_some_and(|at| *at >= r.bound_at);
            let counts = per_node.entry(r.node.as_str()).or_default();
            counts.0 += 1;
            counts.1 += usize::from(again);
        }
        let mut landed: Vec<Landing> = per_node
            .into_iter()
            .map(|(node, (pods, moved_again))| Landing { node: node.to_string(), pods, moved_again })
            .collect();
        landed.sort_by(|a, b| b.pods.cmp(&a.pods).then_with(|| a.node.cmp(&b.node)));
        if episodes.iter().any(|e| e.estimated) {
            notes.push(format!(
                "operation #{}: a start is estimated from a dump's first Node version (taint or condition time)",
                i + 1
            ));
        }
        let known: Vec<&str> = before.nodes.iter().map(|n| n.node.as_str()).collect();
        let together = cordoned_together(&episodes, &known);
        operations.push(Operation {
            number: i + 1,
            cordoned_together: together,
            kind: kind_of(&episodes),
            started_at: start,
            ended_at,
            order: episodes.iter().map(|e| e.node.clone()).collect(),
            pods_moved: moved.len(),
            not_replaced: moved.iter().filter(|m| m.replacement.is_none()).count(),
            landed,
            cpu_skew_after: after.skew_of("cpu"),
            cpu_skew_before: before.skew_of("cpu"),
            memory_skew_after: after.skew_of("memory"),
            before,
            after,
            episodes,
        });
    }
    steps.done("timeline: operations built");
    let evictions = if with_requested { eviction_runs_in(store, since, until)? } else { Vec::new() };
    let timeline = DrainTimeline {
        since,
        until,
        group_gap_seconds: GROUP_GAP.num_seconds(),
        operations,
        why_none,
        notes,
        evictions,
    };
    Ok((timeline, all_placements))
}

#[cfg(test)]
pub(crate) mod simultaneous_tests {
    use chrono::{DateTime, Duration, Utc};

    use super::{all_episodes, group, kind_of, OperationKind};
    use crate::history::{NodeSignal, SignalKind};

    /// One node signal from an event (for the drains' unit tests).
    pub(crate) fn signal(node: &str, at: DateTime<Utc>, kind: SignalKind) -> NodeSignal {
        NodeSignal {
            node: node.into(),
            at,
            kind,
            source: "event".into(),
            reason: String::new(),
            detail: String::new(),
            estimated: false,
        }
    }

    /// Three nodes cordoned `gap` apart, each uncordoned 20 minutes after its cordon.
    fn kind_with_gap(gap: Duration) -> OperationKind {
        let t0 = DateTime::parse_from_rfc3339("2026-11-28T02:00:00Z").expect("t").with_timezone(&Utc);
        let mut signals = Vec::new();
        for (i, node) in ["pool-a", "pool-b", "pool-c"].iter().enumerate() {
            let at = t0 + gap * i as i32;
            signals.push(signal(node, at, SignalKind::Cordon));
            signals.push(signal(node, at + Duration::minutes(20), SignalKind::Uncordon));
        }
        let groups = group(all_episodes(&signals));
        assert_eq!(groups.len(), 1, "{groups:?}");
        kind_of(&groups[0])
    }

    #[test]
    fn nodes_cordoned_within_seconds_are_a_simultaneous_cordon_not_a_rolling_drain() {
        // A GKE node-pool upgrade cordons the pool's nodes within seconds.
        assert_eq!(kind_with_gap(Duration::seconds(4)), OperationKind::SimultaneousCordon);
        assert_eq!(kind_with_gap(Duration::minutes(5)), OperationKind::RollingDrain);
    }
}
