//! The read side of a store: one DuckDB connection and the queries that only
//! read through it ([`Reader`]). `analyze` is handed a `&Reader` (a
//! [`Store`] derefs to one), so the rule "analyze never writes" is the
//! compiler's: `batch`, `execute` and the writers are `Store`'s alone.

use std::path::{Path, PathBuf};

use duckdb::{Connection, Params};

use crate::columns::{Batches, Columns};
use crate::row::{Row, RowError};
use crate::sql::{self, NamedQuery};
#[cfg(doc)]
use crate::Store;
use crate::{query_error, StoreCounts, StoreError};

/// A connection to an open store that can only read: what `analyze` works
/// on. Obtained from a [`Store`] (`&store` coerces to `&Reader`) or
/// [`Reader::try_clone`] for a second connection on another thread.
pub struct Reader {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    /// DuckDB's memory limit on this connection's database, in bytes
    /// ([`crate::OpenOptions::memory_limit`]): named when a statement fails for
    /// want of memory.
    pub(crate) memory_limit: u64,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Reader {
    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A second connection to this open store (the same database instance
    /// and buffer pool, read-only when this one is), for reading on another
    /// thread while this one reads too: a `Store` is `Send`, not `Sync`. It
    /// sees what is committed, not this connection's open transaction.
    ///
    /// # Errors
    /// [`StoreError::Open`] when DuckDB cannot open another connection.
    pub fn try_clone(&self) -> Result<Reader, StoreError> {
        let conn = self.conn.try_clone().map_err(|source| StoreError::Open { path: self.path.clone(), source })?;
        Ok(Reader { conn, path: self.path.clone(), memory_limit: self.memory_limit })
    }

    /// DuckDB's memory limit and temporary directory on this connection's
    /// database, as DuckDB reports them (`memory_settings.sql`,
    /// `temp_directory.sql`): e.g.
    /// `64.0 MiB` and `/data/k.duckdb.tmp`.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn memory_settings(&self) -> Result<(String, String), StoreError> {
        let limit = self.query_one(&sql::MEMORY_SETTINGS, [], |r| r.get(0))?;
        Ok((limit, self.query_one(&sql::TEMP_DIRECTORY, [], |r| r.get(0))?))
    }

    /// The memory limit this store was opened with, in bytes
    /// ([`crate::OpenOptions::memory_limit`]).
    pub fn memory_limit(&self) -> u64 {
        self.memory_limit
    }

    /// Query `q`'s failure: [`StoreError::OutOfMemory`] naming the memory
    /// limit when DuckDB ran out of it, else [`StoreError::Query`].
    pub(crate) fn query_failed(&self, q: &NamedQuery, e: duckdb::Error) -> StoreError {
        crate::memory::out_of_memory_or(e, self.memory_limit, format!("query {} ({})", q.name, q.file), |e| {
            query_error(q, e)
        })
    }

    /// A bulk load's failure into `table`: [`StoreError::OutOfMemory`]
    /// naming the memory limit when DuckDB ran out of it, else
    /// [`StoreError::Append`].
    pub(crate) fn append_failed(&self, table: &'static str, e: duckdb::Error) -> StoreError {
        crate::memory::out_of_memory_or(e, self.memory_limit, format!("bulk load into {table}"), |source| {
            StoreError::Append { table, source }
        })
    }

    /// What the store holds.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn counts(&self) -> Result<StoreCounts, StoreError> {
        self.query_one(&sql::STORE_COUNTS, [], |r| {
            Ok(StoreCounts {
                observations: r.get(0)?,
                events: r.get(1)?,
                event_versions: r.get(2)?,
                pods: r.get(3)?,
                nodes: r.get(4)?,
                runs: r.get(5)?,
            })
        })
    }

    /// The source kinds the store's runs came from, with their run counts.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn source_kinds(&self) -> Result<Vec<(String, i64)>, StoreError> {
        self.query_map(&sql::RUN_SOURCES, [], |r| Ok((r.get(0)?, r.get(1)?)))
    }

    /// The seeds of the demo scenarios loaded into the store (`kdrift demo
    /// --save`), from their runs' `demo:seed=<seed>` locations; runs closed
    /// as failed are left out.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub fn demo_seeds(&self) -> Result<Vec<String>, StoreError> {
        let locations: Vec<String> = self.query_map(&sql::DEMO_SEEDS, [], |r| r.get(0))?;
        Ok(locations.into_iter().map(|l| l.strip_prefix("demo:seed=").map_or(l.clone(), str::to_string)).collect())
    }

    /// Runs a query expected to return exactly one row.
    ///
    /// # Errors
    /// [`StoreError::Query`] naming the query (also when no row comes back).
    pub fn query_one<T, P, F>(&self, q: &NamedQuery, params: P, f: F) -> Result<T, StoreError>
    where
        P: Params,
        F: FnOnce(&Row<'_, '_>) -> Result<T, RowError>,
    {
        let mut stmt = self.conn.prepare_cached(q.sql).map_err(|e| self.query_failed(q, e))?;
        stmt.query_row(params, |r| f(&Row(r)).map_err(|e| e.0)).map_err(|e| self.query_failed(q, e))
    }

    /// Runs a query and maps every row.
    ///
    /// # Errors
    /// [`StoreError::Query`] naming the query.
    pub fn query_map<T, P, F>(&self, q: &NamedQuery, params: P, mut f: F) -> Result<Vec<T>, StoreError>
    where
        P: Params,
        F: FnMut(&Row<'_, '_>) -> Result<T, RowError>,
    {
        let mut stmt = self.conn.prepare_cached(q.sql).map_err(|e| self.query_failed(q, e))?;
        let rows = stmt.query_map(params, |r| f(&Row(r)).map_err(|e| e.0)).map_err(|e| self.query_failed(q, e))?;
        rows.collect::<duckdb::Result<Vec<T>>>().map_err(|e| self.query_failed(q, e))
    }

    /// Runs a query and returns its result column by column ([`Batches`]),
    /// in the batches DuckDB hands over: for results of 100,000+ rows,
    /// where [`Reader::query_map`]'s row-by-row access (a downcast and a type
    /// match per value, ~0.25 µs) costs more than the query itself.
    ///
    /// # Errors
    /// [`StoreError::Query`] naming the query.
    pub fn query_columns<P: Params>(&self, q: &NamedQuery, params: P) -> Result<Batches, StoreError> {
        let mut stmt = self.conn.prepare_cached(q.sql).map_err(|e| self.query_failed(q, e))?;
        Ok(Batches::new(q, stmt.query_arrow(params).map_err(|e| self.query_failed(q, e))?.collect()))
    }

    /// Runs a query and hands `each` its result one batch at a time, as
    /// DuckDB produces it ([`Columns`]; a batch is dropped before the next
    /// is fetched): for results too big to hold whole. [`Reader::query_map`]
    /// and [`Reader::query_columns`] have DuckDB materialise the whole
    /// result first (150,000 pod models of ~0.7 KB each, then copied again
    /// into the caller's rows: kdrift issue 39).
    ///
    /// # Errors
    /// [`StoreError::Query`] naming the query; `each`'s error, which stops the reading.
    pub fn for_each_batch<P, F>(&self, q: &NamedQuery, params: P, mut each: F) -> Result<(), StoreError>
    where
        P: Params,
        F: FnMut(Columns<'_>) -> Result<(), StoreError>,
    {
        let mut stmt = self.conn.prepare_cached(q.sql).map_err(|e| self.query_failed(q, e))?;
        for batch in stmt.stream_arrow(params).map_err(|e| self.query_failed(q, e))? {
            let batch = batch.map_err(|e| self.query_failed(q, e))?;
            each(Columns::new(q, &batch))?;
        }
        Ok(())
    }
}
