//! Per-node episodes from node signals: a pure state machine over one node's
//! signals in time order.
//!
//! Rules (documented in docs/analyses.md, "Drain timeline"):
//! - an episode opens at a cordon (`spec.unschedulable`, `NodeNotSchedulable`,
//!   AKS `Drain`), at the Ready condition leaving True (`NodeNotReady`), at
//!   the node controller deleting the node's pods (`DeletingAllPods`), or at a
//!   reboot (`Rebooted`, a new boot id);
//! - it closes when the node is both schedulable and Ready again (at the
//!   uncordon or the Ready that comes last); a reboot seen while the node is
//!   schedulable and Ready is an episode of one instant;
//! - a cordon seen while cordoned, a NotReady while NotReady, an uncordon
//!   while schedulable, a Ready while Ready change nothing (an object change
//!   and its event are the same step, seconds apart); reboots less than a
//!   minute apart are one reboot;
//! - a NotReady event more than 30 minutes after the last signal of an
//!   episode that only waits for Ready (not cordoned) means the node
//!   recovered unseen in between (`NodeNotReady` is written on a transition):
//!   the old episode ends with [`EpisodeEnd::RecoveryUnseen`], a new one opens;
//! - an event within 2 seconds of an object change of the same kind is
//!   that change (core/v1 event times are whole seconds): the object's time
//!   is kept;
//! - `Starting`, `RegisteredNode` and `RemovingNode` are kept as evidence of
//!   an open episode and open none;
//! - an episode still open after the last signal is [`EpisodeEnd::Open`];
//! - a node unschedulable when first seen, with no time for it (its first
//!   stored version's cordon, [`FIRST_SEEN`]: an old cluster's
//!   control-plane node), was cordoned before the history starts: that is
//!   no drain, and no episode opens until it is uncordoned (its NotReady
//!   spans are outages as on any node).

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::MovedPod;
use crate::history::{NodeSignal, SignalKind};

/// How an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EpisodeEnd {
    /// Schedulable and Ready again at `ended_at`.
    Closed,
    /// Still cordoned or NotReady at the last signal the store has.
    Open,
    /// A later NotReady shows the node recovered, but no signal says when.
    RecoveryUnseen,
}

/// What a band of the timeline shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BandKind {
    /// `spec.unschedulable` set.
    Cordoned,
    /// The Ready condition not True.
    NotReady,
}

/// A time span in one state (for Gantt charts).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Band {
    /// The state.
    pub kind: BandKind,
    /// From (UTC).
    pub from: DateTime<Utc>,
    /// To (UTC); `None` while it lasts past the last signal (or ends unseen).
    pub to: Option<DateTime<Utc>>,
}

/// One node's drain or outage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeEpisode {
    /// Node name.
    pub node: String,
    /// The first signal (cordon, NotReady, DeletingAllPods or reboot), UTC.
    pub started_at: DateTime<Utc>,
    /// When the node was schedulable and Ready again; `None` unless [`EpisodeEnd::Closed`].
    pub ended_at: Option<DateTime<Utc>>,
    /// How it ended.
    pub end: EpisodeEnd,
    /// First cordon.
    pub cordoned_at: Option<DateTime<Utc>>,
    /// Last uncordon.
    pub uncordoned_at: Option<DateTime<Utc>>,
    /// First time the Ready condition left True.
    pub not_ready_at: Option<DateTime<Utc>>,
    /// Last time it became True again.
    pub ready_at: Option<DateTime<Utc>>,
    /// Reboots (a minute apart at least).
    pub reboots: Vec<DateTime<Utc>>,
    /// When the node controller deleted the node's pods (`DeletingAllPods`).
    pub node_controller_deleted_pods: Vec<DateTime<Utc>>,
    /// Cordoned and NotReady spans.
    pub bands: Vec<Band>,
    /// Pods evicted or stopped on the node during the episode.
    pub evicted: Vec<MovedPod>,
    /// Every signal of the episode, in time order.
    pub signals: Vec<NodeSignal>,
    /// The start is estimated (a dump's first Node version).
    pub estimated: bool,
}

impl NodeEpisode {
    fn open(node: &str, s: &NodeSignal) -> NodeEpisode {
        NodeEpisode {
            node: node.to_string(),
            started_at: s.at,
            ended_at: None,
            end: EpisodeEnd::Open,
            cordoned_at: None,
            uncordoned_at: None,
            not_ready_at: None,
            ready_at: None,
            reboots: Vec::new(),
            node_controller_deleted_pods: Vec::new(),
            bands: Vec::new(),
            evicted: Vec::new(),
            signals: Vec::new(),
            estimated: s.estimated,
        }
    }

    /// Whether the node was cordoned (a drain, not only an outage).
    pub fn cordoned(&self) -> bool {
        self.cordoned_at.is_some()
    }

    /// When the node came back: Ready after being NotReady, else the
    /// uncordon; `None` while it has not.
    pub fn back_at(&self) -> Option<DateTime<Utc>> {
        self.ready_at.or(self.uncordoned_at).or(self.ended_at)
    }

    /// The last instant the episode covers: its end, else its last signal.
    pub fn last_at(&self) -> DateTime<Utc> {
        self.ended_at.or_else(|| self.signals.last().map(|s| s.at)).unwrap_or(self.started_at)
    }

    fn close_band(&mut self, kind: BandKind, at: DateTime<Utc>) {
        if let Some(b) = self.bands.iter_mut().rev().find(|b| b.kind == kind && b.to.is_none()) {
            b.to = Some(at);
        }
    }
}

/// A NotReady this long after the last signal of an episode waiting only for
/// Ready starts a new episode.
pub const SPLIT_AFTER: Duration = Duration::minutes(30);
/// Reboots closer than this are one.
const SAME_REBOOT: Duration = Duration::seconds(60);

/// The detail of a cordon from a node's first stored version with no time
/// of its own (query `node_signals`): cordoned before the history starts.
pub const FIRST_SEEN: &str = "spec.unschedulable: true when first seen";

/// Whether `s` is a cordon from the node's first version ([`FIRST_SEEN`]).
pub fn first_seen_cordon(s: &NodeSignal) -> bool {
    s.kind == SignalKind::Cordon && s.source == "object" && s.detail == FIRST_SEEN
}

/// The nodes cordoned before the history starts (unschedulable when first
/// seen, no earlier cordon or uncordon signal), with the time first seen.
pub fn cordoned_before_history(signals: &[NodeSignal]) -> Vec<(String, DateTime<Utc>)> {
    let mut seen: std::collections::BTreeMap<&str, Option<DateTime<Utc>>> = std::collections::BTreeMap::new();
    for s in signals.iter().filter(|s| matches!(s.kind, SignalKind::Cordon | SignalKind::Uncordon | SignalKind::Drain))
    {
        seen.entry(s.node.as_str()).or_insert_with(|| first_seen_cordon(s).then_some(s.at));
    }
    seen.into_iter().filter_map(|(n, at)| Some((n.to_string(), at?))).collect()
}

/// An event this close to an object change of the same kind is that change.
const SAME_CHANGE: Duration = Duration::seconds(2);

/// The episodes of one node from its signals (sorted by time; signals of
/// other nodes are ignored).
pub fn episodes(node: &str, signals: &[NodeSignal]) -> Vec<NodeEpisode> {
    let mine: Vec<&NodeSignal> = signals.iter().filter(|s| s.node == node).collect();
    let precise = |s: &NodeSignal| {
        s.source != "event"
            || !mine.iter().any(|o| o.source == "object" && o.kind == s.kind && (o.at - s.at).abs() < SAME_CHANGE)
    };
    let mut out = Vec::new();
    let mut cur: Option<NodeEpisode> = None;
    let (mut cordoned, mut not_ready) = (false, false);
    // Cordoned before the history starts: no drain until an uncordon.
    let mut cordoned_before = false;
    for s in mine.iter().copied().filter(|s| precise(s)) {
        if first_seen_cordon(s) {
            cordoned_before |= !cordoned;
            continue;
        }
        if cordoned_before && matches!(s.kind, SignalKind::Cordon | SignalKind::Drain | SignalKind::Uncordon) {
            cordoned_before = s.kind != SignalKind::Uncordon;
            continue;
        }
        if let (Some(ep), SignalKind::NotReady, "event") = (&mut cur, s.kind, s.source.as_str()) {
            if not_ready && !cordoned && s.at - ep.last_at() > SPLIT_AFTER {
                ep.end = EpisodeEnd::RecoveryUnseen;
                out.extend(cur.take());
                not_ready = false;
            }
        }
        let opens = matches!(
            s.kind,
            SignalKind::Cordon
                | SignalKind::Drain
                | SignalKind::NotReady
                | SignalKind::DeletingPods
                | SignalKind::Rebooted
        );
        let changes = match s.kind {
            SignalKind::Cordon | SignalKind::Drain => !cordoned,
            SignalKind::Uncordon => cordoned,
            SignalKind::NotReady => !not_ready,
            SignalKind::Ready => not_ready,
            _ => true,
        };
        if cur.is_none() {
            if !(opens && changes) {
                continue;
            }
            cur = Some(NodeEpisode::open(node, s));
        }
        let Some(ep) = cur.as_mut() else { continue };
        ep.signals.push(s.clone());
        match s.kind {
            SignalKind::Cordon | SignalKind::Drain if !cordoned => {
                cordoned = true;
                ep.cordoned_at.get_or_insert(s.at);
                ep.bands.push(Band { kind: BandKind::Cordoned, from: s.at, to: None });
            }
            SignalKind::Uncordon if cordoned => {
                cordoned = false;
                ep.uncordoned_at = Some(s.at);
                ep.close_band(BandKind::Cordoned, s.at);
            }
            SignalKind::NotReady if !not_ready => {
                not_ready = true;
                ep.not_ready_at.get_or_insert(s.at);
                ep.bands.push(Band { kind: BandKind::NotReady, from: s.at, to: None });
            }
            SignalKind::Ready if not_ready => {
                not_ready = false;
                ep.ready_at = Some(s.at);
                ep.close_band(BandKind::NotReady, s.at);
            }
            SignalKind::Rebooted if ep.reboots.last().is_none_or(|r| s.at - *r >= SAME_REBOOT) => {
                ep.reboots.push(s.at);
            }
            SignalKind::DeletingPods => ep.node_controller_deleted_pods.push(s.at),
            _ => {}
        }
        let settles = matches!(s.kind, SignalKind::Uncordon | SignalKind::Ready | SignalKind::Rebooted);
        if settles && !cordoned && !not_ready {
            if let Some(mut ep) = cur.take() {
                ep.ended_at = Some(s.at);
                ep.end = EpisodeEnd::Closed;
                out.push(ep);
            }
        }
    }
    out.extend(cur);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
    }

    fn sig(at: &str, kind: SignalKind, source: &str) -> NodeSignal {
        NodeSignal {
            node: "n".into(),
            at: t(at),
            kind,
            source: source.into(),
            reason: String::new(),
            detail: String::new(),
            estimated: false,
        }
    }

    #[test]
    fn drain_with_reboot_is_one_episode_from_cordon_to_uncordon() {
        use SignalKind as K;
        let s = vec![
            sig("2026-11-28T02:00:00Z", K::Cordon, "object"),
            sig("2026-11-28T02:00:10Z", K::Cordon, "event"),
            sig("2026-11-28T02:01:05Z", K::NotReady, "event"),
            sig("2026-11-28T02:02:00Z", K::NotReady, "event"),
            sig("2026-11-28T02:02:00Z", K::Rebooted, "event"),
            sig("2026-11-28T02:02:00.7Z", K::Rebooted, "object"),
            sig("2026-11-28T02:02:20Z", K::Ready, "event"),
            sig("2026-11-28T02:02:45Z", K::Uncordon, "object"),
            sig("2026-11-28T02:02:55Z", K::Uncordon, "event"),
        ];
        let e = episodes("n", &s);
        assert_eq!(e.len(), 1);
        let e = &e[0];
        assert_eq!(
            (e.started_at, e.ended_at, e.end),
            (t("2026-11-28T02:00:00Z"), Some(t("2026-11-28T02:02:45Z")), EpisodeEnd::Closed)
        );
        assert_eq!(e.reboots, vec![t("2026-11-28T02:02:00.7Z")], "the object's time, not the event's whole second");
        assert_eq!(e.ready_at, Some(t("2026-11-28T02:02:20Z")));
        assert_eq!(e.bands.len(), 2);
        assert!(e.bands.iter().all(|b| b.to.is_some()));
    }

    #[test]
    fn outage_split_when_not_ready_repeats_hours_later() {
        use SignalKind as K;
        let s = vec![
            sig("2017-11-02T09:18:19Z", K::DeletingPods, "event"),
            sig("2017-11-02T10:31:51Z", K::NotReady, "event"),
            sig("2017-11-03T03:17:27Z", K::NotReady, "event"),
            sig("2017-11-03T03:21:47Z", K::DeletingPods, "event"),
        ];
        let e = episodes("n", &s);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].end, EpisodeEnd::RecoveryUnseen);
        assert_eq!(e[1].not_ready_at, Some(t("2017-11-03T03:17:27Z")));
        assert_eq!(e[1].node_controller_deleted_pods, vec![t("2017-11-03T03:21:47Z")]);
        assert_eq!(e[1].end, EpisodeEnd::Open);
    }

    #[test]
    fn ready_and_starting_alone_open_nothing() {
        use SignalKind as K;
        let s = vec![
            sig("2021-06-01T00:00:00Z", K::Registered, "event"),
            sig("2021-06-01T00:00:01Z", K::Starting, "event"),
            sig("2021-06-01T00:00:02Z", K::Ready, "event"),
            sig("2021-06-01T00:00:03Z", K::Uncordon, "event"),
        ];
        assert!(episodes("n", &s).is_empty());
    }

    #[test]
    fn a_node_unschedulable_when_first_seen_is_no_drain_and_its_outages_still_are() {
        // Issue 33, item 5: an old cluster's control-plane node, first seen
        // with spec.unschedulable and no taint time, opened a drain at its
        // first observation that never ended.
        use SignalKind as K;
        let mut first = sig("2017-11-02T09:00:00Z", K::Cordon, "object");
        first.detail = FIRST_SEEN.into();
        first.estimated = true;
        let s = vec![
            first.clone(),
            sig("2017-11-02T09:00:01Z", K::Cordon, "event"),
            sig("2017-11-02T10:00:00Z", K::NotReady, "event"),
            sig("2017-11-02T10:05:00Z", K::Ready, "event"),
        ];
        let e = episodes("n", &s);
        let got: Vec<_> = e.iter().map(|e| (e.started_at, e.ended_at, e.cordoned(), e.end)).collect();
        assert_eq!(
            got,
            [(t("2017-11-02T10:00:00Z"), Some(t("2017-11-02T10:05:00Z")), false, EpisodeEnd::Closed)],
            "only the outage, closed at Ready though the node stays cordoned"
        );
        assert_eq!(cordoned_before_history(&s), [("n".to_string(), t("2017-11-02T09:00:00Z"))]);
        // Uncordoned, then cordoned again: that second cordon is a drain.
        let s = vec![
            first,
            sig("2017-11-02T11:00:00Z", K::Uncordon, "object"),
            sig("2017-11-02T12:00:00Z", K::Cordon, "object"),
            sig("2017-11-02T12:10:00Z", K::Uncordon, "object"),
        ];
        let e = episodes("n", &s);
        let got: Vec<_> = e.iter().map(|e| (e.started_at, e.ended_at, e.cordoned())).collect();
        assert_eq!(got, [(t("2017-11-02T12:00:00Z"), Some(t("2017-11-02T12:10:00Z")), true)]);
        // A cordon event before the first version: a drain with a known start.
        let mut late = sig("2017-11-02T09:30:00Z", K::Cordon, "object");
        late.detail = FIRST_SEEN.into();
        let s = vec![sig("2017-11-02T09:00:00Z", K::Cordon, "event"), late];
        let e = episodes("n", &s);
        assert_eq!(e.iter().map(|e| e.cordoned_at).collect::<Vec<_>>(), [Some(t("2017-11-02T09:00:00Z"))]);
        assert!(cordoned_before_history(&s).is_empty());
    }

    #[test]
    fn reboot_alone_is_an_instant() {
        let s = vec![sig("2021-06-01T00:00:00Z", SignalKind::Rebooted, "event")];
        let e = episodes("n", &s);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].ended_at, Some(t("2021-06-01T00:00:00Z")));
    }
}
