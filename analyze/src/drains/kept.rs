//! The drain moves kept in the store (schema v9 `drain_moves`): every
//! operation's moved pods and their replacements, computed once after the
//! history changes instead of at every `timeline drains`.
//!
//! Matching the evictions of every rolling drain to their replacements reads
//! every binding and every piece of eviction evidence of the history (at 10M
//! events, 820,000 bindings and 500,000 pieces of evidence: most of a 3.7 s
//! timeline). [`keep_moves`] runs that matching once for the whole store
//! and writes one row per moved pod (and, schema v12, one per node
//! episode: `drain_episodes`), with the history it came from (the
//! highest obs_id, the schema version and [`RULES_VERSION`]); `kdrift`
//! calls it after every ingest. The timeline then reads those rows when
//! they are fresh ([`kept_moves`]), and computes the moves from the history
//! as before when they are not (a store ingested by other means, or opened
//! read-only before any ingest kept them): the rows only make it faster,
//! never different — each operation's moves depend on the operation alone,
//! not on the window asked for (tests compare both paths).

use chrono::{DateTime, Utc};
use duckdb::types::{TimeUnit, Value};
use kdrift_store::{sql, SCHEMA_VERSION};
use kdrift_store::{Store, StoreError};

use super::{MovedPod, NodeEpisode, Replacement};
use crate::AnalyzeError;

/// The version of the rules in [`super::moves`] and [`super::episodes`]:
/// raise it when a change to them changes which pods an episode moved or
/// which replacement they got, so that moves kept by an older kdrift are
/// computed again rather than read.
pub const RULES_VERSION: i64 = 1;

/// What [`keep_moves`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeptMoves {
    /// False when the kept moves were already those of the history (nothing written).
    pub computed: bool,
    /// Operations in the store.
    pub operations: usize,
    /// Moved pods kept (rows of `drain_moves`), over every operation.
    pub moves: usize,
}

/// Whether the store's kept moves are those of its history as it is now.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn moves_are_fresh(store: &Store) -> Result<bool, AnalyzeError> {
    Ok(store.query_one(&sql::DRAIN_MOVES_FRESH, [SCHEMA_VERSION, RULES_VERSION], |r| r.get(0))?)
}

/// Computes every operation's moves from the history and keeps them in the
/// store (one transaction: the rows and the record of the history they
/// come from), unless the kept ones are already fresh. Needs a store opened
/// for writing ([`Store::open`]).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query or the append fails (the transaction
/// is rolled back: the old rows stay, and readers see they are stale).
pub fn keep_moves(store: &Store) -> Result<KeptMoves, AnalyzeError> {
    if moves_are_fresh(store)? {
        return Ok(KeptMoves { computed: false, operations: 0, moves: 0 });
    }
    let timeline = super::computed_moves(store)?;
    store.batch(&sql::TX_BEGIN)?;
    match write(store, &timeline.operations) {
        Ok(kept) => {
            store.batch(&sql::TX_COMMIT)?;
            Ok(kept)
        }
        Err(e) => {
            // The write's error is the one to report.
            let _ = store.batch(&sql::TX_ROLLBACK);
            Err(e)
        }
    }
}

fn write(store: &Store, operations: &[super::Operation]) -> Result<KeptMoves, AnalyzeError> {
    store.batch(&sql::CLEAR_DRAIN_MOVES)?;
    let append_error = |source| StoreError::Append { table: "drain_moves", source };
    let mut moves = 0usize;
    {
        // Schema v12: each episode's span, for readers that need no signal.
        let append_error = |source| StoreError::Append { table: "drain_episodes", source };
        let mut appender = store.conn().appender("drain_episodes").map_err(append_error)?;
        for op in operations {
            for (episode, ep) in op.episodes.iter().enumerate() {
                appender
                    .append_row(duckdb::params![
                        op.number as i64,
                        episode as i64,
                        ep.node,
                        timestamp(ep.started_at),
                        timestamp(ep.last_at()),
                        ep.back_at().map_or(Value::Null, timestamp),
                    ])
                    .map_err(append_error)?;
            }
        }
        appender.flush().map_err(append_error)?;
    }
    {
        // In replacement-node order (schema v12): the moves landed on one
        // node lie together, where `drain_moves_to_node` skips to them.
        let mut rows: Vec<(&super::Operation, usize, &NodeEpisode, &MovedPod)> = operations
            .iter()
            .flat_map(|op| {
                op.episodes.iter().enumerate().flat_map(move |(i, ep)| ep.evicted.iter().map(move |m| (op, i, ep, m)))
            })
            .collect();
        // Stable: the timeline's order within a node (moves with no replacement last).
        rows.sort_by_key(|(_, _, _, m)| m.replacement.as_ref().map_or((true, ""), |r| (false, r.node.as_str())));
        let mut appender = store.conn().appender("drain_moves").map_err(append_error)?;
        for (op, episode, ep, m) in rows {
            let r = m.replacement.as_ref();
            appender
                .append_row(duckdb::params![
                    op.number as i64,
                    episode as i64,
                    ep.node,
                    m.namespace,
                    m.name,
                    m.uid,
                    timestamp(m.evicted_at),
                    m.evidence.join(","),
                    m.detail,
                    m.owner,
                    r.map(|r| r.name.as_str()),
                    r.map(|r| r.node.as_str()),
                    r.map_or(Value::Null, |r| timestamp(r.bound_at)),
                ])
                .map_err(append_error)?;
            moves += 1;
        }
        appender.flush().map_err(append_error)?;
    }
    let kept_at = Utc::now().timestamp_micros();
    store.execute(
        &sql::DRAIN_MOVES_KEPT,
        duckdb::params![SCHEMA_VERSION, RULES_VERSION, operations.len() as i64, moves as i64, kept_at],
    )?;
    Ok(KeptMoves { computed: true, operations: operations.len(), moves })
}

fn timestamp(t: DateTime<Utc>) -> Value {
    Value::Timestamp(TimeUnit::Microsecond, t.timestamp_micros())
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
pub(crate) fn kept_moves(store: &Store, selected: &mut [(usize, &mut Vec<NodeEpisode>)]) -> Result<bool, AnalyzeError> {
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
    let batches = store.query_arrow(&sql::DRAIN_MOVES, [first, last]);
    steps.done("kept moves: query");
    let batches = match batches {
        Ok(batches) => batches,
        Err(e) => {
            tracing::debug!("the kept drain moves cannot be read ({e}); computing them from the history");
            return Ok(false);
        }
    };
    // A row the column reader refuses (a NULL where a value is required: a
    // store edited by hand) makes the kept rows unreadable, as a failed query does.
    let rows = match kept_rows(&sql::DRAIN_MOVES, &batches) {
        Ok(rows) => rows,
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
/// [`AnalyzeError::Store`] when the query fails; [`AnalyzeError::Column`]
/// when a row is refused.
#[doc(hidden)]
pub fn read_kept_moves(store: &Store) -> Result<usize, AnalyzeError> {
    let batches = store.query_arrow(&sql::DRAIN_MOVES, [i64::MIN, i64::MAX])?;
    Ok(kept_rows(&sql::DRAIN_MOVES, &batches)?.len())
}

/// The rows of query `q` (`drain_moves` or `drain_moves_to_node`: the
/// columns of `drain_moves`), read column by column (175,678 rows at 10M
/// events: ~0.6 s row by row through duckdb-rs).
///
/// # Errors
/// [`AnalyzeError::Column`] when a column is not of its SQL type, or is
/// NULL where the move needs a value (all but `detail`, `owner` and the
/// replacement's).
pub(super) fn kept_rows(
    q: &kdrift_store::NamedQuery,
    batches: &[duckdb::arrow::record_batch::RecordBatch],
) -> Result<Vec<KeptRow>, AnalyzeError> {
    let mut out = Vec::with_capacity(batches.iter().map(|b| b.num_rows()).sum());
    for batch in batches {
        let c = crate::columns::Columns::of(q, batch);
        let (operation, episode) = (c.int32(0)?, c.int32(1)?);
        let (node, namespace, name, uid) = (c.text(2)?, c.text(3)?, c.text(4)?, c.text(5)?);
        let (evicted_at, evidence, detail, owner) = (c.times(6)?, c.text(7)?, c.text(8)?, c.text(9)?);
        let (replacement_name, replacement_node, replacement_bound_at) = (c.text(10)?, c.text(11)?, c.times(12)?);
        let required = |v: Option<&str>, i: usize| v.map(str::to_string).ok_or_else(|| c.null(i));
        for row in 0..c.rows() {
            use duckdb::arrow::array::Array;
            if operation.is_null(row) || episode.is_null(row) {
                return Err(c.null(if operation.is_null(row) { 0 } else { 1 }));
            }
            let namespace = required(namespace.get(row), 3)?;
            let replacement =
                match (replacement_name.get(row), replacement_node.get(row), replacement_bound_at.get(row)) {
                    (Some(name), Some(node), Some(bound_at)) => Some(Replacement {
                        namespace: namespace.clone(),
                        name: name.to_string(),
                        node: node.to_string(),
                        bound_at,
                    }),
                    _ => None,
                };
            let moved = MovedPod {
                from_node: required(node.get(row), 2)?,
                namespace,
                name: required(name.get(row), 4)?,
                uid: required(uid.get(row), 5)?,
                evicted_at: evicted_at.get(row).ok_or_else(|| c.null(6))?,
                evidence: required(evidence.get(row), 7)?
                    .split(',')
                    .filter(|k| !k.is_empty())
                    .map(str::to_string)
                    .collect(),
                detail: detail.get(row).map(str::to_string),
                owner: owner.get(row).map(str::to_string),
                replacement,
            };
            let (op, ep) = (operation.value(row), episode.value(row));
            out.push((usize::try_from(op).unwrap_or(0), usize::try_from(ep).unwrap_or(usize::MAX), moved));
        }
    }
    Ok(out)
}
