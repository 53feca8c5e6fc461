//! The kdrift store: one DuckDB file, event-sourced and append-only, and
//! the only code of kdrift that touches DuckDB.
//!
//! It owns the schema and its migrations, every named SQL file (under
//! `queries/<area>/`, registered in [`sql`]), the registry behind
//! `kdrift query` ([`list_queries`], [`run_query`]), the connection,
//! transactions, the bulk loads (DuckDB's Appender, [`RunWriter`]) and the
//! mapping of rows into plain structs. `kdrift-ingest` writes through it
//! and `kdrift-analyze` reads through it ([`Reader`]: a [`Store`] derefs
//! to one, and it cannot write); neither names `duckdb::`. [`Store`] owns
//! the connection, creates or migrates the schema, and maps driver errors
//! to [`StoreError`] naming the query that failed.
//!
//! Modules are private; the API is the `pub use` block below:
//! - `record`: one object version on its way into the store ([`Record`]) and its identity ([`identify`]);
//! - `prepare`: a record made into its staging row ([`prepare()`], pure CPU work, on every core);
//! - `writer`: one ingest run, staged and committed ([`RunWriter`]); a batch too big for the memory limit
//!   committed in parts, an object too big alone left out as an input error ([`Rejected`], issue 34);
//! - `instant`: instants as users type them ([`parse_instant`]: RFC 3339 or UTC microseconds);
//! - `parallel`: an order-keeping parallel map ([`map_ordered`]);
//! - `columns`: results of 100,000+ rows read column by column ([`Batches`]);
//! - `drain_moves`: the drain moves kept after every ingest ([`Store::keep_drain_moves`],
//!   matched by `kdrift-analyze`);
//! - `run_checks`: what a committed run stored that its user should hear about;
//! - `record_mask`: credentials masked in every record before it is staged;
//! - `usage`: measured usage samples (schema v17), one window committed atomically ([`Store::commit_usage`]);
//! - `memory`: DuckDB's memory limit and temporary directory for one open store ([`OpenOptions`], issue 39);
//! - `migration_progress`: each step of migrating an existing store, told to the caller ([`MigrationProgress`]);
//! - `remodel`: every stored pod version's model derived again from its object (migration 16);
//! - [`Row`], [`Param`], [`params!`]: what callers of a named query see of a row and its parameters;
//! - `test_support` (feature `test-support`): raw SQL for the tests of other crates.

mod catalog;
mod columns;
mod drain_moves;
mod fields;
mod instant;
mod memory;
mod migration_progress;
mod parallel;
mod prepare;
mod reader;
mod record;
mod record_mask;
mod remodel;
mod row;
mod run_checks;
pub mod sql;
#[cfg(feature = "test-support")]
pub mod test_support;
mod usage;
mod versions;
mod writer;

use std::path::{Path, PathBuf};

use duckdb::{Connection, Params};

pub use catalog::{list_queries, run_query, CatalogError, ParamKind, ParamSpec, QueryInfo, QueryResult};
pub use columns::{Batches, Bools, Columns, Int32s, Int64s, Text, Times};
pub use drain_moves::{DrainMovesToKeep, KeptEpisode, KeptMove, KeptMoves, KeptReplacement};
pub use instant::{instant_text, parse_instant, plausible_range, time_of_day_text, InstantError, InstantListError};
pub use memory::{
    batch_bytes_within, size_text, temp_directory, DuckDbOutOfMemory, OpenOptions, DEFAULT_MEMORY_LIMIT,
    MIN_MEMORY_LIMIT,
};
pub use migration_progress::{MigrationProgress, NoMigrationProgress};
pub use parallel::map_ordered;
pub use prepare::{prepare, prepare_all, Prepared, StagingRow};
pub use reader::Reader;
pub use record::{
    check_identity_types, identify, is_kubeconfig, json_kind, Change, Identity, IdentityError, Origin, Record,
};
pub use row::{ColumnIndex, FromColumn, Param, Row, RowError};
pub use run_checks::NodeUids;
pub use sql::NamedQuery;
pub use usage::{UsageCommit, UsageKind, UsageSample, UsageSource, UsageWindow};
pub use versions::{duckdb_version, file_schema_version};
pub use writer::{Committed, Rejected, RunCounts, RunStatus, RunWriter, APPENDER_FLUSH_ROWS};

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = 18;

/// The `ingest_errors` message of a run closed by [`Store::open`] because
/// the process that ran it ended without closing it.
pub const ABANDONED_RUN_MESSAGE: &str = "the run was never closed: the process running it ended first (killed, \
     interrupted, or a fatal store error); closed as failed when the store was next opened for writing";

/// The migration to each version after 1, in order: `(version, DDL)`.
const MIGRATIONS: &[(i64, &NamedQuery)] = &[
    (2, &sql::SCHEMA_V2),
    (3, &sql::SCHEMA_V3),
    (4, &sql::SCHEMA_V4),
    (5, &sql::SCHEMA_V5),
    (6, &sql::SCHEMA_V6),
    (7, &sql::SCHEMA_V7),
    (8, &sql::SCHEMA_V8),
    (9, &sql::SCHEMA_V9),
    (10, &sql::SCHEMA_V10),
    (11, &sql::SCHEMA_V11),
    (12, &sql::SCHEMA_V12),
    (13, &sql::SCHEMA_V13),
    (14, &sql::SCHEMA_V14),
    (15, &sql::SCHEMA_V15),
    (16, &sql::SCHEMA_V16),
    (17, &sql::SCHEMA_V17),
    (18, &sql::SCHEMA_V18),
];

/// The derivations of the requested-amount changes and checkpoints (schema
/// v8), in order, for one committed batch (`run_id`, `after_obs_id`) or for
/// every pod version (run id −1): what each batch and migration 8 run after
/// the version intervals are set.
pub const REQUESTED_DERIVATIONS: [&NamedQuery; 6] = [
    &sql::CLEAR_REQUESTED_CHANGES,
    &sql::DERIVE_REQUESTED_CHANGES,
    &sql::CLEAR_REQUESTED_CHECKPOINTS,
    &sql::CLEAR_REQUESTED_CHECKPOINT_TIMES,
    &sql::DERIVE_REQUESTED_CHECKPOINTS,
    &sql::DERIVE_REQUESTED_CHECKPOINT_TIMES,
];

/// Store failures.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// DuckDB could not open or create the file.
    #[error("cannot open store {path}")]
    Open {
        /// The store file.
        path: PathBuf,
        /// The driver's error.
        #[source]
        source: duckdb::Error,
    },
    /// Another process holds the file: DuckDB lets one process at a time
    /// open a store for writing, and none read it meanwhile (a running
    /// `kdrift record` or `kdrift ingest`, an analysis that migrates an
    /// older store to the current schema, or an analysis while a writer
    /// tries to open it).
    #[error(
        "store {path} is in use by another process{}{}; wait for that process to finish or stop it, or point --db \
         at a copy of the file",
        holder_text(*holder, holder_command.as_deref()),
        if holder_command.is_some() {
            " (while a process has a store open, no other can open it)"
        } else {
            ", e.g. a running `kdrift record` or `kdrift ingest`, or a kdrift upgrading the store to its schema \
             (once, after an upgrade; while a process writes a store, no other can open it)"
        }
    )]
    Locked {
        /// The store file.
        path: PathBuf,
        /// The process holding it, when DuckDB's message names it.
        holder: Option<u32>,
        /// That process's command line (`/proc/PID/cmdline`, arguments
        /// joined by spaces, control characters written visibly, cut at
        /// 160 characters), when it can be read: `kdrift report --html r.html`
        /// (new-user trial: the message guessed `kdrift record`).
        holder_command: Option<String>,
        /// DuckDB's own message (`IO Error: Could not set lock on file …`),
        /// kept for logs but not shown: it says the same less clearly.
        detail: String,
    },
    /// The file does not exist (analysis commands never create a store).
    #[error(
        "no store at {path}: load one there with `kdrift ingest file PATH…` (or keep the demo's history there with \
         `kdrift demo --save {path}`), or point --db / KDRIFT_DB at an existing store"
    )]
    Missing {
        /// The path looked for.
        path: PathBuf,
    },
    /// The file exists but is not a DuckDB database at all (a JSON dump, a
    /// CSV): DuckDB would open it as a read-only view and every write would
    /// be lost.
    #[error("{path} is not a DuckDB database (no DuckDB header): --db must name a kdrift store, or a path that does not exist yet")]
    NotDuckDb {
        /// The file.
        path: PathBuf,
    },
    /// The path cannot be a store file at all: a directory, an empty file
    /// (DuckDB refuses a 0-byte file), or a new file in a directory that
    /// does not exist.
    #[error("{path} cannot hold a kdrift store: {problem}")]
    BadPath {
        /// The path given.
        path: PathBuf,
        /// What is wrong with it and what to do instead.
        problem: String,
    },
    /// The file is a DuckDB database but not a kdrift store.
    #[error(
        "{path} is a DuckDB database but not a kdrift store (no kdrift_meta table); {}",
        if *reading { "there is nothing of kdrift's in it to read" } else { "refusing to write into it" }
    )]
    NotAStore {
        /// The file.
        path: PathBuf,
        /// Met opening it to read ([`Store::open_existing`]), else to write.
        reading: bool,
    },
    /// Written by a newer kdrift.
    #[error("store {path} has schema version {found}, newer than this kdrift understands (up to {supported}); upgrade kdrift")]
    TooNew {
        /// The file.
        path: PathBuf,
        /// Version found.
        found: i64,
        /// Highest version this build reads.
        supported: i64,
    },
    /// A named query failed.
    #[error("query {name} ({file}) failed")]
    Query {
        /// The query's name.
        name: &'static str,
        /// Its file under queries/.
        file: &'static str,
        /// The driver's error.
        #[source]
        source: duckdb::Error,
    },
    /// A query's result column is not of the type its reader expects (a
    /// store whose tables were altered by hand), or holds NULL where a
    /// value is required (`columns`).
    #[error("query {query}: column {column} ({name}) {problem}")]
    Column {
        /// The query (its `-- name:`).
        query: &'static str,
        /// The column's position, from 0.
        column: usize,
        /// The column's name in the result.
        name: String,
        /// What is wrong, e.g. `is Int64, expected Utf8`.
        problem: String,
    },
    /// DuckDB needed more memory for a statement or a bulk load than the
    /// store's memory limit ([`OpenOptions::memory_limit`]) lets it hold,
    /// and could not spill what it held to the temporary directory. A
    /// run's commit that meets it is tried again in parts, an object too
    /// big alone becoming an input error of the run ([`Rejected`]); it is
    /// still returned for a run's held transaction
    /// ([`RunWriter::hold_transaction`]), a fatal failure (a checkpoint),
    /// and the bulk load of the staged rows.
    #[error(
        "DuckDB ran out of memory in {what} under the memory limit of {} (--memory-limit / KDRIFT_MEMORY_LIMIT): \
         raise it, e.g. --memory-limit {}",
        memory::size_text(*limit),
        memory::size_text(limit.saturating_mul(2))
    )]
    OutOfMemory {
        /// The query (`query NAME (FILE)`) or bulk load (`bulk load into TABLE`) that failed.
        what: String,
        /// The memory limit, in bytes.
        limit: u64,
        /// The driver's error, shown by its first line.
        #[source]
        source: DuckDbOutOfMemory,
    },
    /// A run's final commit stopped before DuckDB's COMMIT because the run
    /// was asked to stop ([`RunWriter::stop_final_commit_when`]: SIGINT or
    /// SIGTERM during `ingest api`'s commit); its transaction is rolled back.
    #[error("the final commit was interrupted before it completed and is rolled back whole")]
    Interrupted,
    /// The bulk-load appender failed.
    #[error("bulk load into {table} failed")]
    Append {
        /// Target table.
        table: &'static str,
        /// The driver's error.
        #[source]
        source: duckdb::Error,
    },
}

/// A run that a process left `running` when it ended without closing it
/// (killed, interrupted, or a fatal store error), closed as `failed` by
/// [`Store::open`] ([`Store::abandoned_runs`]). The library does not print;
/// the caller says so to its user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbandonedRun {
    /// The run's id in `ingest_runs`.
    pub run_id: i64,
    /// The run's location (files, URL or scenario, as recorded).
    pub location: String,
}

impl std::fmt::Display for AbandonedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "run {} ({}) was left `running` by a process that ended without closing it (killed, interrupted, or a \
             fatal store error); it is now closed as failed, and the batches it committed stay (ingesting the same \
             input again adds only what is missing)",
            self.run_id, self.location
        )
    }
}

/// A run still marked `running` in a store opened read-only
/// ([`Store::unclosed_runs`]): its process has ended without closing it
/// (no process can write a store while another reads it), and the next
/// open for writing closes it as failed. The library does not print; the
/// caller warns its user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnclosedRun {
    /// The run's id in `ingest_runs`.
    pub run_id: i64,
    /// The run's location (files, URL or scenario, as recorded).
    pub location: String,
}

impl std::fmt::Display for UnclosedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "run {} ({}) is marked `running`, but the process that ran it has ended (no process holds the store); it \
             will be closed as failed when the store is next opened for writing (the next `kdrift ingest`), and the \
             batches it committed stay",
            self.run_id, self.location
        )
    }
}

/// What a store holds ([`Reader::counts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct StoreCounts {
    /// Object versions (all kinds).
    pub observations: i64,
    /// Distinct events (after dedupe).
    pub events: i64,
    /// Event versions.
    pub event_versions: i64,
    /// Distinct pods (namespace/name).
    pub pods: i64,
    /// Distinct nodes.
    pub nodes: i64,
    /// Ingest runs.
    pub runs: i64,
}

/// An open kdrift store.
pub struct Store {
    /// The connection and what only reads through it; a `Store` derefs to it.
    reader: Reader,
    /// The runs this open closed as failed ([`Store::abandoned_runs`]).
    abandoned: Vec<AbandonedRun>,
    /// The runs a read-only open found `running` ([`Store::unclosed_runs`]).
    unclosed: Vec<UnclosedRun>,
    /// The runs whose writers could not close them (a broken connection),
    /// closed when the store is dropped (its `Drop`).
    left_open: std::cell::RefCell<Vec<writer::LeftRun>>,
    /// DuckDB's temporary directory, removed when empty once the
    /// connection (`reader`, dropped first) has closed.
    _temp: memory::TempDirectory,
}

/// Every read ([`Reader`]'s methods) works on a `Store` too; the writes are
/// `Store`'s own, so code handed a `&Reader` cannot write.
impl std::ops::Deref for Store {
    type Target = Reader;
    fn deref(&self) -> &Reader {
        &self.reader
    }
}

/// Stops the statement a [`Store`]'s connection is running
/// ([`Store::interrupt_handle`]).
#[derive(Clone)]
pub struct StoreInterrupt(std::sync::Arc<duckdb::InterruptHandle>);

impl StoreInterrupt {
    /// The running statement fails with an interrupt error, and the
    /// transaction it is part of is rolled back by its guard: a batch
    /// being committed is then not stored at all, never half. Called while
    /// no statement runs, it stops nothing (the next statement clears it);
    /// once DuckDB has begun writing a COMMIT, the commit completes.
    pub fn interrupt(&self) {
        self.0.interrupt();
    }
}

impl std::fmt::Debug for StoreInterrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreInterrupt")
    }
}

impl Drop for Store {
    /// Closes the runs whose writers could not (every statement failed on a
    /// broken connection: a fatal DuckDB error, `FATAL … failed to pin
    /// block`, invalidates the database until it is opened again): the
    /// connection is closed first, the store opened again on one of its
    /// own, and each run closed as `failed` with why it ended (issue 34 F9:
    /// such a run stayed `running` until the next open for writing, and
    /// every analysis in between warned about it). Nothing to do when no run
    /// was left; when the store cannot be opened again, the next open for
    /// writing closes them ([`Store::abandoned_runs`]).
    fn drop(&mut self) {
        let left = std::mem::take(self.left_open.get_mut());
        if left.is_empty() {
            return;
        }
        // DuckDB lets one database instance hold the file: the broken one goes first.
        let Ok(placeholder) = Connection::open_in_memory() else { return };
        drop(std::mem::replace(&mut self.reader.conn, placeholder));
        let path = self.reader.path.clone();
        let options = OpenOptions { memory_limit: self.reader.memory_limit };
        let reopened = options
            .config(&path, duckdb::Config::default())
            .and_then(|config| Connection::open_with_flags(&path, config));
        let closed = match reopened {
            Ok(conn) => writer::close_left_runs(&Store::with_connection(conn, &path, &options), &left),
            Err(source) => Err(open_error(&path, source)),
        };
        if let Err(e) = closed {
            tracing::warn!(
                "store {}: {} run(s) could not be closed ({e}); the next open for writing closes them as failed",
                path.display(),
                left.len()
            );
        }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Store {
    /// Opens the store at `path`, creating it (schema v[`SCHEMA_VERSION`]) when
    /// the file does not exist, migrating an older schema.
    ///
    /// # Errors
    /// [`StoreError::Open`], [`StoreError::Locked`] while another process
    /// holds the file, [`StoreError::NotDuckDb`] for an existing file
    /// that is not a DuckDB database, [`StoreError::NotAStore`],
    /// [`StoreError::TooNew`], or a failed migration query.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, &OpenOptions::default(), &NoMigrationProgress)
    }

    /// [`Store::open`], telling `progress` of each step of migrating an
    /// existing store of an older schema.
    ///
    /// # Errors
    /// As [`Store::open`].
    pub fn open_reporting(path: &Path, progress: &dyn MigrationProgress) -> Result<Store, StoreError> {
        Store::open_with(path, &OpenOptions::default(), progress)
    }

    /// [`Store::open_reporting`] with DuckDB's memory limit and temporary
    /// directory from `options` ([`OpenOptions`]).
    ///
    /// # Errors
    /// As [`Store::open`].
    pub fn open_with(
        path: &Path,
        options: &OpenOptions,
        progress: &dyn MigrationProgress,
    ) -> Result<Store, StoreError> {
        check_duckdb_header(path)?;
        if !path.exists() {
            create_in_place(path, options)?;
        }
        let config = options.config(path, duckdb::Config::default()).map_err(|source| open_error(path, source))?;
        let conn = Connection::open_with_flags(path, config).map_err(|source| open_error(path, source))?;
        let mut store = Store::with_connection(conn, path, options);
        store.ensure_schema(progress)?;
        store.abandoned = store.close_abandoned_runs()?;
        // Rows an older kdrift left in the stored staging table (killed
        // mid-run): writers now stage in a TEMP table, which shadows the
        // stored one once created, so it is emptied here, before any is.
        store.execute(&sql::CLEAR_STAGING, [])?;
        Ok(store)
    }

    /// Closes as `failed` the runs a process left `running` when it ended
    /// without closing them (killed, interrupted, or a fatal store error
    /// that left its connection unusable, so that its writer could not
    /// close the run itself), each with a row in `ingest_errors` saying so.
    /// Sound because DuckDB lets one process at a time open a store for
    /// writing: when this one can, no run of another is still going.
    /// Returns the runs closed (the caller tells its user).
    fn close_abandoned_runs(&self) -> Result<Vec<AbandonedRun>, StoreError> {
        let closed_at = chrono::Utc::now().timestamp_micros();
        let closed = self.query_map(&sql::CLOSE_ABANDONED_RUNS, [closed_at], |r| {
            Ok(AbandonedRun { run_id: r.get(0)?, location: r.get(1)? })
        })?;
        for run in &closed {
            tracing::debug!(run_id = run.run_id, location = %run.location, "closed an abandoned run as failed");
            self.execute(
                &sql::RECORD_ERROR,
                duckdb::params![run.run_id, run.location, None::<i64>, None::<i64>, None::<i64>, ABANDONED_RUN_MESSAGE],
            )?;
        }
        Ok(closed)
    }

    /// The runs left `running` by a process that ended, which this open
    /// closed as `failed` (only [`Store::open`] closes them, and a
    /// read-only [`Store::open_existing`] that first migrated an older
    /// store). Empty when there were none.
    pub fn abandoned_runs(&self) -> &[AbandonedRun] {
        &self.abandoned
    }

    /// The runs a read-only [`Store::open_existing`] found still marked
    /// `running`, left as they are (a read-only open writes nothing): their
    /// processes have ended, since DuckDB lets no process read a store while
    /// another writes it. The next [`Store::open`] closes them as failed
    /// ([`Store::abandoned_runs`]). Empty after [`Store::open`].
    pub fn unclosed_runs(&self) -> &[UnclosedRun] {
        &self.unclosed
    }

    /// Opens an existing store read-only, for analysis: never creates or
    /// changes anything, so several analyses can run at once and a
    /// read-only file works — except a store of an older schema, which is
    /// first migrated in place ([`Store::open`]), once.
    ///
    /// # Errors
    /// [`StoreError::Missing`] when the file does not exist,
    /// [`StoreError::NotAStore`] for another database, [`StoreError::TooNew`],
    /// [`StoreError::Open`], [`StoreError::Locked`] while another process
    /// writes the file, or a failed migration (e.g. a read-only file of an
    /// older schema).
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        Store::open_existing_with(path, &OpenOptions::default(), &NoMigrationProgress)
    }

    /// [`Store::open_existing`], telling `progress` of each step of
    /// migrating a store of an older schema.
    ///
    /// # Errors
    /// As [`Store::open_existing`].
    pub fn open_existing_reporting(path: &Path, progress: &dyn MigrationProgress) -> Result<Store, StoreError> {
        Store::open_existing_with(path, &OpenOptions::default(), progress)
    }

    /// [`Store::open_existing_reporting`] with DuckDB's memory limit and
    /// temporary directory from `options` ([`OpenOptions`]).
    ///
    /// # Errors
    /// As [`Store::open_existing`].
    pub fn open_existing_with(
        path: &Path,
        options: &OpenOptions,
        progress: &dyn MigrationProgress,
    ) -> Result<Store, StoreError> {
        if !path.exists() {
            return Err(StoreError::Missing { path: path.to_path_buf() });
        }
        check_duckdb_header(path)?;
        let open_err = |source| open_error(path, source);
        let config = duckdb::Config::default().access_mode(duckdb::AccessMode::ReadOnly).map_err(open_err)?;
        let config = options.config(path, config).map_err(open_err)?;
        let conn = Connection::open_with_flags(path, config).map_err(open_err)?;
        let store = Store::with_connection(conn, path, options);
        let has_meta: i64 = store.query_one(&sql::HAS_META, [], |r| r.get(0))?;
        if has_meta == 0 {
            return Err(StoreError::NotAStore { path: path.to_path_buf(), reading: true });
        }
        if store.check_version()? < SCHEMA_VERSION {
            // An older schema: migrated once, in place (the queries need the
            // new columns), then opened read-only again.
            drop(store);
            let migrated = Store::open_with(path, options, progress)?;
            let abandoned = migrated.abandoned.clone();
            drop(migrated);
            let mut store = Store::open_existing_with(path, options, &NoMigrationProgress)?;
            store.abandoned = abandoned;
            return Ok(store);
        }
        let mut store = store;
        store.unclosed =
            store.query_map(&sql::UNCLOSED_RUNS, [], |r| Ok(UnclosedRun { run_id: r.get(0)?, location: r.get(1)? }))?;
        Ok(store)
    }

    /// The store of `conn`, opened at `path` with `options`.
    fn with_connection(conn: Connection, path: &Path, options: &OpenOptions) -> Store {
        Store {
            reader: Reader { conn, path: path.to_path_buf(), memory_limit: options.memory_limit },
            abandoned: Vec::new(),
            unclosed: Vec::new(),
            left_open: std::cell::RefCell::new(Vec::new()),
            _temp: memory::TempDirectory(memory::temp_directory(path)),
        }
    }

    /// A handle that stops the statement this connection is running, from
    /// any thread ([`StoreInterrupt::interrupt`]): SIGINT during a long
    /// commit (issue 34).
    pub fn interrupt_handle(&self) -> StoreInterrupt {
        StoreInterrupt(self.conn.interrupt_handle())
    }

    fn ensure_schema(&self, progress: &dyn MigrationProgress) -> Result<(), StoreError> {
        let has_meta: i64 = self.query_one(&sql::HAS_META, [], |r| r.get(0))?;
        if has_meta == 0 {
            let tables: i64 = self.query_one(&sql::TABLE_COUNT, [], |r| r.get(0))?;
            if tables > 0 {
                return Err(StoreError::NotAStore { path: self.path.clone(), reading: false });
            }
            // One transaction: a process killed while creating the store
            // (Ctrl-C right after `kdrift ingest` starts) leaves an empty
            // database, which the next open creates again, not tables without
            // the version row, which no open could read.
            self.in_transaction(|| {
                self.batch(&sql::SCHEMA_V1)?;
                self.execute(&sql::SET_SCHEMA_VERSION, ["1"]).map(|_| ())
            })?;
        }
        let found = self.check_version()?;
        if has_meta != 0 && found < SCHEMA_VERSION {
            // In place and one way: an older kdrift refuses the store afterwards.
            tracing::info!(
                "migrating store {} from schema version {found} to {SCHEMA_VERSION} (older kdrift releases \
                 cannot open it afterwards)",
                self.path.display()
            );
            return self.migrate(found, progress);
        }
        self.migrate(found, &NoMigrationProgress)
    }

    /// Runs `work` in a transaction: committed when it succeeds, rolled back
    /// (its error returned) when it fails.
    fn in_transaction(&self, work: impl FnOnce() -> Result<(), StoreError>) -> Result<(), StoreError> {
        self.batch(&sql::TX_BEGIN)?;
        match work() {
            Ok(()) => self.batch(&sql::TX_COMMIT),
            Err(e) => {
                // The work's error is the one to report.
                let _ = self.batch(&sql::TX_ROLLBACK);
                Err(e)
            }
        }
    }

    /// Applies the migrations after version `found`, each in its own
    /// transaction with the version it brings the store to, telling
    /// `progress` of each.
    fn migrate(&self, found: i64, progress: &dyn MigrationProgress) -> Result<(), StoreError> {
        let mut from = found;
        for (version, ddl) in MIGRATIONS.iter().filter(|(v, _)| *v > found) {
            progress.step(&self.path, from, *version);
            let started = std::time::Instant::now();
            self.in_transaction(|| {
                self.batch(ddl)?;
                self.after_migration(*version)?;
                self.execute(&sql::UPDATE_SCHEMA_VERSION, [version.to_string()]).map(|_| ())
            })?;
            progress.step_done(&self.path, *version, started.elapsed());
            from = *version;
        }
        Ok(())
    }

    /// What a migration needs beyond its DDL, in the same transaction.
    /// v4: every stored pod version's usage fields, computed in Rust from its
    /// model (`pod_usage_fields`), then every version interval. v5: every
    /// pod's bindings and eviction evidence. v6: every node's signals. v7
    /// (versions tied on observed_at ordered by resourceVersion, then
    /// obs_id: queries/schema/v7.sql): every version interval again, then
    /// every pod's bindings and eviction evidence and every node's signals,
    /// which v7.sql emptied. v8: the requested-amount changes and checkpoints
    /// of every pod version. v11: the name index of every stored version,
    /// then sorted whole. v12 (the kept drain episodes table, `pod_bindings`
    /// sorted by node): pod versions kept without a namespace, when there
    /// are any, become `default`'s, and every table keyed by pod is derived
    /// again. v13: every stored ScalingReplicaSet event version copied into
    /// `replica_set_scalings`. v14: every pod version's `first_seen_late`
    /// (the version intervals are current: every migration before it that
    /// changes them derives them again). v16: every pod version's model and
    /// usage columns derived again from its whole object (`remodel`). v18
    /// (a pod's newest version ends at the evidence that it was evicted or
    /// stopped after it: queries/derive/pod_intervals.sql): every version
    /// interval again, then the requested-amount changes and checkpoints.
    fn after_migration(&self, version: i64) -> Result<(), StoreError> {
        match version {
            4 => self.backfill_v4(),
            5 => {
                let every_pod = duckdb::params![-1i64, 0i64];
                self.execute(&sql::DERIVE_POD_BINDINGS, every_pod)?;
                self.execute(&sql::DERIVE_EVICTION_EVIDENCE, every_pod)?;
                Ok(())
            }
            6 => {
                self.execute(&sql::DERIVE_NODE_SIGNALS, duckdb::params![-1i64, 0i64])?;
                Ok(())
            }
            7 => self.rederive_v7_tables(),
            8 => {
                let every = duckdb::params![-1i64, 0i64];
                for q in REQUESTED_DERIVATIONS {
                    self.execute(q, every)?;
                }
                Ok(())
            }
            11 => {
                self.execute(&sql::DERIVE_NAME_INDEX, duckdb::params![-1i64, 0i64])?;
                self.batch(&sql::SORT_NAME_INDEX)
            }
            12 => {
                let unnamespaced: i64 = self.query_one(&sql::SCHEMA_V12_UNNAMESPACED_PODS, [], |r| r.get(0))?;
                if unnamespaced == 0 {
                    return Ok(());
                }
                self.batch(&sql::SCHEMA_V12_DEFAULT_NAMESPACE)?;
                self.rederive_tables_of(12)?;
                self.batch(&sql::SORT_NAME_INDEX)
            }
            13 => {
                self.execute(&sql::DERIVE_REPLICA_SET_SCALINGS, duckdb::params![-1i64, 0i64])?;
                Ok(())
            }
            14 => {
                self.execute(&sql::DERIVE_POD_FIRST_SEEN_LATE, duckdb::params![-1i64, 0i64])?;
                Ok(())
            }
            16 => self.rederive_pod_models(),
            18 => {
                let every = duckdb::params![-1i64, 0i64];
                self.execute(&sql::DERIVE_POD_INTERVALS, every)?;
                for q in REQUESTED_DERIVATIONS {
                    self.execute(q, every)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Rebuilds every table derived from the history, for every object: the
    /// version intervals (`valid_until`, `first_version`) of every pod and
    /// node, then `pod_bindings`, `eviction_evidence` and `node_signals`,
    /// each emptied first, then the requested-amount changes and checkpoints
    /// (schema v8), every pod version's `first_seen_late` (schema v14), and
    /// `pod_bindings` sorted by node (schema v12). What the tables that
    /// ingest keeps batch by batch must equal (tests compare both), but for
    /// `first_seen_late`, which a batch may leave true on a version that lost
    /// `first_version` (its contract: queries/schema/v14.sql).
    ///
    /// # Errors
    /// [`StoreError`] when a derivation fails.
    pub fn rederive_everything(&self) -> Result<(), StoreError> {
        self.rederive_tables_of(SCHEMA_VERSION)
    }

    /// [`Store::rederive_everything`] for the tables a store at schema
    /// `version` has (migration 12 runs it before schema 14's column exists).
    fn rederive_tables_of(&self, version: i64) -> Result<(), StoreError> {
        self.rederive_v7_tables()?;
        for q in REQUESTED_DERIVATIONS {
            self.execute(q, duckdb::params![-1i64, 0i64])?;
        }
        if version >= 14 {
            self.execute(&sql::DERIVE_POD_FIRST_SEEN_LATE, duckdb::params![-1i64, 0i64])?;
        }
        // Written whole in derivation order: sorted by node again (schema v12).
        self.batch(&sql::SORT_POD_BINDINGS)
    }

    /// Sorts the name index (schema v11: `name_index`, by namespace, name
    /// and obs_id) whole again when the entries batches appended since its
    /// last sort are at least an eighth of the sorted ones, so that a
    /// lookup by name reads the one or two row groups of the sorted part
    /// that hold the name, plus a bounded unsorted tail. After an ingest
    /// (the CLI's ingest commands). Returns whether it sorted. At 10M
    /// events (~14M entries) a whole sort takes ~10 s and ~1.5 GiB; the
    /// rule makes its cost amortised over the rows added.
    ///
    /// # Errors
    /// [`StoreError::Query`] (the table is left as it was: the sort runs in a
    /// transaction).
    pub fn sort_name_index(&self) -> Result<bool, StoreError> {
        self.sort_when_grown(&sql::NAME_INDEX_UNSORTED, &sql::SORT_NAME_INDEX)
    }

    /// Sorts `pod_bindings` (schema v12: by node, then bound_at) whole again
    /// when the rows batches appended since its last sort (a batch rewrites
    /// the bindings of the pods it names at the end of the table) are at
    /// least an eighth of the sorted ones, so that the bindings to one node
    /// (`bindings_to_node`) lie in one or two row groups of the sorted part,
    /// plus a bounded unsorted tail. After an ingest (the CLI's ingest
    /// commands). Returns whether it sorted. At 10M events (820,000
    /// bindings) a whole sort takes ~1.5 s.
    ///
    /// # Errors
    /// [`StoreError::Query`] (the table is left as it was: the sort runs in a
    /// transaction).
    pub fn sort_pod_bindings(&self) -> Result<bool, StoreError> {
        self.sort_when_grown(&sql::POD_BINDINGS_UNSORTED, &sql::SORT_POD_BINDINGS)
    }

    /// Runs `sort` (in a transaction) when `unsorted` (one row: rows
    /// appended since the last sort, rows it sorted) says the appended rows
    /// are at least an eighth of the sorted ones. Returns whether it sorted.
    fn sort_when_grown(&self, unsorted: &NamedQuery, sort: &NamedQuery) -> Result<bool, StoreError> {
        let (appended, sorted): (i64, i64) = self.query_one(unsorted, [], |r| Ok((r.get(0)?, r.get(1)?)))?;
        if appended <= 0 || appended.saturating_mul(8) < sorted {
            return Ok(false);
        }
        self.in_transaction(|| self.batch(sort))?;
        Ok(true)
    }

    /// The part of [`Store::rederive_everything`] that migration 7 runs (the
    /// tables schema 7 has): every version interval, `pod_bindings`,
    /// `eviction_evidence` and `node_signals`.
    fn rederive_v7_tables(&self) -> Result<(), StoreError> {
        let every = duckdb::params![-1i64, 0i64];
        for q in [
            &sql::DERIVE_POD_INTERVALS,
            &sql::DERIVE_NODE_INTERVALS,
            &sql::CLEAR_POD_BINDINGS,
            &sql::DERIVE_POD_BINDINGS,
            &sql::CLEAR_EVICTION_EVIDENCE,
            &sql::DERIVE_EVICTION_EVIDENCE,
            &sql::CLEAR_NODE_SIGNALS,
            &sql::DERIVE_NODE_SIGNALS,
        ] {
            self.execute(q, every)?;
        }
        Ok(())
    }

    fn backfill_v4(&self) -> Result<(), StoreError> {
        let models = self
            .query_map(&sql::SCHEMA_V4_POD_MODELS, [], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?)))?;
        {
            let mut appender = self
                .conn
                .appender("pod_usage_backfill")
                .map_err(|source| self.append_failed("pod_usage_backfill", source))?;
            for (obs_id, model) in models {
                let usage = match serde_json::from_str::<serde_json::Value>(model.as_deref().unwrap_or("null")) {
                    Ok(pod) => writer::UsageColumns::of(&pod),
                    Err(e) => writer::UsageColumns { model_error: Some(e.to_string()), ..Default::default() },
                };
                appender
                    .append_row(duckdb::params![
                        obs_id,
                        usage.usage_node,
                        usage.cpu,
                        usage.memory,
                        usage.other,
                        usage.model_error
                    ])
                    .map_err(|source| self.append_failed("pod_usage_backfill", source))?;
            }
            appender.flush().map_err(|source| self.append_failed("pod_usage_backfill", source))?;
        }
        self.batch(&sql::SCHEMA_V4_BACKFILL)?;
        self.execute(&sql::DERIVE_POD_INTERVALS, duckdb::params![-1i64, 0i64])?;
        self.execute(&sql::DERIVE_NODE_INTERVALS, duckdb::params![-1i64, 0i64])?;
        Ok(())
    }

    fn check_version(&self) -> Result<i64, StoreError> {
        let version: String = self.query_one(&sql::GET_SCHEMA_VERSION, [], |r| r.get(0))?;
        let found: i64 = version.parse().unwrap_or(i64::MAX);
        if found > SCHEMA_VERSION {
            return Err(StoreError::TooNew { path: self.path.clone(), found, supported: SCHEMA_VERSION });
        }
        Ok(found)
    }

    /// Runs a multi-statement query (DDL).
    ///
    /// # Errors
    /// [`StoreError::Query`] naming the query.
    pub fn batch(&self, q: &NamedQuery) -> Result<(), StoreError> {
        let started = std::time::Instant::now();
        let done = self.conn.execute_batch(q.sql).map_err(|e| self.query_failed(q, e));
        log_time(q, started);
        done
    }

    /// Executes one statement with bound parameters; returns the rows changed.
    ///
    /// # Errors
    /// [`StoreError::Query`] naming the query.
    pub fn execute<P: Params>(&self, q: &NamedQuery, params: P) -> Result<usize, StoreError> {
        let started = std::time::Instant::now();
        let mut stmt = self.conn.prepare_cached(q.sql).map_err(|e| self.query_failed(q, e))?;
        let done = stmt.execute(params).map_err(|e| self.query_failed(q, e));
        log_time(q, started);
        done
    }
}

/// Logs a statement's time at trace level (`KDRIFT_LOG=kdrift_store=trace`):
/// where an ingest's commit spends it (issue 6).
fn log_time(q: &NamedQuery, started: std::time::Instant) {
    tracing::trace!(query = q.name, ms = started.elapsed().as_secs_f64() * 1e3, "statement");
}

/// Refuses an existing, non-empty file without DuckDB's header (the magic
/// `DUCK` at bytes 8..12 of every DuckDB database file): DuckDB opens a
/// `.json` or `.csv` path as a read-only view of that file, where an ingest
/// would report success and store nothing. A directory, an empty file and
/// a new file in a missing directory are [`StoreError::BadPath`] (DuckDB's
/// own errors for them are raw I/O messages).
fn check_duckdb_header(path: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    let bad = |problem: String| Err(StoreError::BadPath { path: path.to_path_buf(), problem });
    check_side_files(path)?;
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return bad(format!("it is a directory; name a file in it, e.g. {}", path.join("kdrift.duckdb").display()))
        }
        // A FIFO, socket or device: opening it to read its header would
        // block (a FIFO waits for a writer) or read something else.
        Ok(m) if !m.is_file() => {
            return bad(format!(
                "it is {}, not a regular file; --db must name a store file, or a path that does not exist yet",
                special_file_kind(&m)
            ))
        }
        Ok(m) if m.len() == 0 => {
            return bad("it is an empty file (0 bytes), which DuckDB does not open; delete it, or name a path that \
                        does not exist yet (ingest creates the store there)"
                .into())
        }
        Ok(_) => {}
        Err(_) => {
            // A new store: its directory must exist (DuckDB creates the file, not the directory).
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(dir) = parent.filter(|d| !d.is_dir()) {
                return bad(format!("the directory {} does not exist; create it first", dir.display()));
            }
            return Ok(());
        }
    }
    let Ok(mut file) = std::fs::File::open(path) else { return Ok(()) }; // DuckDB reports it
    if file.metadata().map_or(true, |m| !m.is_file()) {
        return Ok(());
    }
    let mut head = [0u8; 12];
    match file.read_exact(&mut head) {
        Ok(()) if &head[8..12] == b"DUCK" => Ok(()),
        _ => Err(StoreError::NotDuckDb { path: path.to_path_buf() }),
    }
}

/// The files DuckDB opens beside a store `PATH` (its storage manager and
/// WAL replay, DuckDB 1.2): the write-ahead log `PATH.wal`, read when the
/// store opens, and the logs a checkpoint or a recovery writes next to it.
const SIDE_FILES: [&str; 3] = [".wal", ".wal.checkpoint", ".wal.recovery"];

/// Refuses a store whose [`SIDE_FILES`] exist and are not regular files
/// (or symbolic links to one): DuckDB opens `PATH.wal` whether or not the
/// store exists, and a FIFO there blocked it for good, SIGTERM ignored
/// (break-it 41 G14); a directory or device there is no log either.
fn check_side_files(path: &Path) -> Result<(), StoreError> {
    for suffix in SIDE_FILES {
        let side = PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::metadata(&side) {
            Ok(m) if !m.is_file() => {
                let kind = if m.is_dir() { "a directory" } else { special_file_kind(&m) };
                return Err(StoreError::BadPath {
                    path: path.to_path_buf(),
                    problem: format!(
                        "{} is {kind}, not a regular file, where DuckDB keeps the store's write-ahead log; remove \
                         it, or name another --db",
                        side.display()
                    ),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// What a path that is neither a file nor a directory is, for people.
fn special_file_kind(m: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    let _ = m;
    "a special file"
}

/// DuckDB's failure to open `path`: [`StoreError::Locked`] when another
/// process holds the file's lock, else [`StoreError::Open`].
/// Creates a new store at `path` without ever leaving a half-made file
/// there: the schema is written under a temporary name beside it
/// (`.NAME.creating-PID`), checkpointed, closed, then linked into place.
/// DuckDB creates its file before it writes the header, so a process killed
/// in its first milliseconds left a 0-byte file at `path` that no later
/// command could open. A process killed here leaves only the temporary
/// file. When another process created `path` meanwhile, its store is kept.
///
/// # Errors
/// [`StoreError::Open`] naming `path` (the temporary file's error as the
/// source), or the schema's queries.
fn create_in_place(path: &Path, options: &OpenOptions) -> Result<(), StoreError> {
    let name = path.file_name().map_or_else(|| "kdrift.duckdb".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.creating-{}", std::process::id()));
    let wal = |p: &Path| PathBuf::from(format!("{}.wal", p.display()));
    let remove = |p: &Path| {
        let _ = std::fs::remove_file(p);
        let _ = std::fs::remove_file(wal(p));
    };
    remove_stale_creations(path, &name);
    remove(&tmp);
    let created = (|| {
        // DuckDB's error names the temporary file: name the store instead.
        let config = options.config(path, duckdb::Config::default());
        let conn = config.and_then(|config| Connection::open_with_flags(&tmp, config)).map_err(|source| {
            StoreError::BadPath {
                path: path.to_path_buf(),
                problem: format!(
                    "cannot create it: {}",
                    source.to_string().replace(&tmp.display().to_string(), &path.display().to_string())
                ),
            }
        })?;
        let store = Store::with_connection(conn, path, options);
        store.ensure_schema(&NoMigrationProgress)?;
        store.batch(&sql::CHECKPOINT)?;
        drop(store);
        match std::fs::hard_link(&tmp, path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            // A file system without hard links: rename (the race with another
            // process creating the same store at the same instant is lost).
            Err(_) => std::fs::rename(&tmp, path).map_err(|e| StoreError::BadPath {
                path: path.to_path_buf(),
                problem: format!("cannot move the new store into place from {}: {e}", tmp.display()),
            }),
        }
    })();
    remove(&tmp);
    created
}

/// Removes the temporary files ([`create_in_place`]) that processes no
/// longer running left beside `path` (killed while creating the store);
/// those of a running process are its own business.
fn remove_stale_creations(path: &Path, name: &str) {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let prefix = format!(".{name}.creating-");
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file.strip_prefix(&prefix).map(|rest| rest.trim_end_matches(".wal")) else { continue };
        let running = pid.parse::<u32>().is_ok_and(|p| Path::new(&format!("/proc/{p}")).exists());
        if !running {
            tracing::debug!(file = %entry.path().display(), "removing a store creation a killed process left");
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn open_error(path: &Path, source: duckdb::Error) -> StoreError {
    let detail = source.to_string();
    if detail.contains("Could not set lock on file") {
        tracing::debug!(path = %path.display(), %detail, "the store is locked by another process");
        let holder = lock_holder(&detail);
        let holder_command = holder.and_then(command_line);
        StoreError::Locked { path: path.to_path_buf(), holder, holder_command, detail }
    } else {
        StoreError::Open { path: path.to_path_buf(), source }
    }
}

/// ` (PID 4242: kdrift record -A)`, ` (PID 4242)` or nothing.
fn holder_text(pid: Option<u32>, command: Option<&str>) -> String {
    match (pid, command) {
        (Some(pid), Some(command)) => format!(" (PID {pid}: {command})"),
        (Some(pid), None) => format!(" (PID {pid})"),
        (None, _) => String::new(),
    }
}

/// The command line of process `pid` (Linux `/proc/PID/cmdline`): its
/// program's file name and its arguments, joined by spaces, control
/// characters written visibly ([`kdrift_rebalance::visible`]), cut at 160
/// characters with `…`.
fn command_line(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let mut words = raw.split(|b| *b == 0).filter(|w| !w.is_empty()).map(String::from_utf8_lossy);
    let program = words.next()?;
    let program = program.rsplit('/').next().unwrap_or(&program).to_string();
    let line = std::iter::once(program).chain(words.map(|w| w.into_owned())).collect::<Vec<_>>().join(" ");
    let text = kdrift_rebalance::visible(&line).into_owned();
    Some(if text.chars().count() > 160 { text.chars().take(159).chain(['…']).collect() } else { text })
}

/// The PID in DuckDB's lock message (`Conflicting lock is held in
/// /usr/bin/kdrift (PID 4242) by user root`), when it names one.
fn lock_holder(message: &str) -> Option<u32> {
    let rest = &message[message.find("(PID ")? + "(PID ".len()..];
    rest[..rest.find(')')?].trim().parse().ok()
}

/// Wraps a driver error with the query's name.
pub fn query_error(q: &NamedQuery, source: duckdb::Error) -> StoreError {
    StoreError::Query { name: q.name, file: q.file, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupt_while_no_statement_runs_stops_nothing() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("s.duckdb")).expect("store");
        store.interrupt_handle().interrupt();
        assert_eq!(store.counts().expect("the next statement runs").observations, 0);
    }

    #[test]
    fn the_lock_holders_pid_is_read_from_duckdbs_message() {
        let held = "IO Error: Could not set lock on file \"/tmp/k.duckdb\": Conflicting lock is held in \
                    /usr/local/bin/kdrift (PID 4242) by user root. See also https://duckdb.org/docs/connect/concurrency";
        assert_eq!(lock_holder(held), Some(4242));
        let no_pid = "IO Error: Could not set lock on file \"/tmp/k.duckdb\": Resource temporarily unavailable";
        assert_eq!(lock_holder(no_pid), None);
        assert_eq!(lock_holder("(PID x)"), None);
    }

    #[test]
    fn a_locked_store_is_named_with_its_holder_and_what_to_do() {
        let path = PathBuf::from("/tmp/k.duckdb");
        let err =
            StoreError::Locked { path: path.clone(), holder: Some(4242), holder_command: None, detail: String::new() };
        assert_eq!(
            err.to_string(),
            "store /tmp/k.duckdb is in use by another process (PID 4242), e.g. a running `kdrift record` or \
             `kdrift ingest`, or a kdrift upgrading the store to its schema (once, after an upgrade; while a process \
             writes a store, no other can open it); wait for that process to finish or stop it, or point --db at a \
             copy of the file"
        );
        let err = StoreError::Locked {
            path: path.clone(),
            holder: Some(4242),
            holder_command: Some("kdrift report --html r.html".into()),
            detail: String::new(),
        };
        assert_eq!(
            err.to_string(),
            "store /tmp/k.duckdb is in use by another process (PID 4242: kdrift report --html r.html) (while a \
             process has a store open, no other can open it); wait for that process to finish or stop it, or point \
             --db at a copy of the file"
        );
        let err = StoreError::Locked { path, holder: None, holder_command: None, detail: String::new() };
        assert!(err.to_string().starts_with("store /tmp/k.duckdb is in use by another process, e.g. "), "{err}");
        // This process's own command line, as the message would name it.
        let own = command_line(std::process::id()).expect("own cmdline");
        assert!(own.starts_with("kdrift_store-") || own.contains("kdrift"), "{own}");
    }
}
