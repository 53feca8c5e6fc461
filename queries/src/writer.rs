//! Writing one ingest run: the run row, bulk staging of object versions
//! through DuckDB's Appender, then one transaction that commits the new
//! versions (deduplicated), derives the normalised tables and closes the run.
//! A long run (`kdrift record`) commits batch by batch with
//! [`RunWriter::commit_batch`] (each batch one transaction, the run left
//! `running`) before its final [`RunWriter::commit`].
//!
//! A run aborted by an error (a store error while staging or committing, or
//! any error of the caller's that drops the writer uncommitted) is closed as
//! `failed` when its writer goes away, with the store error's text in
//! `ingest_errors`. Closing rolls back whatever transaction the failure left
//! open first, and is tried again when a statement of it fails (an
//! interrupt that lands between two statements fails the next one: issue
//! 34 F9). When the connection itself is broken (a fatal DuckDB error
//! invalidates the database until it is opened again) the run is closed by
//! the store as it is dropped, on a connection of its own ([`Store`]'s
//! `Drop`): only a killed process leaves a run `running`, until the store is
//! next opened for writing ([`Store::open`] closes it as `failed`).
//!
//! While a run is open DuckDB runs on one thread (`writer_threads.sql`):
//! the records are prepared on every core by kdrift's own threads.
//!
//! A batch DuckDB runs out of memory committing (an object too big for
//! the store's memory limit among good ones) is committed again in halves,
//! down to single objects (`split`, issue 34): an object that alone fails
//! is left out as an input error of the run ([`Rejected`]), and every
//! other record is stored. A run's held transaction cannot be split: it is
//! given up at its first object of `staging::ALONE_BYTES` (1 MiB) or more
//! (`held`).

mod held;
mod split;
mod staging;

use chrono::{DateTime, Utc};
use duckdb::{params, Appender};
use kdrift_rebalance::pod_usage_fields;

use super::prepare::{prepare, StagingRow};
use super::{query_error, sql, NamedQuery, Store, StoreError};
use crate::record::{IdentityError, Origin, Record};
pub use split::Rejected;

/// Counts a run ends with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RunCounts {
    /// Records staged, less those left out as too big for the memory
    /// limit ([`Rejected`]: input errors of the run).
    pub records: u64,
    /// New object versions added to the store.
    pub added: u64,
    /// Records the store already had (or that repeated within the run).
    pub duplicates: u64,
}

/// What a run's final commit ([`RunWriter::commit`]) returns.
#[derive(Debug, Clone)]
pub struct Committed {
    /// The counts over every batch of the run.
    pub counts: RunCounts,
    /// New versions per location (file, resource, window), as stored.
    pub per_location: Vec<(String, u64)>,
    /// The status the run was closed with: the caller's, unless objects
    /// were left out ([`Committed::rejected`]): then `partial`, or
    /// `failed` when the run stored no record at all.
    pub status: RunStatus,
    /// Every object of the run that DuckDB could not store alone under the
    /// memory limit, in the order met: each is in `ingest_errors`, counted
    /// in the run's errors and in its location's `ingest_files` row (errors
    /// up, records down), and not in [`Committed::counts`]. The caller
    /// shows them; it does not note them again.
    pub rejected: Vec<Rejected>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Everything read.
    Ok,
    /// Some input failed; the rest is stored.
    Partial,
    /// Nothing could be read.
    Failed,
}

impl RunStatus {
    /// `ok`, `partial` or `failed` (as stored in `ingest_runs.status`).
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Partial => "partial",
            RunStatus::Failed => "failed",
        }
    }
}

/// Staged rows the appender buffers before it moves them into the staging
/// table (which DuckDB's buffer manager holds or spills).
pub const APPENDER_FLUSH_ROWS: u64 = 8_192;

/// Bytes appended between two flushes of the appender, at most (plus one
/// row): rows of big objects (Pods of several KiB, or a 60 MiB line) would
/// otherwise be held [`APPENDER_FLUSH_ROWS`] at a time in its buffer.
pub const APPENDER_FLUSH_BYTES: u64 = 16 << 20;

/// An open ingest run. Stage records with [`RunWriter::stage`], then
/// [`RunWriter::commit`].
pub struct RunWriter<'s> {
    store: &'s Store,
    /// `None` only while a batch is being committed.
    appender: Option<Appender<'s>>,
    run_id: i64,
    started_at: DateTime<Utc>,
    seq: i64,
    /// Totals of the batches committed so far.
    committed: RunCounts,
    /// Records staged since the last batch commit.
    pending: u64,
    /// Bytes of objects (and their models) staged since the last batch commit.
    pending_bytes: u64,
    /// Bytes appended since the appender's last flush.
    unflushed_bytes: u64,
    /// The rows appended since the appender's last flush, outside a held
    /// transaction: staged again if the flush runs out of memory (`staging`).
    unflushed: Vec<(StagingRow, Origin)>,
    /// The run's location (for the error row of a failed run).
    location: String,
    /// Input errors as of the last commit (for the counts of a failed run).
    errors: u64,
    /// The first store error met, with its causes (for a failed run).
    failure: Option<String>,
    /// Input errors noted ([`RunWriter::note_error`]) and not yet written:
    /// they go into `ingest_errors` with the next commit.
    unwritten: Vec<ErrorRow>,
    /// `ingest_files` rows ([`RunWriter::record_file`]) waiting for the
    /// final commit: a file's summary is stored with its records, or not
    /// at all.
    files: Vec<FileRow>,
    /// Input errors noted since the run began (written or not).
    noted: u64,
    /// The objects left out of the run so far, too big for DuckDB under
    /// the memory limit (`split`): written to `ingest_errors` as they are
    /// met, and counted in the run's errors on top of the caller's.
    rejected: Vec<Rejected>,
    /// Committed or abandoned: nothing left to close.
    closed: bool,
    /// The run's one transaction, when it has one ([`RunWriter::hold_transaction`]):
    /// batches are moved into the store inside it, and it commits with the run.
    held: Option<TransactionGuard<'s>>,
    /// Totals of the batches moved inside `held`, not committed yet.
    moved: RunCounts,
    /// The held transaction was given up at a big object (`held`): the
    /// batches moved before it are committed, and the run goes on batch
    /// by batch.
    released: bool,
    /// Asked before each statement of the final commit: `true` stops it
    /// ([`RunWriter::stop_final_commit_when`]).
    stop: Option<Box<dyn Fn() -> bool + Send + 's>>,
    /// DuckDB on one thread while the run is open (dropped last, after the
    /// run is closed).
    _threads: WriterThreads<'s>,
}

/// Lowers DuckDB to one thread for as long as it lives (`writer_threads.sql`:
/// kdrift's own threads prepare the records on every core), then gives it
/// its default back (`reset_threads.sql`).
struct WriterThreads<'s> {
    store: &'s Store,
}

impl<'s> WriterThreads<'s> {
    fn lower(store: &'s Store) -> Result<Self, StoreError> {
        store.batch(&sql::WRITER_THREADS)?;
        Ok(WriterThreads { store })
    }
}

impl Drop for WriterThreads<'_> {
    fn drop(&mut self) {
        // A store too broken to take a SET is reported by whatever broke
        // it; the thread count only matters to later statements.
        let _ = self.store.batch(&sql::RESET_THREADS);
    }
}

/// One `ingest_errors` row waiting for a commit.
#[derive(Debug)]
pub(crate) struct ErrorRow {
    location: String,
    line: Option<u64>,
    column: Option<u64>,
    item: Option<u64>,
    message: String,
}

/// A run its writer could not close as `failed` (every statement failed:
/// the connection is broken, e.g. a fatal DuckDB error invalidated the
/// database), closed by the store when it is dropped ([`close_left_runs`]).
#[derive(Debug)]
pub(crate) struct LeftRun {
    run_id: i64,
    location: String,
    /// Its input errors not yet written.
    rows: Vec<ErrorRow>,
    /// Why it ended (an `ingest_errors` row after `rows`), if it was aborted.
    message: Option<String>,
    /// The counts of its committed batches.
    done: RunCounts,
    /// Its error count once closed.
    errors: u64,
}

/// How many times closing a run as `failed` is tried, each after a
/// rollback: once more than one interrupt can fail (an interrupt is cleared
/// by the statement it fails).
const CLOSE_TRIES: usize = 3;

/// One `ingest_files` row waiting for the run's commit (`record_file.sql`'s
/// columns after the run id).
#[derive(Debug)]
struct FileRow {
    location: String,
    format: String,
    records: u64,
    events: u64,
    objects: u64,
    skipped: u64,
    errors: u64,
}

/// The schema v4 usage columns of a staged pod version (all NULL for other kinds).
#[derive(Debug, Default, Clone)]
pub(super) struct UsageColumns {
    pub(super) usage_node: Option<String>,
    pub(super) cpu: Option<i64>,
    pub(super) memory: Option<i64>,
    pub(super) other: Option<String>,
    pub(super) model_error: Option<String>,
    /// Schema v10: `metadata.labels` (JSON text) and whether the filters
    /// need the whole pod ([`kdrift_rebalance::filter_fields`]).
    pub(super) labels: Option<String>,
    pub(super) scheduling_terms: Option<bool>,
}

impl UsageColumns {
    /// The columns of one pod object (its model fields or the whole object).
    pub(super) fn of(pod: &serde_json::Value) -> UsageColumns {
        match pod_usage_fields(pod) {
            Ok(f) => UsageColumns {
                usage_node: f.usage_node,
                cpu: Some(f.cpu),
                memory: Some(f.memory),
                other: f.other,
                model_error: None,
                labels: f.labels,
                scheduling_terms: Some(f.scheduling_terms),
            },
            Err(e) => UsageColumns { model_error: Some(e), ..UsageColumns::default() },
        }
    }
}

fn micros(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}

impl<'s> RunWriter<'s> {
    /// Starts a run: records it in `ingest_runs` (status `running`) and opens
    /// the staging appender.
    ///
    /// # Errors
    /// [`StoreError`] when the run row or the appender cannot be created.
    pub fn begin(store: &'s Store, source_kind: &str, location: &str) -> Result<Self, StoreError> {
        let started_at = Utc::now();
        let threads = WriterThreads::lower(store)?;
        store.batch(&sql::CREATE_STAGING)?;
        store.execute(&sql::CLEAR_STAGING, [])?;
        let run_id: i64 = store.query_one(
            &sql::BEGIN_RUN,
            params![source_kind, location, micros(started_at), env!("CARGO_PKG_VERSION")],
            |r| r.get(0),
        )?;
        let mut writer = RunWriter {
            store,
            appender: None,
            run_id,
            started_at,
            seq: 0,
            committed: RunCounts::default(),
            pending: 0,
            pending_bytes: 0,
            unflushed_bytes: 0,
            unflushed: Vec::new(),
            location: location.to_string(),
            errors: 0,
            failure: None,
            unwritten: Vec::new(),
            files: Vec::new(),
            noted: 0,
            rejected: Vec::new(),
            closed: false,
            held: None,
            moved: RunCounts::default(),
            released: false,
            stop: None,
            _threads: threads,
        };
        // From here on, a failure closes the run as `failed` (see `Drop`).
        writer.appender = Some(writer.remember(open_appender(store))?);
        Ok(writer)
    }

    /// Passes `result` on, remembering the first store error's text for the
    /// run's error row should the run end failed.
    fn remember<T>(&mut self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(e) = &result {
            if self.failure.is_none() {
                self.failure = Some(error_chain(e));
            }
        }
        result
    }

    /// Records staged and not yet committed.
    pub fn pending(&self) -> u64 {
        self.pending
    }

    /// Bytes staged and not yet committed: each object's compact JSON plus
    /// its model columns (what the staging table holds for it). Callers
    /// that commit in batches bound a batch by this as well as by records
    /// (`kdrift_ingest::ndjson_stream::BATCH_BYTES`): a few large objects weigh
    /// as much as many events.
    pub fn pending_bytes(&self) -> u64 {
        self.pending_bytes
    }

    /// The most bytes of objects a batch should stage before the caller
    /// commits or moves it, under the store's memory limit
    /// ([`crate::batch_bytes_within`]): callers bound their batches by the
    /// smaller of this and their own byte bound.
    pub fn max_batch_bytes(&self) -> u64 {
        crate::batch_bytes_within(self.store.memory_limit())
    }

    /// This run's id.
    pub fn run_id(&self) -> i64 {
        self.run_id
    }

    /// The totals of the batches committed so far ([`RunWriter::commit_batch`]).
    pub fn committed(&self) -> RunCounts {
        self.committed
    }

    /// When the run started: the observation time of a record that carries
    /// none and holds no timestamp ([`super::prepare::prepare`]'s fallback).
    pub fn started_at(&self) -> DateTime<Utc> {
        self.started_at
    }

    /// Makes the run's final commit ([`RunWriter::commit`]) ask
    /// `requested()` before each of its statements and before DuckDB's
    /// COMMIT, and stop with [`StoreError::Interrupted`] when it holds:
    /// the transaction is rolled back whole and the run closed as failed.
    /// A store interrupt ([`Store::interrupt_handle`]) stops only the
    /// statement running: one that came between two statements was lost,
    /// and the run was kept. Batches ([`RunWriter::commit_batch`]) do not
    /// ask (a recorder stopping commits its last batch).
    pub fn stop_final_commit_when(&mut self, requested: impl Fn() -> bool + Send + 's) {
        self.stop = Some(Box::new(requested));
    }

    /// Stages one record ([`super::prepare::prepare`] then
    /// [`RunWriter::append`]).
    ///
    /// # Errors
    /// `Ok(Err(IdentityError))` when the record is not a storable object (the
    /// caller reports it and goes on); `Err(StoreError)` when the store fails.
    pub fn stage(&mut self, record: Record) -> Result<Result<(), IdentityError>, StoreError> {
        let prepared = prepare(record, self.started_at);
        match prepared.row {
            Ok(row) => self.append(&row, &prepared.origin).map(Ok),
            Err(e) => Ok(Err(e)),
        }
    }

    /// Appends one prepared row (read at `origin`) to the staging table.
    ///
    /// # Errors
    /// [`StoreError::Append`] when the appender fails.
    pub fn append(&mut self, row: &StagingRow, origin: &Origin) -> Result<(), StoreError> {
        let appended = self.append_row(row, origin);
        self.remember(appended)
    }

    fn append_row(&mut self, row: &StagingRow, origin: &Origin) -> Result<(), StoreError> {
        self.stage_row(row, origin)
    }

    /// Appends `row` as staged row `seq` to the Appender's buffer (opened
    /// when there is none).
    ///
    /// # Errors
    /// [`StoreError::Append`] (or out of memory) when the appender fails.
    fn append_to_appender(&mut self, seq: i64, row: &StagingRow, origin: &Origin) -> Result<(), StoreError> {
        let line = origin.line.map(|l| l as i64);
        let appender = match &mut self.appender {
            Some(a) => a,
            None => self.appender.insert(open_appender(self.store)?),
        };
        let (id, usage) = (&row.identity, &row.usage);
        appender
            .append_row(params![
                seq,
                row.observed_at,
                row.estimated,
                row.change.as_str(),
                id.kind,
                id.api_version,
                id.namespace,
                id.name,
                id.uid,
                id.resource_version,
                row.hash,
                origin.location,
                line,
                row.json,
                row.model,
                usage.usage_node,
                usage.cpu,
                usage.memory,
                usage.other,
                usage.model_error,
                usage.labels,
                usage.scheduling_terms,
                fields_value(row.fields.as_deref()),
                None::<i64>,
                origin.item.map(|i| i as i64),
                row.json.len() as i64,
            ])
            .map_err(|source| self.store.append_failed("staging_observations", source))
    }

    /// Records one per-file summary row (records, events and other objects
    /// read, files skipped, input errors). It is written in the transaction
    /// of the next commit, with the records it counts: a run killed, failed
    /// or abandoned before that keeps no summary of records it did not
    /// store.
    #[allow(clippy::too_many_arguments)]
    pub fn record_file(
        &mut self,
        location: &str,
        format: &str,
        records: u64,
        events: u64,
        objects: u64,
        skipped: u64,
        errors: u64,
    ) {
        self.files.push(FileRow {
            location: location.to_string(),
            format: format.to_string(),
            records,
            events,
            objects,
            skipped,
            errors,
        });
    }

    /// Notes one input error (file or resource `location`, 1-based `line`
    /// and `column`, 0-based list `item`): it is written to `ingest_errors`
    /// in the same transaction as the next batch commit (or the final one),
    /// so a run killed later keeps the errors of the batches it committed.
    /// A run abandoned or aborted writes what it noted as it closes.
    pub fn note_error(
        &mut self,
        location: &str,
        line: Option<u64>,
        column: Option<u64>,
        item: Option<u64>,
        message: &str,
    ) {
        self.noted += 1;
        self.unwritten.push(ErrorRow {
            location: location.to_string(),
            line,
            column,
            item,
            // It may quote a file's or a server's text (issue 34).
            message: kdrift_rebalance::mask_shown(message),
        });
    }

    /// Input errors noted with [`RunWriter::note_error`] since the run began.
    pub fn errors_noted(&self) -> u64 {
        self.noted
    }

    /// Commits the records staged since the last batch in one transaction
    /// (new versions into `observations`, derived tables, the run's counts),
    /// leaving the run open (`running`). A crash after it keeps the batch.
    /// Returns the totals so far. A batch DuckDB runs out of memory
    /// committing is committed in parts, and an object too big for the
    /// memory limit alone is left out as an input error of the run
    /// ([`Rejected`], [`RunWriter::rejected`]).
    ///
    /// # Errors
    /// [`StoreError`] (not running out of memory, unless fatal); the
    /// transaction is rolled back, and what is left of the batch stays
    /// staged and goes with the next commit (the parts committed before
    /// stay).
    pub fn commit_batch(&mut self, errors: u64) -> Result<RunCounts, StoreError> {
        let committed = self.commit_staged(None, errors, |_, _| Ok(()));
        self.remember(committed)?;
        let appender = open_appender(self.store);
        self.appender = Some(self.remember(appender)?);
        Ok(self.committed)
    }

    /// Flushes the appender and moves the staged rows into `observations`
    /// with their derived rows, then updates the run row (closed with
    /// `finish`'s status, else its progress counts), in one transaction.
    /// Updates `committed`. When DuckDB runs out of memory doing so outside
    /// a held transaction, the batch is stored in parts (`split`), then the
    /// run row is updated (and `also` run) with nothing left staged.
    fn commit_staged<F>(&mut self, finish: Option<RunStatus>, errors: u64, also: F) -> Result<(), StoreError>
    where
        F: FnOnce(&Store, i64) -> Result<(), StoreError>,
    {
        let started = std::time::Instant::now();
        // Rows lost by a flush out of memory are staged again (`staging`).
        self.flush_staged()?;
        self.appender = None;
        tracing::trace!(ms = started.elapsed().as_secs_f64() * 1e3, "appender flushed");
        self.errors = errors;
        let mut also = Some(also);
        // A failed statement loses a held transaction whole (DuckDB has no
        // savepoints): nothing of it could be tried again.
        let splittable = self.held.is_none();
        let staged = self.staged_seqs();
        match self.store_seqs(staged, finish, false, &mut also, started) {
            Err(e) if splittable && self.pending > 0 && also.is_some() && split::worth_splitting(&e) => {
                self.store_in_parts(staged, finish.is_some(), Some(&e))?;
                self.store_seqs(self.staged_seqs(), finish, false, &mut also, started)
            }
            done => done,
        }
    }

    /// The first and last `seq` of the rows staged (the last `pending`
    /// appended: a batch's rows are committed from its first on); an empty
    /// range when none are.
    fn staged_seqs(&self) -> (i64, i64) {
        (self.seq - self.pending as i64 + 1, self.seq)
    }

    /// The transaction of [`RunWriter::commit_staged`] for the staged rows
    /// with seq in `from..=to`. A `part` of a batch ([`RunWriter::store_in_parts`])
    /// updates only the run's progress counts: the errors and file rows
    /// noted, and `also`, wait for the batch's own commit.
    fn store_seqs<F>(
        &mut self,
        (from, to): (i64, i64),
        finish: Option<RunStatus>,
        part: bool,
        also: &mut Option<F>,
        started: std::time::Instant,
    ) -> Result<(), StoreError>
    where
        F: FnOnce(&Store, i64) -> Result<(), StoreError>,
    {
        let store = self.store;
        let rows = (to - from + 1).max(0) as u64;
        let finish = finish.filter(|_| !part);
        // Inside the run's held transaction, a batch is moved, not committed.
        let moving = self.held.is_some() && finish.is_none();
        let tx = match self.held.take() {
            Some(tx) => tx,
            None => TransactionGuard::begin(store)?,
        };
        let after: i64 = store.query_one(&sql::MAX_OBS_ID, [], |r| r.get(0))?;
        // The final commit stops at the next statement once its run is
        // asked to stop (DuckDB's interrupt stops only a running one).
        let stop = if finish.is_some() { self.stop.as_deref() } else { None };
        let stopped = || if stop.is_some_and(|requested| requested()) { Err(StoreError::Interrupted) } else { Ok(()) };
        let run_id = self.run_id;
        let derive = |q: &NamedQuery| -> Result<usize, StoreError> {
            stopped()?;
            store.execute(q, params![run_id, after])
        };
        stopped()?;
        store.execute(&sql::NUMBER_STAGED, [from, to])?;
        stopped()?;
        let added = store.execute(&sql::COMMIT_OBSERVATIONS, [run_id])? as u64;
        for q in [
            &sql::DERIVE_EVENT_VERSIONS,
            &sql::DERIVE_REPLICA_SET_SCALINGS,
            &sql::DERIVE_POD_VERSIONS,
            &sql::DERIVE_NODE_VERSIONS,
            &sql::DERIVE_NAME_INDEX,
            &sql::DERIVE_POD_NAMESPACES,
            &sql::DERIVE_POD_INTERVALS,
            &sql::DERIVE_POD_FIRST_SEEN_LATE,
            &sql::DERIVE_NODE_INTERVALS,
            // Only the bindings and eviction evidence of the pods this batch names change.
            &sql::CLEAR_POD_BINDINGS,
        ] {
            derive(q)?;
        }
        let bindings = derive(&sql::DERIVE_POD_BINDINGS)?;
        stopped()?;
        store.execute(&sql::POD_BINDINGS_APPENDED, [bindings as i64])?;
        // The eviction evidence, and the signals of the nodes it names;
        // the requested amounts from the batch's earliest pod version on.
        let evidence = [&sql::CLEAR_EVICTION_EVIDENCE, &sql::DERIVE_EVICTION_EVIDENCE];
        let signals = [&sql::CLEAR_NODE_SIGNALS, &sql::DERIVE_NODE_SIGNALS];
        for q in evidence.into_iter().chain(signals).chain(super::REQUESTED_DERIVATIONS) {
            derive(q)?;
        }
        stopped()?;
        store.execute(&sql::CLEAR_STAGED, [from, to])?;
        let mut c = self.moved;
        c.records += rows;
        c.added += added;
        c.duplicates += rows.saturating_sub(added);
        if moving {
            tracing::debug!(rows, added, ms = started.elapsed().as_secs_f64() * 1e3, "batch moved");
            self.held = Some(tx);
            self.moved = c;
            self.pending = 0;
            self.pending_bytes = 0;
            self.unflushed_bytes = 0;
            return Ok(());
        }
        if !part {
            write_errors(store, self.run_id, &self.unwritten)?;
            write_files(store, self.run_id, &self.files, &self.rejected)?;
        }
        // The objects left out are input errors of the run too.
        let errors = self.errors + self.rejected.len() as u64;
        let (records, duplicates, errors) = (c.records as i64, c.duplicates as i64, errors as i64);
        match finish {
            Some(status) => {
                let status = split::closing_status(status, self.rejected.len(), c.records);
                store.execute(
                    &sql::FINISH_RUN,
                    params![self.run_id, status.as_str(), micros(Utc::now()), records, duplicates, errors],
                )?
            }
            None => store.execute(&sql::RUN_PROGRESS, params![self.run_id, records, duplicates, errors])?,
        };
        if !part {
            if let Some(also) = also.take() {
                also(store, self.run_id)?;
            }
        }
        stopped()?;
        tx.commit()?;
        let what = if part { "part of a batch committed" } else { "batch committed" };
        tracing::debug!(rows, added, ms = started.elapsed().as_secs_f64() * 1e3, "{what}");
        self.committed = c;
        self.moved = c;
        self.pending -= rows;
        if !part {
            self.pending_bytes = 0;
            self.unflushed_bytes = 0;
            self.unwritten.clear();
            self.files.clear();
            // What the batch's deleted staging rows hold is freed (`staging`).
            // The batch is committed: a failure here (an interrupt that came
            // after COMMIT) costs memory only, and the next Appender makes
            // the table again if it is missing (`open_appender`).
            if let Err(e) = self.reset_staging() {
                tracing::debug!(%e, "the staging table was not made anew");
            }
        }
        Ok(())
    }

    /// Flushes the staged rows, then in one transaction moves the new versions
    /// into `observations`, derives `event_versions`, `pod_versions` and
    /// `node_versions` for them, and closes the run with `status` and
    /// `errors` input errors (the caller's; the objects left out, too big
    /// for the memory limit, are added: [`Committed`]). Returns the counts
    /// (over every batch of the run), the number of new versions per
    /// location, and the objects left out.
    ///
    /// When DuckDB runs out of memory (outside a held transaction), the
    /// staged rows are committed in parts first, each its own transaction,
    /// and the run closed after them ([`Rejected`]): an interrupt asked for
    /// meanwhile ([`RunWriter::stop_final_commit_when`]) keeps the parts
    /// committed.
    ///
    /// # Errors
    /// [`StoreError`]; the transaction is rolled back and the run is closed
    /// as `failed`, with the error in `ingest_errors` (batches committed
    /// before stay).
    pub fn commit(self, status: RunStatus, errors: u64) -> Result<Committed, StoreError> {
        self.commit_with(status, errors, |_, _| Ok(()))
    }

    /// [`RunWriter::commit`], running `also(store, run_id)` inside the same
    /// transaction (a source's progress row commits with its data, or
    /// neither does).
    ///
    /// # Errors
    /// [`StoreError`], from the commit or from `also`; everything is rolled
    /// back and the run is closed as `failed` ([`RunWriter::commit`]).
    pub fn commit_with(
        mut self,
        status: RunStatus,
        errors: u64,
        also: impl FnOnce(&Store, i64) -> Result<(), StoreError>,
    ) -> Result<Committed, StoreError> {
        let committed = self.commit_staged(Some(status), errors, also);
        self.remember(committed)?;
        self.closed = true;
        let store = self.store;
        let run_id = self.run_id;
        let counts = self.committed;
        let per_location = store.query_map(&sql::RUN_ADDED_BY_LOCATION, [run_id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })?;
        let status = split::closing_status(status, self.rejected.len(), counts.records);
        Ok(Committed { counts, per_location, status, rejected: std::mem::take(&mut self.rejected) })
    }

    /// The objects left out of the run so far ([`Rejected`]), already
    /// written to `ingest_errors` and counted in the run's errors: for a
    /// caller's report of a run it abandons ([`RunWriter::abandon`]).
    pub fn rejected(&self) -> &[Rejected] {
        &self.rejected
    }
}

impl RunWriter<'_> {
    /// Gives the run up: nothing staged is kept, the input errors noted and
    /// not yet written are written, and the run is closed as `failed` with
    /// `errors`, the number of input errors it met, plus the objects it
    /// left out ([`RunWriter::rejected`]) (instead of staying `running`,
    /// which means a crash).
    ///
    /// # Errors
    /// [`StoreError`] when the store fails (the run is then closed when the
    /// store is dropped, on a connection of its own, or by the next open
    /// for writing).
    pub fn abandon(mut self, errors: u64) -> Result<(), StoreError> {
        self.close_failed(None, errors)
    }

    /// Closes the run as `failed` with `errors` input errors: the staged
    /// rows dropped, the run's held transaction and whatever transaction
    /// a failed statement left open rolled back ([`roll_back`]), then in one
    /// transaction the input errors noted and not written, `message` (why
    /// the run was aborted) and the run's row (the counts of its committed
    /// batches). Tried [`CLOSE_TRIES`] times; when every try fails the run
    /// is left to the store's `Drop` ([`LeftRun`]) and the last error returned.
    fn close_failed(&mut self, message: Option<String>, errors: u64) -> Result<(), StoreError> {
        self.closed = true;
        let (store, run_id, done) = (self.store, self.run_id, self.committed);
        drop(self.appender.take());
        self.unflushed.clear();
        // The run's held transaction, if any, is rolled back (by `roll_back`
        // below, which tries again): none of its batches stay.
        if let Some(mut held) = self.held.take() {
            held.done = true;
        }
        let rows = std::mem::take(&mut self.unwritten);
        // The objects left out are input errors of the run too (written when left out).
        let errors = errors + self.rejected.len() as u64;
        let mut last = None;
        for _ in 0..CLOSE_TRIES {
            roll_back(store);
            match close_failed_run(store, run_id, &self.location, &rows, message.as_deref(), done, errors) {
                Ok(()) => return Ok(()),
                Err(e) => {
                    tracing::debug!(run_id, "closing the run as failed failed: {}", error_chain(&e));
                    last = Some(e);
                }
            }
        }
        roll_back(store);
        store.left_open.borrow_mut().push(LeftRun {
            run_id,
            location: self.location.clone(),
            rows,
            message,
            done,
            errors,
        });
        Err(last.unwrap_or(StoreError::Interrupted))
    }
}

/// In one transaction (a process killed while it closes the run leaves it
/// `running` with its error rows and count still equal): the staging table
/// emptied, `rows` and `message` written to `ingest_errors`, and run
/// `run_id` closed as `failed` ([`finish_failed`]).
fn close_failed_run(
    store: &Store,
    run_id: i64,
    location: &str,
    rows: &[ErrorRow],
    message: Option<&str>,
    done: RunCounts,
    errors: u64,
) -> Result<(), StoreError> {
    let tx = TransactionGuard::begin(store)?;
    store.execute(&sql::CLEAR_STAGING, [])?;
    write_closing_rows(store, run_id, location, rows, message)?;
    // Batches committed before (a recorder's) stay, and are counted.
    finish_failed(store, run_id, done, errors)?;
    tx.commit()
}

/// `rows` then `message` (if any) as `ingest_errors` rows of run `run_id`.
fn write_closing_rows(
    store: &Store,
    run_id: i64,
    location: &str,
    rows: &[ErrorRow],
    message: Option<&str>,
) -> Result<(), StoreError> {
    write_errors(store, run_id, rows)?;
    if let Some(message) = message {
        store.execute(&sql::RECORD_ERROR, params![run_id, location, None::<i64>, None::<i64>, None::<i64>, message])?;
    }
    Ok(())
}

/// Closes, on `store` (a connection opened again after the one their
/// writers had broke), the runs those writers could not close
/// ([`LeftRun`]), each in its own transaction: its input errors and why it
/// ended in `ingest_errors`, its row `failed`. A run already closed (by
/// another process's open, in between) is left as it is.
///
/// # Errors
/// [`StoreError`] of the first run that could not be closed.
pub(crate) fn close_left_runs(store: &Store, runs: &[LeftRun]) -> Result<(), StoreError> {
    for run in runs {
        let still_running: i64 = store.query_one(&sql::RUN_IS_RUNNING, [run.run_id], |r| r.get(0))?;
        if still_running == 0 {
            continue;
        }
        let tx = TransactionGuard::begin(store)?;
        write_closing_rows(store, run.run_id, &run.location, &run.rows, run.message.as_deref())?;
        finish_failed(store, run.run_id, run.done, run.errors)?;
        tx.commit()?;
        tracing::debug!(run_id = run.run_id, "closed as failed on a connection opened again");
    }
    Ok(())
}

/// Rolls back the transaction the store's connection has open, if any (a
/// statement that failed in a batch's transaction leaves it open, aborted,
/// and every later statement on the connection fails until it is rolled
/// back). Tried again when the ROLLBACK itself fails: DuckDB keeps an
/// interrupt that came between two statements of a transaction until a
/// statement fails with it, which may be this ROLLBACK (issue 34 F9: a
/// SIGTERM in a recorder's batch commit left the transaction open, the
/// statements closing the run failed in it, and the run stayed `running`).
pub(crate) fn roll_back(store: &Store) {
    for _ in 0..CLOSE_TRIES {
        match store.conn.execute_batch(sql::TX_ROLLBACK.sql) {
            Ok(()) => return,
            // Nothing was open (DuckDB: "cannot rollback - no transaction is active").
            Err(e) if e.to_string().contains("no transaction is active") => return,
            Err(e) => tracing::debug!("{}", query_error(&sql::TX_ROLLBACK, e)),
        }
    }
}

/// Closes run `run_id` as `failed` with the counts of its committed batches
/// and `errors` input errors.
fn finish_failed(store: &Store, run_id: i64, done: RunCounts, errors: u64) -> Result<(), StoreError> {
    store.execute(
        &sql::FINISH_RUN,
        params![
            run_id,
            RunStatus::Failed.as_str(),
            micros(Utc::now()),
            done.records as i64,
            done.duplicates as i64,
            errors as i64
        ],
    )?;
    Ok(())
}

impl Drop for RunWriter<'_> {
    /// A run neither committed nor abandoned was aborted by an error (or a
    /// panic): it is closed as `failed`, with the store error's text as an
    /// error row, rather than left `running` like a killed process's. What
    /// was staged is dropped; batches committed before stay and are counted.
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        let message = match &self.failure {
            Some(text) => format!("run aborted by a store error: {text}"),
            None => "run aborted before it was committed".to_string(),
        };
        let errors = self.errors.max(self.noted) + 1;
        // The error that aborted the run is what the caller reports; a run
        // this cannot close is closed by the store's `Drop`.
        let _ = self.close_failed(Some(message), errors);
    }
}

/// Writes the `ingest_errors` rows of run `run_id`, in line order, through an
/// Appender (in the connection's open transaction, if any): one INSERT per
/// row took ~3 ms, minutes for a file with tens of thousands of bad lines.
/// The columns are `record_error.sql`'s.
fn write_errors(store: &Store, run_id: i64, rows: &[ErrorRow]) -> Result<(), StoreError> {
    if rows.is_empty() {
        return Ok(());
    }
    let failed = |source| store.append_failed("ingest_errors", source);
    // In line order within each location (locations in the order they were
    // met): a chunk's parse errors are noted before its records' model problems.
    let mut first_seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut ordered: Vec<(usize, u64, &ErrorRow)> = rows
        .iter()
        .map(|e| {
            let next = first_seen.len();
            (*first_seen.entry(e.location.as_str()).or_insert(next), e.line.unwrap_or(0), e)
        })
        .collect();
    ordered.sort_by_key(|&(at, line, _)| (at, line));
    let mut appender = store.conn.appender("ingest_errors").map_err(failed)?;
    for (_, _, e) in ordered {
        appender
            .append_row(params![
                run_id,
                e.location,
                e.line.map(|v| v as i64),
                e.column.map(|v| v as i64),
                e.item.map(|v| v as i64),
                e.message
            ])
            .map_err(failed)?;
    }
    appender.flush().map_err(failed)
}

/// Writes the `ingest_files` rows of run `run_id` (a handful per run: one
/// INSERT each, in the connection's open transaction), each with the
/// objects of its location that were left out (`rejected`) moved from its
/// records to its errors. The rows are recorded once, before the run's
/// final commit: every object left out is known then, or met by that
/// commit itself before it writes them.
fn write_files(store: &Store, run_id: i64, rows: &[FileRow], rejected: &[Rejected]) -> Result<(), StoreError> {
    for f in rows {
        let mut f = FileRow { location: f.location.clone(), format: f.format.clone(), ..*f };
        for r in rejected.iter().filter(|r| r.origin.location == f.location) {
            f.records = f.records.saturating_sub(1);
            if r.is_event() {
                f.events = f.events.saturating_sub(1);
            } else {
                f.objects = f.objects.saturating_sub(1);
            }
            f.errors += 1;
        }
        store.execute(
            &sql::RECORD_FILE,
            params![
                run_id,
                f.location,
                f.format,
                f.records as i64,
                f.events as i64,
                f.objects as i64,
                f.skipped as i64,
                f.errors as i64
            ],
        )?;
    }
    Ok(())
}

/// An error with its causes, `: `-separated (the driver's text included).
fn error_chain(e: &StoreError) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// The `fields` column of a staged row: a VARCHAR list, or NULL.
fn fields_value(fields: Option<&[Option<String>]>) -> duckdb::types::Value {
    use duckdb::types::Value;
    match fields {
        None => Value::Null,
        Some(f) => Value::List(f.iter().map(|v| v.as_ref().map_or(Value::Null, |t| Value::Text(t.clone()))).collect()),
    }
}

/// The staging table's Appender; the table made first if it is missing
/// (dropped by `staging`'s reset, whose CREATE failed): else the Appender
/// would find the store's own `staging_observations`, which it shadows.
fn open_appender(store: &Store) -> Result<Appender<'_>, StoreError> {
    store.batch(&sql::CREATE_STAGING)?;
    store.conn.appender("staging_observations").map_err(|source| store.append_failed("staging_observations", source))
}

/// BEGIN … COMMIT on the store's connection, rolled back when dropped
/// uncommitted.
pub(super) struct TransactionGuard<'s> {
    store: &'s Store,
    done: bool,
}

impl<'s> TransactionGuard<'s> {
    pub(super) fn begin(store: &'s Store) -> Result<Self, StoreError> {
        store.batch(&sql::TX_BEGIN)?;
        Ok(TransactionGuard { store, done: false })
    }

    /// COMMIT; when it fails, whatever it left open is rolled back
    /// ([`roll_back`]), so that the connection takes statements again.
    pub(super) fn commit(mut self) -> Result<(), StoreError> {
        self.done = true;
        let committed = self.store.batch(&sql::TX_COMMIT);
        if committed.is_err() {
            roll_back(self.store);
        }
        committed
    }
}

impl Drop for TransactionGuard<'_> {
    fn drop(&mut self) {
        if !self.done {
            // Nothing more can be done about a failed rollback while unwinding
            // from the error that brought us here (tried again: `roll_back`);
            // that error is what the caller sees.
            roll_back(self.store);
        }
    }
}
