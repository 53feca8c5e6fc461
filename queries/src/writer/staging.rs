//! Staging rows through the Appender when DuckDB runs out of memory doing
//! so (issue 34, break-it 39b F1): two Events of 30 MiB among 300 small
//! ones under `--memory-limit 64MiB` failed the whole run at the second
//! one's bulk load into `staging_observations`, and the records after it
//! were lost, while a batch's commit (`split`) leaves such an object out.
//!
//! Now a staging failure takes the commit's path. An object of
//! [`ALONE_BYTES`] or more is appended and flushed alone (the rows before
//! it flushed first); smaller rows are kept in Rust until their flush (a
//! failed flush loses every row of it: DuckDB resets the Appender's
//! buffer). When a flush runs out of memory, the rows staged before are
//! committed (as a part of the batch, `split`'s way), the staging table is
//! made anew ([`RunWriter::reset_staging`]), and the lost rows are staged
//! again, together, then one by one; one that still fails alone is left
//! out as an input error naming it ([`super::Rejected`]), the others are
//! stored. Their `seq`s are given again in order, so a batch's stay
//! consecutive. A run's held transaction cannot be retried (a failed
//! statement aborts it): it is given up at the first big object (`held`),
//! and a failure of smaller rows inside it ends the run, as before.
//!
//! Why DuckDB ran out of memory on the second big object, not the first:
//! the staging table is TEMP, and a deleted row's strings stay in its
//! blocks (in memory or spilled, counted against the limit) until the temp
//! catalog is checkpointed; a committed batch's rows, or an object left
//! out, are deleted. So the table is dropped and created again after each
//! batch commit, when nothing is staged ([`RunWriter::reset_staging`]):
//! three Events of 12 MiB under 64 MiB, the third refused "storing it
//! alone" before, are all stored.

use super::split::worth_splitting;
use super::{RunWriter, StagingRow};
use crate::record::Origin;
use crate::{sql, StoreError};

/// Bytes (compact JSON plus model) from which a row is appended and
/// flushed alone, not kept in Rust for a retry: a big object is not
/// copied, and a flush that fails holds it alone (1 MiB: a Pod with its
/// last-applied annotation is tens of KiB; the batch of a 64 MiB limit is
/// 8 MiB).
pub const ALONE_BYTES: u64 = 1 << 20;

/// What a staged row weighs in a batch (`pending_bytes`): its compact JSON
/// and its model.
pub(super) fn row_bytes(row: &StagingRow) -> u64 {
    (row.json.len() + row.model.as_ref().map_or(0, String::len)) as u64
}

impl RunWriter<'_> {
    /// Whether a staging failure can be tried again: outside a held
    /// transaction (which a failed statement aborts whole).
    pub(super) fn recovers(&self) -> bool {
        self.held.is_none()
    }

    /// Stages one row: alone when it is big ([`ALONE_BYTES`], the run's
    /// held transaction given up first: `held`), else into
    /// the Appender's buffer (a copy kept until it is flushed), flushed
    /// every [`super::APPENDER_FLUSH_ROWS`] rows or
    /// [`super::APPENDER_FLUSH_BYTES`].
    ///
    /// # Errors
    /// [`StoreError`] when the store fails (running out of memory only in a
    /// held transaction, or when the store fails while recovering).
    pub(super) fn stage_row(&mut self, row: &StagingRow, origin: &Origin) -> Result<(), StoreError> {
        let bytes = row_bytes(row);
        if bytes >= ALONE_BYTES {
            // Not inside a held transaction, which could not leave it out (`held`).
            self.release_held()?;
            self.flush_staged()?;
            return self.stage_alone(row, origin);
        }
        self.seq += 1;
        self.pending += 1;
        self.pending_bytes += bytes;
        self.unflushed_bytes += bytes;
        if self.recovers() {
            self.unflushed.push((row.clone(), origin.clone()));
        }
        // (A failure here is not DuckDB's memory: the Appender flushes by
        // itself only past 204,800 rows.)
        if let Err(e) = self.append_to_appender(self.seq, row, origin) {
            return self.after_failed_flush(e);
        }
        if self.pending.is_multiple_of(super::APPENDER_FLUSH_ROWS)
            || self.unflushed_bytes >= super::APPENDER_FLUSH_BYTES
        {
            self.flush_staged()?;
        }
        Ok(())
    }

    /// Flushes the Appender's buffer into the staging table; when DuckDB
    /// runs out of memory, stages its rows again ([`RunWriter::after_failed_flush`]).
    ///
    /// # Errors
    /// [`StoreError`], as [`RunWriter::stage_row`].
    pub(super) fn flush_staged(&mut self) -> Result<(), StoreError> {
        match self.flush_appender() {
            Ok(()) => {
                self.unflushed.clear();
                self.unflushed_bytes = 0;
                Ok(())
            }
            Err(e) => self.after_failed_flush(e),
        }
    }

    /// The Appender's flush, if one is open.
    ///
    /// # Errors
    /// [`StoreError::Append`] or [`StoreError::OutOfMemory`].
    fn flush_appender(&mut self) -> Result<(), StoreError> {
        match self.appender.as_mut() {
            Some(appender) => {
                appender.flush().map_err(|source| self.store.append_failed("staging_observations", source))
            }
            None => Ok(()),
        }
    }

    /// After a flush failed with `e` (its rows are not staged: DuckDB
    /// resets the Appender's buffer, and the driver destroys the Appender),
    /// stages the rows kept again when `e` is running out of memory outside
    /// a held transaction: the staged rows committed and the table made
    /// anew first ([`RunWriter::make_room`]), then all together, then one
    /// by one ([`RunWriter::stage_alone`]).
    ///
    /// # Errors
    /// `e` when it cannot be tried again; else [`StoreError`] as
    /// [`RunWriter::stage_row`].
    fn after_failed_flush(&mut self, e: StoreError) -> Result<(), StoreError> {
        self.appender = None;
        self.unflushed_bytes = 0;
        let rows = std::mem::take(&mut self.unflushed);
        if !self.recovers() || !worth_splitting(&e) {
            return Err(e);
        }
        tracing::info!(rows = rows.len(), %e, "staging ran out of memory: staging the rows again");
        self.unstage(&rows);
        self.make_room()?;
        let first = self.seq + 1;
        for (row, _) in &rows {
            self.count_staged(row);
        }
        // The Appender flushes by itself only past 204,800 rows (DuckDB's
        // DEFAULT_FLUSH_COUNT): none of these is staged until the flush.
        for (seq, (row, origin)) in (first..).zip(&rows) {
            if let Err(e) = self.append_to_appender(seq, row, origin) {
                return self.stage_one_by_one(e, &rows);
            }
        }
        match self.flush_appender() {
            Ok(()) => Ok(()),
            Err(e) => self.stage_one_by_one(e, &rows),
        }
    }

    /// After `rows` failed together again with `e`: each staged alone.
    fn stage_one_by_one(&mut self, e: StoreError, rows: &[(StagingRow, Origin)]) -> Result<(), StoreError> {
        self.appender = None;
        if !worth_splitting(&e) {
            return Err(e);
        }
        self.unstage(rows);
        for (row, origin) in rows {
            self.stage_alone(row, origin)?;
        }
        Ok(())
    }

    /// Counts `row` as staged: the next `seq`, and the batch's rows and bytes.
    fn count_staged(&mut self, row: &StagingRow) {
        self.seq += 1;
        self.pending += 1;
        self.pending_bytes += row_bytes(row);
    }

    /// Takes back the counts of the last `rows` staged, which a failed
    /// flush lost: their `seq`s are given again.
    fn unstage(&mut self, rows: &[(StagingRow, Origin)]) {
        let n = rows.len();
        self.seq -= n as i64;
        self.pending -= n as u64;
        let bytes: u64 = rows.iter().map(|(row, _)| row_bytes(row)).sum();
        self.pending_bytes = self.pending_bytes.saturating_sub(bytes);
    }

    /// Stages one row and flushes it alone; when DuckDB runs out of memory
    /// (outside a held transaction), makes room ([`RunWriter::make_room`])
    /// and tries once more, then leaves it out as an input error
    /// ([`RunWriter::reject_unstaged`]).
    ///
    /// # Errors
    /// [`StoreError`], as [`RunWriter::stage_row`].
    fn stage_alone(&mut self, row: &StagingRow, origin: &Origin) -> Result<(), StoreError> {
        for tried in [false, true] {
            self.count_staged(row);
            let staged = self.append_to_appender(self.seq, row, origin).and_then(|()| self.flush_appender());
            let e = match staged {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            self.appender = None;
            self.seq -= 1;
            self.pending -= 1;
            self.pending_bytes = self.pending_bytes.saturating_sub(row_bytes(row));
            if !self.recovers() || !worth_splitting(&e) {
                return Err(e);
            }
            if tried {
                tracing::debug!(%origin, %e, "an object ran out of memory staged alone");
                return self.reject_unstaged(row, origin);
            }
            self.make_room()?;
        }
        Ok(())
    }

    /// Frees what DuckDB holds for this run's staging: the rows staged so
    /// far committed as a part of the batch (`split`'s way: progress
    /// counts only; in parts again when that runs out of memory), then the
    /// staging table made anew ([`RunWriter::reset_staging`]).
    ///
    /// # Errors
    /// [`StoreError`] when the store fails.
    fn make_room(&mut self) -> Result<(), StoreError> {
        let (from, to) = self.staged_seqs();
        if from <= to && !self.store_part(from, to)? {
            self.store_in_parts((from, to), false, None)?;
        }
        self.reset_staging()
    }

    /// Makes the staging table anew with the rows still staged, while a
    /// batch is committed in parts (`split`, when `todo` parts remain):
    /// they are copied aside, the table dropped and made again, and they
    /// are moved back (`keep_staged.sql`, `create_staging.sql`,
    /// `restore_staged.sql`, in one transaction), which frees what the rows
    /// deleted from it hold (the parts committed, the objects left out).
    /// Outside a held transaction only. Best-effort: a failure (DuckDB out
    /// of memory copying the rows) is rolled back, the table kept as it
    /// was, and only logged.
    pub(super) fn compact_staging(&mut self, todo: &[(i64, i64)]) {
        if self.held.is_some() || todo.is_empty() {
            return;
        }
        self.appender = None;
        let store = self.store;
        let made = super::TransactionGuard::begin(store).and_then(|tx| {
            store.batch(&sql::KEEP_STAGED)?;
            store.batch(&sql::CREATE_STAGING)?;
            store.batch(&sql::RESTORE_STAGED)?;
            tx.commit()
        });
        if let Err(e) = made {
            tracing::debug!(%e, "the staging table was not made anew with its rows");
        }
    }

    /// Drops the staging table and creates it again (`drop_staging.sql`:
    /// what its deleted rows hold is freed), when nothing is staged and no
    /// transaction is held; else does nothing. The Appender is opened
    /// again when the next row comes.
    ///
    /// # Errors
    /// [`StoreError`] when the store fails.
    pub(super) fn reset_staging(&mut self) -> Result<(), StoreError> {
        if self.held.is_some() || self.pending > 0 || !self.unflushed.is_empty() {
            return Ok(());
        }
        self.appender = None;
        self.store.batch(&sql::DROP_STAGING)?;
        self.store.batch(&sql::CREATE_STAGING)
    }
}
