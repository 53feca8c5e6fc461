//! The drain moves kept in the store (schema v9 `drain_moves`): every
//! operation's moved pods and their replacements, computed once after the
//! history changes instead of at every `timeline drains`.
//!
//! Matching the evictions of every rolling drain to their replacements reads
//! every binding and every piece of eviction evidence of the history (at 10M
//! events, 820,000 bindings and 500,000 pieces of evidence: most of a 3.7 s
//! timeline). [`moves_to_keep`] runs that matching once for the whole
//! store, and the store keeps one row per moved pod (and, schema v12, one
//! per node episode: `drain_episodes`), with the history it came from (the
//! highest obs_id, the schema version and [`RULES_VERSION`]):
//! `kdrift_store::Store::keep_drain_moves`, which `kdrift` runs after every
//! ingest (the analyses never write). The timeline then reads those rows when
//! they are fresh ([`kept_moves`]), and computes the moves from the history
//! as before when they are not (a store ingested by other means, or opened
//! read-only before any ingest kept them): the rows only make it faster,
//! never different — each operation's moves depend on the operation alone,
//! not on the window asked for (tests compare both paths).

use kdrift_store::Reader;
use kdrift_store::{DrainMovesToKeep, KeptEpisode, KeptMove, KeptReplacement};

use super::{MovedPod, NodeEpisode, Replacement};
use crate::AnalyzeError;

/// The version of the rules in `super::moves` and `super::episodes`:
/// raise it when a change to them changes which pods an episode moved or
/// which replacement they got, so that moves kept by an older kdrift are
/// computed again rather than read.
pub const RULES_VERSION: i64 = 1;

/// Whether the store's kept moves are those of its history as it is now.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn moves_are_fresh(store: &Reader) -> Result<bool, AnalyzeError> {
    Ok(store.drain_moves_fresh(RULES_VERSION)?)
}

/// Every operation's moves computed from the history, for the store to
/// keep (`kdrift_store::Store::keep_drain_moves`, which the CLI runs after every
/// ingest); `None` when the kept ones are already fresh. Reads only.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn moves_to_keep(store: &Reader) -> Result<Option<DrainMovesToKeep>, AnalyzeError> {
    if moves_are_fresh(store)? {
        return Ok(None);
    }
    let timeline = super::computed_moves(store)?;
    let mut kept = DrainMovesToKeep {
        rules_version: RULES_VERSION,
        operations: timeline.operations.len(),
        ..DrainMovesToKeep::default()
    };
    for op in &timeline.operations {
        for (episode, ep) in op.episodes.iter().enumerate() {
            kept.episodes.push(KeptEpisode {
                operation: op.number,
                episode,
                node: ep.node.clone(),
                started_at: ep.started_at,
                last_at: ep.last_at(),
                back_at: ep.back_at(),
            });
            kept.moves.extend(ep.evicted.iter().map(|m| KeptMove {
                operation: op.number,
                episode,
                from_node: ep.node.clone(),
                namespace: m.namespace.clone(),
                name: m.name.clone(),
                uid: m.uid.clone(),
                evicted_at: m.evicted_at,
                evidence: m.evidence.clone(),
                detail: m.detail.clone(),
                owner: m.owner.clone(),
                replacement: m.replacement.as_ref().map(|r| KeptReplacement {
                    name: r.name.clone(),
                    node: r.node.clone(),
                    bound_at: r.bound_at,
                }),
            }));
        }
    }
    Ok(Some(kept))
}

/// One kept row: the operation (1-based), the episode's position in it, and the moved pod.
pub(super) type KeptRow = (usize, usize, MovedPod);

/// Fills the `evicted` lists of the selected operations' episodes from the
/// kept moves when they are fresh (then returns true); leaves them alone
/// and returns false otherwise, and when they cannot be read (a store
/// whose kept tables were dropped: the caller computes the moves). `selected`: `(operation number from 0,
/// its episodes in the timeline's order)`.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(crate) fn kept_moves(
    store: &Reader,
    selected: &mut [(usize, &mut Vec<NodeEpisode>)],
) -> Result<bool, AnalyzeError> {
    let mut steps = crate::steps::Steps::start();
    // The kept rows are only a faster path: when they cannot be read (a
    // damaged store without the tables), the moves are computed instead.
    let fresh = moves_are_fresh(store);
    steps.done("kept moves: fresh");
    match fresh {
        Ok(true) => {}
        Ok(false) => return Ok(false),
        Err(e) => {
            tracing::debug!("the kept drain moves cannot be read ({e}); computing them from the history");
            return Ok(false);
        }
    }
    let (Some(first), Some(last)) = (selected.iter().map(|(i, _)| *i).min(), selected.iter().map(|(i, _)| *i).max())
    else {
        return Ok(true);
    };
    let (first, last) = (first as i64 + 1, last as i64 + 1);
    // A row the column reader refuses (a NULL where a value is required: a
    // store edited by hand) makes the kept rows unreadable, as a failed query does.
    let rows = match store.kept_drain_moves(first, last) {
        Ok(rows) => rows.into_iter().map(kept_row).collect::<Vec<_>>(),
        Err(e) => {
            tracing::debug!("the kept drain moves cannot be read ({e}); computing them from the history");
            return Ok(false);
        }
    };
    steps.done("kept moves: rows");
    let mut rows = rows.into_iter().peekable();
    // Both in operation order (rows: then episode, then the episode's order).
    let mut order: Vec<usize> = (0..selected.len()).collect();
    order.sort_by_key(|&k| selected[k].0);
    for k in order {
        let (i, episodes) = &mut selected[k];
        let number = *i + 1;
        while rows.peek().is_some_and(|(op, _, _)| *op < number) {
            rows.next();
        }
        while let Some((_, episode, m)) = rows.next_if(|(op, _, _)| *op == number) {
            // The same history gives the same episodes: a row for another
            // node (impossible while fresh) is dropped rather than misfiled.
            if let Some(ep) = episodes.get_mut(episode).filter(|ep| ep.node == m.from_node) {
                ep.evicted.push(m);
            }
        }
    }
    Ok(true)
}

/// How many kept moves the timeline's column reader reads (every kept row;
/// for the tests that check the fast path is the one taken: a row it
/// refused would make the timeline compute the moves instead, silently).
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails or a row is refused
/// (`StoreError::Column`).
#[doc(hidden)]
pub fn read_kept_moves(store: &Reader) -> Result<usize, AnalyzeError> {
    Ok(store.kept_drain_moves(i64::MIN, i64::MAX)?.len())
}

/// A kept row as the timeline's `(operation, episode, moved pod)`.
pub(super) fn kept_row(m: KeptMove) -> KeptRow {
    let replacement = m.replacement.map(|r| Replacement {
        namespace: m.namespace.clone(),
        name: r.name,
        node: r.node,
        bound_at: r.bound_at,
    });
    let moved = MovedPod {
        from_node: m.from_node,
        namespace: m.namespace,
        name: m.name,
        uid: m.uid,
        evicted_at: m.evicted_at,
        evidence: m.evidence,
        detail: m.detail,
        owner: m.owner,
        replacement,
    };
    (m.operation, m.episode, moved)
}
