//! A run's held transaction: the batches of a unit that is stored whole
//! (a VictoriaLogs window: `--resume` sees it whole or not at all) are
//! moved into the store inside one transaction that commits with the run.
//!
//! DuckDB has no savepoints, so a statement that fails inside it loses the
//! whole transaction: an object too big for the memory limit could not be
//! left out as it is outside one (`split`, `staging`), and it failed the
//! whole unit (break-it 40 F3: a window of 200 Events with one of 30 MiB
//! under `--memory-limit 64MiB` stored none of them, and the error named
//! `derive_event_versions`, not the row). So the held transaction is given
//! up at the run's first object of [`super::staging::ALONE_BYTES`] (1 MiB)
//! or more ([`RunWriter::released`]): the batches moved so far are
//! committed (the run's progress counts with them), and from that object
//! on the run commits batch by batch, leaving an object DuckDB cannot store
//! out as an input error naming it. The unit's own row (`vl_windows`) still
//! commits only with the run's final commit, so a unit that does not finish
//! is pulled again whole; its records committed before are then counted as
//! duplicates (the store deduplicates every version). Units of ordinary
//! objects (Events are about 1 KiB) keep their single transaction.

use duckdb::params;

use super::{open_appender, RunWriter, TransactionGuard};
use crate::{sql, Store, StoreError};

/// No `also` for a batch moved (`RunWriter::store_seqs`).
type NoAlso = fn(&Store, i64) -> Result<(), StoreError>;

impl RunWriter<'_> {
    /// Opens the run's one transaction: from here on [`RunWriter::move_batch`]
    /// moves the records staged so far into the store inside it, and the
    /// run's [`RunWriter::commit`] commits them all at once; abandoned (or
    /// dropped) uncommitted, the run keeps none of them — unless an object
    /// of 1 MiB or more was staged, which gives the transaction up
    /// ([`RunWriter::released`]). A source whose unit must be stored whole
    /// (a VictoriaLogs window, `--resume`) bounds what it stages by bytes
    /// this way, as `commit_batch` does between transactions: the staging
    /// table and each statement hold one batch.
    ///
    /// # Errors
    /// [`StoreError`] when the transaction cannot begin.
    pub fn hold_transaction(&mut self) -> Result<(), StoreError> {
        if self.held.is_none() && !self.released {
            let tx = TransactionGuard::begin(self.store);
            self.held = Some(self.remember(tx)?);
        }
        Ok(())
    }

    /// Whether the run's held transaction was given up at an object of
    /// 1 MiB or more (module `held`): the batches before it are committed,
    /// and the run's later batches commit each on its own. A caller that
    /// abandons such a run keeps what was committed.
    pub fn released(&self) -> bool {
        self.released
    }

    /// Moves the records staged since the last batch into `observations`,
    /// with their derived rows, inside the run's held transaction
    /// ([`RunWriter::hold_transaction`]), and empties the staging table;
    /// nothing is committed. Without a held transaction (never held, or
    /// given up) it is [`RunWriter::commit_batch`].
    ///
    /// # Errors
    /// [`StoreError`]; the caller drops or abandons the run (its
    /// transaction is rolled back).
    pub fn move_batch(&mut self, errors: u64) -> Result<(), StoreError> {
        if self.held.is_none() {
            return self.commit_batch(errors).map(|_| ());
        }
        let moved = self.commit_staged(None, errors, |_, _| Ok(()));
        self.remember(moved)?;
        let appender = open_appender(self.store);
        self.appender = Some(self.remember(appender)?);
        Ok(())
    }

    /// Gives the held transaction up before a big object is staged: the
    /// rows staged so far are moved inside it, the run's progress counts
    /// updated, and it commits; the staging table is made anew. Nothing to
    /// do without a held transaction.
    ///
    /// # Errors
    /// [`StoreError`]; the transaction is rolled back (the caller's run
    /// fails, as a failed [`RunWriter::move_batch`]).
    pub(super) fn release_held(&mut self) -> Result<(), StoreError> {
        if self.held.is_none() {
            return Ok(());
        }
        let started = std::time::Instant::now();
        if self.pending > 0 || !self.unflushed.is_empty() {
            self.flush_staged()?;
            self.appender = None;
            let mut nothing: Option<NoAlso> = None;
            self.store_seqs(self.staged_seqs(), None, false, &mut nothing, started)?;
        }
        self.appender = None;
        let tx = self.held.take().expect("held: checked above");
        let c = self.moved;
        let (records, duplicates, errors) = (c.records as i64, c.duplicates as i64, self.errors as i64);
        self.store.execute(&sql::RUN_PROGRESS, params![self.run_id, records, duplicates, errors])?;
        tx.commit()?;
        self.committed = c;
        self.released = true;
        tracing::info!(
            records,
            ms = started.elapsed().as_secs_f64() * 1e3,
            "a big object: the run's held transaction committed, its later batches commit each on its own"
        );
        if let Err(e) = self.reset_staging() {
            tracing::debug!(%e, "the staging table was not made anew");
        }
        self.appender = Some(open_appender(self.store)?);
        Ok(())
    }
}
