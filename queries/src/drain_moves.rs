//! The drain moves kept in the store (schema v9 `drain_moves`, schema v12
//! `drain_episodes`): every rolling operation's moved pods and their
//! replacements, matched once after the history changes by
//! `kdrift_analyze::drains::moves_to_keep` and written here, so that
//! `timeline drains` and `why-pending` read them instead of matching every
//! eviction of the history again. The rows record the history they come
//! from (the highest obs_id, [`crate::SCHEMA_VERSION`] and the rules'
//! version): [`Store::drain_moves_fresh`] tells whether they are still
//! those of the history.

use chrono::{DateTime, Utc};
use duckdb::types::{TimeUnit, Value};

use crate::columns::Batches;
use crate::{params, sql, Reader, Store, StoreError, SCHEMA_VERSION};

/// One node episode of an operation (a row of `drain_episodes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptEpisode {
    /// The operation's number (from 1).
    pub operation: usize,
    /// The episode's position in the operation (from 0).
    pub episode: usize,
    /// The node drained or lost.
    pub node: String,
    /// When the episode started.
    pub started_at: DateTime<Utc>,
    /// Its last signal.
    pub last_at: DateTime<Utc>,
    /// When the node came back, if it did.
    pub back_at: Option<DateTime<Utc>>,
}

/// The pod that replaced a moved one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptReplacement {
    /// The replacement pod's name (in the moved pod's namespace).
    pub name: String,
    /// The node it was bound to.
    pub node: String,
    /// When it was bound.
    pub bound_at: DateTime<Utc>,
}

/// One moved pod of an episode (a row of `drain_moves`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptMove {
    /// The operation's number (from 1).
    pub operation: usize,
    /// The episode's position in the operation (from 0).
    pub episode: usize,
    /// The node it was evicted from.
    pub from_node: String,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its uid.
    pub uid: String,
    /// When it was evicted.
    pub evicted_at: DateTime<Utc>,
    /// The kinds of evidence of the eviction.
    pub evidence: Vec<String>,
    /// What the evidence says, when it says more.
    pub detail: Option<String>,
    /// Its owner (`Kind/name`), when known.
    pub owner: Option<String>,
    /// Its replacement, when one was found.
    pub replacement: Option<KeptReplacement>,
}

/// Every operation's episodes and moves, as matched from the history by the
/// rules of version `rules_version`, to keep ([`Store::keep_drain_moves`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DrainMovesToKeep {
    /// The version of the matching rules (`kdrift_analyze::drains::RULES_VERSION`).
    pub rules_version: i64,
    /// Operations in the store.
    pub operations: usize,
    /// Every operation's episodes.
    pub episodes: Vec<KeptEpisode>,
    /// Every episode's moved pods, in the timeline's order.
    pub moves: Vec<KeptMove>,
}

/// What keeping the drain moves did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeptMoves {
    /// False when the kept moves were already those of the history (nothing written).
    pub computed: bool,
    /// Operations in the store.
    pub operations: usize,
    /// Moved pods kept (rows of `drain_moves`), over every operation.
    pub moves: usize,
}

impl Reader {
    /// Whether the kept drain moves are those of the history as it is now,
    /// matched by the rules of version `rules_version`.
    ///
    /// # Errors
    /// [`StoreError::Query`] (e.g. a store whose kept tables were dropped).
    pub fn drain_moves_fresh(&self, rules_version: i64) -> Result<bool, StoreError> {
        self.query_one(&sql::DRAIN_MOVES_FRESH, [SCHEMA_VERSION, rules_version], |r| r.get(0))
    }

    /// The kept moves of operations `first..=last` (numbers from 1), in
    /// operation, episode and timeline order, read column by column
    /// (175,678 rows at 10M events: ~0.6 s row by row through duckdb-rs).
    ///
    /// # Errors
    /// [`StoreError::Query`]; [`StoreError::Column`] when a column is not of
    /// its SQL type, or is NULL where the move needs a value (all but
    /// `detail`, `owner` and the replacement's).
    pub fn kept_drain_moves(&self, first: i64, last: i64) -> Result<Vec<KeptMove>, StoreError> {
        kept_rows(&self.query_columns(&sql::DRAIN_MOVES, [first, last])?)
    }

    /// The kept moves of operations 1..=`last` whose replacement landed on
    /// `node` (`drain_moves_to_node`), as [`Reader::kept_drain_moves`].
    ///
    /// # Errors
    /// As [`Reader::kept_drain_moves`].
    pub fn kept_drain_moves_to_node(&self, last: i64, node: &str) -> Result<Vec<KeptMove>, StoreError> {
        kept_rows(&self.query_columns(&sql::DRAIN_MOVES_TO_NODE, params![1i64, last, node])?)
    }
}

impl Store {
    /// Replaces the kept drain moves with `kept` in one transaction (the
    /// rows and the record of the history they come from). Needs a store
    /// opened for writing ([`Store::open`]).
    ///
    /// # Errors
    /// [`StoreError`] when a query or the append fails (the transaction is
    /// rolled back: the old rows stay, and readers see they are stale).
    pub fn keep_drain_moves(&self, kept: &DrainMovesToKeep) -> Result<KeptMoves, StoreError> {
        self.batch(&sql::TX_BEGIN)?;
        match self.write_drain_moves(kept) {
            Ok(()) => {
                self.batch(&sql::TX_COMMIT)?;
                Ok(KeptMoves { computed: true, operations: kept.operations, moves: kept.moves.len() })
            }
            Err(e) => {
                // The write's error is the one to report.
                let _ = self.batch(&sql::TX_ROLLBACK);
                Err(e)
            }
        }
    }

    fn write_drain_moves(&self, kept: &DrainMovesToKeep) -> Result<(), StoreError> {
        self.batch(&sql::CLEAR_DRAIN_MOVES)?;
        {
            // Schema v12: each episode's span, for readers that need no signal.
            let append_error = |source| self.append_failed("drain_episodes", source);
            let mut appender = self.conn.appender("drain_episodes").map_err(append_error)?;
            for ep in &kept.episodes {
                appender
                    .append_row(params![
                        ep.operation as i64,
                        ep.episode as i64,
                        ep.node,
                        timestamp(ep.started_at),
                        timestamp(ep.last_at),
                        ep.back_at.map_or(Value::Null, timestamp),
                    ])
                    .map_err(append_error)?;
            }
            appender.flush().map_err(append_error)?;
        }
        // In replacement-node order (schema v12): the moves landed on one
        // node lie together, where `drain_moves_to_node` skips to them.
        // Stable: the timeline's order within a node (moves with no replacement last).
        let mut rows: Vec<&KeptMove> = kept.moves.iter().collect();
        rows.sort_by_key(|m| m.replacement.as_ref().map_or((true, ""), |r| (false, r.node.as_str())));
        let append_error = |source| self.append_failed("drain_moves", source);
        let mut appender = self.conn.appender("drain_moves").map_err(append_error)?;
        for m in rows {
            let r = m.replacement.as_ref();
            appender
                .append_row(params![
                    m.operation as i64,
                    m.episode as i64,
                    m.from_node,
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
        }
        appender.flush().map_err(append_error)?;
        drop(appender);
        let kept_at = Utc::now().timestamp_micros();
        self.execute(
            &sql::DRAIN_MOVES_KEPT,
            params![SCHEMA_VERSION, kept.rules_version, kept.operations as i64, kept.moves.len() as i64, kept_at],
        )?;
        Ok(())
    }
}

fn timestamp(t: DateTime<Utc>) -> Value {
    Value::Timestamp(TimeUnit::Microsecond, t.timestamp_micros())
}

/// The rows of `drain_moves` or `drain_moves_to_node` (the columns of `drain_moves`).
fn kept_rows(batches: &Batches) -> Result<Vec<KeptMove>, StoreError> {
    let mut out = Vec::with_capacity(batches.rows());
    for c in batches.iter() {
        let (operation, episode) = (c.int32(0)?, c.int32(1)?);
        let (node, namespace, name, uid) = (c.text(2)?, c.text(3)?, c.text(4)?, c.text(5)?);
        let (evicted_at, evidence, detail, owner) = (c.times(6)?, c.text(7)?, c.text(8)?, c.text(9)?);
        let (replacement_name, replacement_node, replacement_bound_at) = (c.text(10)?, c.text(11)?, c.times(12)?);
        let required = |v: Option<&str>, i: usize| v.map(str::to_string).ok_or_else(|| c.null(i));
        for row in 0..c.rows() {
            let (Some(op), Some(ep)) = (operation.get(row), episode.get(row)) else {
                return Err(c.null(if operation.get(row).is_none() { 0 } else { 1 }));
            };
            let namespace = required(namespace.get(row), 3)?;
            let replacement =
                match (replacement_name.get(row), replacement_node.get(row), replacement_bound_at.get(row)) {
                    (Some(name), Some(node), Some(bound_at)) => {
                        Some(KeptReplacement { name: name.to_string(), node: node.to_string(), bound_at })
                    }
                    _ => None,
                };
            out.push(KeptMove {
                operation: usize::try_from(op).unwrap_or(0),
                episode: usize::try_from(ep).unwrap_or(usize::MAX),
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
            });
        }
    }
    Ok(out)
}
