//! A batch DuckDB ran out of memory committing, committed in parts (issue
//! 34, break-it F2): one Event of 60 MiB among small ones under
//! `--memory-limit 128MiB` failed `derive_event_versions`, and the whole
//! batch, good records and all, was lost with an error naming the SQL
//! step, not the object.
//!
//! The batch's transaction is rolled back (its rows stay staged: they were
//! appended outside it), and its rows are committed again in parts by
//! `seq`, each part its own transaction, splitting a part that fails again
//! down to single objects: around its largest object when that holds half
//! its bytes or more, else in halves. An object that fails alone is left out: its row
//! is deleted from the staging table and an input error naming it (where
//! it came from, its kind, namespace, name and size) is written with it
//! ([`Rejected`]). Only DuckDB's out-of-memory failure is tried again, and
//! not a fatal one (a checkpoint that failed to pin a block invalidates the
//! connection); every other error ends the commit as before.
//!
//! Each part committed, and each object left out, is deleted from the
//! staging table, whose blocks still hold the deleted rows' strings: when
//! parts remain, the table is made anew with the rows still staged
//! ([`RunWriter::compact_staging`]). Without it, one Event of 60 MiB left
//! out under `--memory-limit 64MiB` held its memory, and each of the 50
//! small items after it in its List was refused "storing it alone" too
//! (break-it 40 F1).
//!
//! One object too big among small ones costs two failed commits (the
//! batch's, its own) and two more that store the rest; a batch too big as
//! a whole but made of objects that fit alone (twenty Pods of 20–31 MiB)
//! is halved until its parts fit.

use kdrift_rebalance::thousands;

use super::{ErrorRow, RunStatus, RunWriter, StagingRow, TransactionGuard};
use crate::memory::size_text;
use crate::record::Origin;
use crate::{sql, StoreError};

/// The `also` of a part's commit: none (`RunWriter::store_seqs`).
type NoAlso = fn(&crate::Store, i64) -> Result<(), StoreError>;

/// One object a batch commit left out: DuckDB ran out of memory storing
/// it alone under the store's memory limit. It is an input error of the
/// run (in `ingest_errors`, and counted in the run's errors and its
/// location's `ingest_files` row); the other records of its batch are
/// stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// Where it was read (file and line, List item).
    pub origin: Origin,
    /// Its `kind`.
    pub kind: String,
    /// Its `metadata.namespace` (empty for cluster-scoped objects).
    pub namespace: String,
    /// Its `metadata.name`.
    pub name: String,
    /// Its size as staged: the length of its compact JSON, in bytes.
    pub bytes: u64,
    /// The input error's text (without the origin): the object, its size,
    /// the memory limit and a limit to try instead.
    pub message: String,
}

impl Rejected {
    /// Whether it is an Event (else another object), as a file's counts
    /// tell them apart.
    pub fn is_event(&self) -> bool {
        self.kind == "Event"
    }
}

/// Whether a commit's failure `e` may go away in smaller parts: DuckDB's
/// out-of-memory failure, unless fatal (`FATAL Error`, a connection
/// invalidated: nothing more can be stored through it).
pub(super) fn worth_splitting(e: &StoreError) -> bool {
    match e {
        StoreError::OutOfMemory { source, .. } => {
            let text = source.0.to_string();
            !text.contains("FATAL") && !text.contains("invalidated")
        }
        _ => false,
    }
}

/// The status a run is closed with when `rejected` objects were left out
/// and `records` stored: `status` when none were left out; `failed` when
/// nothing was stored; else `partial` for `ok`.
pub(super) fn closing_status(status: RunStatus, rejected: usize, records: u64) -> RunStatus {
    match status {
        _ if rejected == 0 => status,
        _ if records == 0 => RunStatus::Failed,
        RunStatus::Ok => RunStatus::Partial,
        other => other,
    }
}

/// A memory limit to suggest for an object of `bytes` that did not fit
/// under `limit` (both bytes): a power of two, at least twice `limit` and
/// eight times the object (a batch's commit holds an object several times:
/// in the staging table, its derivation fields, `observations`, and a
/// derived table; objects of 24 MiB were stored under 128 MiB).
pub(crate) fn suggested_limit(bytes: u64, limit: u64) -> u64 {
    limit.saturating_mul(2).max(bytes.saturating_mul(8)).checked_next_power_of_two().unwrap_or(u64::MAX)
}

/// The input error's text for an object of `kind` `namespace`/`name` of
/// `bytes` that did not fit under `limit` bytes.
pub(super) fn message(kind: &str, namespace: &str, name: &str, bytes: u64, limit: u64) -> String {
    let object = if namespace.is_empty() { format!("{kind} {name}") } else { format!("{kind} {namespace}/{name}") };
    format!(
        "{object} ({} bytes of JSON): DuckDB ran out of memory storing it alone; expected an object DuckDB can \
         store under --memory-limit {}: raise it, e.g. --memory-limit {} (this object is not stored; the other \
         records are)",
        thousands(bytes),
        size_text(limit),
        size_text(suggested_limit(bytes, limit)),
    )
}

impl RunWriter<'_> {
    /// Commits the staged rows with seq in `seqs` (whose commit as one
    /// batch failed with `failure`, out of memory; `None`: not tried as
    /// one yet) in parts, splitting each
    /// part that runs out of memory too (`parts_of`), and leaves out the
    /// objects that do alone (`reject`). `finishing`: in the run's final
    /// commit, whose stop ([`RunWriter::stop_final_commit_when`]) is asked
    /// before each part. The run row gets the progress counts of each part.
    ///
    /// # Errors
    /// [`StoreError`]: any failure but running out of memory, or
    /// [`StoreError::Interrupted`]; the parts committed before stay.
    pub(super) fn store_in_parts(
        &mut self,
        (from, to): (i64, i64),
        finishing: bool,
        failure: Option<&StoreError>,
    ) -> Result<(), StoreError> {
        let query = match failure {
            Some(StoreError::OutOfMemory { what, .. }) => what.as_str(),
            _ => "",
        };
        // Said once the commit ends (by the caller, from `rejected`), not here.
        tracing::info!(rows = to - from + 1, query, "a batch ran out of memory: committing it in parts");
        let mut todo = vec![(from, to)];
        let mut first = failure.is_some();
        while let Some((from, to)) = todo.pop() {
            if finishing && self.stop.as_deref().is_some_and(|requested| requested()) {
                return Err(StoreError::Interrupted);
            }
            // The whole batch failed already.
            let stored = !first && self.store_part(from, to)?;
            first = false;
            if stored {
                self.compact_staging(&todo);
                continue;
            }
            if from == to {
                self.reject(from)?;
                self.compact_staging(&todo);
                continue;
            }
            // In seq order: the stack pops the first part first.
            for part in self.parts_of(from, to)?.into_iter().rev().filter(|(from, to)| from <= to) {
                todo.push(part);
            }
        }
        Ok(())
    }

    /// The parts to try of the staged rows with seq in `from..=to` (two or
    /// more, in seq order, some maybe empty), which ran out of memory
    /// together: around the largest object when it holds half their bytes
    /// or more (one object too big among small ones costs two failed
    /// commits, not one per halving), else in halves (a batch of objects
    /// that fit alone but not together).
    ///
    /// # Errors
    /// [`StoreError`] when the store fails.
    fn parts_of(&self, from: i64, to: i64) -> Result<Vec<(i64, i64)>, StoreError> {
        let (largest, bytes, total) = self.store.query_one(&sql::STAGED_LARGEST, [from, to], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
        })?;
        Ok(if bytes.saturating_mul(2) >= total {
            vec![(from, largest - 1), (largest, largest), (largest + 1, to)]
        } else {
            let mid = from + (to - from) / 2;
            vec![(from, mid), (mid + 1, to)]
        })
    }

    /// One part's commit: `false` when DuckDB ran out of memory (the part
    /// is rolled back), `true` when stored.
    ///
    /// # Errors
    /// Any other [`StoreError`].
    pub(super) fn store_part(&mut self, from: i64, to: i64) -> Result<bool, StoreError> {
        let started = std::time::Instant::now();
        // A part runs no caller's `also` (the batch's own commit does).
        let mut none: Option<NoAlso> = None;
        match self.store_seqs((from, to), None, true, &mut none, started) {
            Ok(()) => Ok(true),
            Err(e) if worth_splitting(&e) => {
                tracing::debug!(from, to, %e, "a part ran out of memory");
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Leaves out the staged object `seq`, which DuckDB could not store
    /// alone: deletes its row from the staging table and writes its input
    /// error, in one transaction.
    ///
    /// # Errors
    /// [`StoreError`] when the store fails.
    fn reject(&mut self, seq: i64) -> Result<(), StoreError> {
        let store = self.store;
        let tx = TransactionGuard::begin(store)?;
        let (location, line, item, kind, namespace, name, bytes) =
            store.query_one(&sql::STAGED_OBJECT, [seq], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, i64>(6)?,
                ))
            })?;
        store.execute(&sql::CLEAR_STAGED, [seq, seq])?;
        let origin = Origin { location, line: line.map(|l| l as u64), item: item.map(|i| i as u64) };
        self.leave_out(tx, origin, kind, namespace, name, bytes.max(0) as u64)?;
        self.pending -= 1;
        Ok(())
    }

    /// Leaves out `row`, read at `origin`, which DuckDB could not stage
    /// alone (`staging`: it is not in the staging table): writes its input
    /// error in a transaction of its own.
    ///
    /// # Errors
    /// [`StoreError`] when the store fails.
    pub(super) fn reject_unstaged(&mut self, row: &StagingRow, origin: &Origin) -> Result<(), StoreError> {
        let tx = TransactionGuard::begin(self.store)?;
        let id = &row.identity;
        self.leave_out(
            tx,
            origin.clone(),
            id.kind.clone(),
            id.namespace.clone(),
            id.name.clone(),
            row.json.len() as u64,
        )
    }

    /// Writes the input error of an object left out in `tx`, commits it,
    /// and keeps the object in the run's [`Rejected`].
    fn leave_out(
        &mut self,
        tx: TransactionGuard<'_>,
        origin: Origin,
        kind: String,
        namespace: String,
        name: String,
        bytes: u64,
    ) -> Result<(), StoreError> {
        let store = self.store;
        let message = message(&kind, &namespace, &name, bytes, store.memory_limit());
        let row = ErrorRow {
            location: origin.location.clone(),
            line: origin.line,
            column: None,
            item: origin.item,
            // It quotes the object's name, read from the input (issue 34).
            message: kdrift_rebalance::mask_shown(&message),
        };
        super::write_errors(store, self.run_id, std::slice::from_ref(&row))?;
        tx.commit()?;
        tracing::info!(%origin, kind, namespace, name, bytes, "an object too big for the memory limit is left out");
        self.rejected.push(Rejected { origin, kind, namespace, name, bytes, message });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn the_limit_suggested_holds_eight_times_the_object_and_doubles_the_limit_at_least() {
        assert_eq!(suggested_limit(60 * MIB, 128 * MIB), 512 * MIB);
        assert_eq!(suggested_limit(40 * MIB, 128 * MIB), 512 * MIB);
        assert_eq!(suggested_limit(MIB, 128 * MIB), 256 * MIB);
        assert_eq!(suggested_limit(8 * MIB + 200, 16 * MIB), 128 * MIB);
    }

    #[test]
    fn a_run_that_left_objects_out_is_partial_or_failed_when_it_stored_nothing() {
        assert_eq!(closing_status(RunStatus::Ok, 0, 0), RunStatus::Ok);
        assert_eq!(closing_status(RunStatus::Ok, 1, 5), RunStatus::Partial);
        assert_eq!(closing_status(RunStatus::Partial, 1, 5), RunStatus::Partial);
        assert_eq!(closing_status(RunStatus::Ok, 1, 0), RunStatus::Failed);
    }

    #[test]
    fn the_message_names_the_object_its_size_and_the_limits() {
        assert_eq!(
            message("Event", "ns", "e.2", 62_914_700, 128 * MIB),
            "Event ns/e.2 (62,914,700 bytes of JSON): DuckDB ran out of memory storing it alone; expected an object \
             DuckDB can store under --memory-limit 128MiB: raise it, e.g. --memory-limit 512MiB (this object is not \
             stored; the other records are)"
        );
        assert!(message("Node", "", "n1", 10, 16 * MIB).starts_with("Node n1 (10 bytes of JSON): "));
    }
}
