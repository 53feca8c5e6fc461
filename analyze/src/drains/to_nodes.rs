//! What sent pods to a few nodes, as `why-pending` needs it to say why
//! those nodes are full: the drain operations up to an instant, each with
//! the episodes of those nodes and the moves whose replacement was bound to
//! one of them, and every binding to the nodes.
//!
//! With the moves kept and fresh ([`super::kept`], schema v12: the episodes
//! too), this reads the kept operations' spans (`drain_operations_kept`),
//! the nodes' kept episodes (`drain_episodes_on_nodes`), the moves landed
//! on each node (`drain_moves_to_node`) and each node's bindings
//! (`bindings_to_node`): a few hundred rows, where the timeline groups
//! every node signal of the history (at 10M events 55,000 signals, ~170
//! ms). Otherwise the timeline is computed from the history for the nodes
//! ([`super::focus`]) and cut to the same shape; tests compare both.

use chrono::{DateTime, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde_json::Value;

use super::kept::{self, KeptRow};
use super::{MovedPod, Moves, Operation};
use crate::history::{self, Placement};
use crate::AnalyzeError;

/// [`drain_moves_to_nodes`]'s answer.
#[derive(Debug, Clone, PartialEq)]
pub struct MovesToNodes {
    /// Every operation that started at or before the instant, oldest first,
    /// numbered as in the whole store's timeline.
    pub operations: Vec<OperationToNodes>,
    /// Every binding to the nodes up to the instant, oldest first.
    pub placed: Vec<Placement>,
}

/// One drain operation, cut to what concerns some nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct OperationToNodes {
    /// 1-based, in time order over the whole store ([`Operation::number`]).
    pub number: usize,
    /// The first episode's start, UTC ([`Operation::started_at`]).
    pub started_at: DateTime<Utc>,
    /// The last episode's end, else its last signal, UTC ([`Operation::last_at`]).
    pub last_at: DateTime<Utc>,
    /// The episodes of the nodes, in the operation's order.
    pub episodes: Vec<EpisodeOnNode>,
    /// The moved pods whose replacement was bound to one of the nodes, in
    /// the operation's order (episode, then eviction).
    pub moves: Vec<MovedPod>,
}

impl OperationToNodes {
    /// Each time `node` came back in this operation, oldest first
    /// ([`super::NodeEpisode::back_at`] of each of its episodes here: a node
    /// cordoned twice in one operation comes back twice); empty when it has
    /// no episode here or is not back.
    pub fn back_ats(&self, node: &str) -> Vec<DateTime<Utc>> {
        let mut back: Vec<DateTime<Utc>> =
            self.episodes.iter().filter(|e| e.node == node).filter_map(|e| e.back_at).collect();
        back.sort();
        back
    }

    /// `op` cut to `nodes`: their episodes, and the moves landed on them.
    fn of(op: Operation, nodes: &[&str]) -> OperationToNodes {
        let last_at = op.last_at();
        let on = |node: &str| nodes.contains(&node);
        let episodes = op
            .episodes
            .iter()
            .filter(|e| on(&e.node))
            .map(|e| EpisodeOnNode { node: e.node.clone(), back_at: e.back_at() })
            .collect();
        let moves = op
            .episodes
            .into_iter()
            .flat_map(|e| e.evicted)
            .filter(|m| m.replacement.as_ref().is_some_and(|r| on(&r.node)))
            .collect();
        OperationToNodes { number: op.number, started_at: op.started_at, last_at, episodes, moves }
    }
}

/// A node's episode in an operation, as far as why-pending needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpisodeOnNode {
    /// The node.
    pub node: String,
    /// When it came back (UTC; [`super::NodeEpisode::back_at`]); `None` while not back.
    pub back_at: Option<DateTime<Utc>>,
}

/// What sent pods to `nodes` up to `until` (why some nodes are full):
/// every operation that started by then, with the episodes of `nodes` and
/// the moved pods whose replacement was bound to one of them (matched as
/// the whole history's timeline matches them), and every binding to
/// `nodes` up to `until`, oldest first. From the kept rows when fresh
/// ([`super::moves_to_keep`], kept by the store), else from the history (the moves of the owners
/// of the pods bound to `nodes`: at 10M events a few thousand rows where
/// the whole history is 820,000 bindings and 500,000 pieces of evidence).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn drain_moves_to_nodes(
    store: &Reader,
    until: DateTime<Utc>,
    nodes: &[&str],
) -> Result<MovesToNodes, AnalyzeError> {
    if let Some(kept) = from_kept(store, until, nodes)? {
        return Ok(kept);
    }
    let (timeline, mut placed) =
        super::timeline(store, None, Some(until), false, Some(until), Some(nodes), Moves::FromHistory)?;
    placed.retain(|p| p.bound_at <= until && nodes.contains(&p.node.as_str()));
    let operations = timeline.operations.into_iter().map(|op| OperationToNodes::of(op, nodes)).collect();
    Ok(MovesToNodes { operations, placed })
}

/// The kept answer, or `None` when the kept rows are stale or cannot be
/// read (the caller computes it from the history).
fn from_kept(store: &Reader, until: DateTime<Utc>, nodes: &[&str]) -> Result<Option<MovesToNodes>, AnalyzeError> {
    let mut steps = crate::steps::Steps::start();
    let fresh = kept::moves_are_fresh(store);
    steps.done("kept moves: fresh");
    match fresh {
        Ok(true) => {}
        Ok(false) => {
            tracing::debug!("drain moves: matched from the history (no fresh kept rows)");
            return Ok(None);
        }
        Err(e) => {
            tracing::debug!("the kept drain moves cannot be read ({e}); computing them from the history");
            return Ok(None);
        }
    }
    let nodes_json = Value::from(nodes.to_vec()).to_string();
    let spans = store.query_map(&sql::DRAIN_OPERATIONS_KEPT, [until.timestamp_micros()], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, DateTime<Utc>>(1)?, r.get::<_, DateTime<Utc>>(2)?))
    })?;
    let last = spans.last().map_or(0, |(n, _, _)| *n);
    let episodes = store.query_map(&sql::DRAIN_EPISODES_ON_NODES, kdrift_store::params![last, nodes_json], |r| {
        Ok((r.get::<_, i64>(0)?, EpisodeOnNode { node: r.get(2)?, back_at: r.get(3)? }))
    })?;
    // One query per node (the kept rows lie in replacement-node order), then
    // in the kept order: operation, episode, eviction, pod.
    let mut moves: Vec<KeptRow> = Vec::new();
    for node in nodes {
        moves.extend(store.kept_drain_moves_to_node(last, node)?.into_iter().map(kept::kept_row));
    }
    moves.sort_by(|(a_op, a_ep, a), (b_op, b_ep, b)| {
        (a_op, a_ep, a.evicted_at, &a.namespace, &a.name).cmp(&(b_op, b_ep, b.evicted_at, &b.namespace, &b.name))
    });
    moves.dedup_by(|a, b| (a.0, a.1, &a.2) == (b.0, b.1, &b.2));
    steps.done("kept operations, episodes, moves");
    let mut operations: Vec<OperationToNodes> = spans
        .into_iter()
        .map(|(number, started_at, last_at)| OperationToNodes {
            number: usize::try_from(number).unwrap_or(0),
            started_at,
            last_at,
            episodes: Vec::new(),
            moves: Vec::new(),
        })
        .collect();
    // Numbered 1, 2, … in order: operation n is at n − 1.
    fn at(operations: &mut [OperationToNodes], n: usize) -> Option<&mut OperationToNodes> {
        n.checked_sub(1).and_then(|i| operations.get_mut(i)).filter(|op| op.number == n)
    }
    for (n, episode) in episodes {
        if let Some(op) = at(&mut operations, usize::try_from(n).unwrap_or(0)) {
            op.episodes.push(episode);
        }
    }
    for (n, _, m) in moves {
        if let Some(op) = at(&mut operations, n) {
            op.moves.push(m);
        }
    }
    let placed = bindings_to_nodes(store, until, nodes)?;
    steps.done("bindings to nodes");
    Ok(Some(MovesToNodes { operations, placed }))
}

/// Every binding to `nodes` up to `until`, oldest first (as
/// `pod_placements` orders them): one `bindings_to_node` per node, which
/// reads that node's row groups of `pod_bindings` only.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
fn bindings_to_nodes(store: &Reader, until: DateTime<Utc>, nodes: &[&str]) -> Result<Vec<Placement>, AnalyzeError> {
    let mut placed = Vec::new();
    for node in nodes {
        placed.extend(store.query_map(
            &sql::BINDINGS_TO_NODE,
            kdrift_store::params![node, until.timestamp_micros()],
            history::placement_row,
        )?);
    }
    placed.sort_by(|a, b| {
        (a.bound_at, &a.namespace, &a.name, &a.uid, &a.node).cmp(&(b.bound_at, &b.namespace, &b.name, &b.uid, &b.node))
    });
    placed.dedup();
    Ok(placed)
}
