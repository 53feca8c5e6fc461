//! What the tests of other crates need to build or damage a store and to
//! read what no named query reads, without depending on DuckDB themselves
//! (feature `test-support`; never in the binary): raw SQL through
//! [`RawConnection`], whose methods are named as the driver's, with rows
//! read through the store's own [`Row`].

use std::path::Path;

use duckdb::{Connection, Params};

use crate::{Row, RowError, Store};

/// A value bound to or read from raw SQL (`Text`, `BigInt`, `Null`, …), as
/// the driver holds it: `{:?}` of a row of them is what
/// [`RawStatement::query_debug`] returns.
pub use duckdb::types::Value as RawValue;

/// A failure of raw SQL: the driver's message.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct RawError(duckdb::Error);

impl From<duckdb::Error> for RawError {
    fn from(e: duckdb::Error) -> RawError {
        RawError(e)
    }
}

impl From<RowError> for RawError {
    fn from(e: RowError) -> RawError {
        RawError(e.0)
    }
}

/// A store's connection for raw SQL ([`Store::conn`]), or a borrowed
/// [`RawConnection`] ([`RawConnection::sql`]).
#[derive(Clone, Copy)]
pub struct RawSql<'c>(&'c Connection);

/// A connection opened on any DuckDB file ([`RawConnection::open`]: an
/// old-schema or foreign database a test builds), for raw SQL.
pub struct RawConnection(Connection);

impl Store {
    /// The store's connection, for raw SQL in tests.
    pub fn conn(&self) -> RawSql<'_> {
        RawSql(&self.conn)
    }
}

impl RawConnection {
    /// Opens (or creates) the DuckDB file at `path`, read-write.
    ///
    /// # Errors
    /// The driver's.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, RawError> {
        Ok(RawConnection(Connection::open(path)?))
    }

    /// Opens the DuckDB file at `path` read-only.
    ///
    /// # Errors
    /// The driver's.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Self, RawError> {
        let config = duckdb::Config::default().access_mode(duckdb::AccessMode::ReadOnly)?;
        Ok(RawConnection(Connection::open_with_flags(path, config)?))
    }

    /// This connection for raw SQL.
    pub fn sql(&self) -> RawSql<'_> {
        RawSql(&self.0)
    }

    /// [`RawSql::execute_batch`].
    ///
    /// # Errors
    /// The driver's.
    pub fn execute_batch(&self, sql: &str) -> Result<(), RawError> {
        self.sql().execute_batch(sql)
    }

    /// [`RawSql::execute`].
    ///
    /// # Errors
    /// The driver's.
    pub fn execute<P: Params>(&self, sql: &str, params: P) -> Result<usize, RawError> {
        self.sql().execute(sql, params)
    }

    /// [`RawSql::query_row`].
    ///
    /// # Errors
    /// The driver's.
    pub fn query_row<T, P, F>(&self, sql: &str, params: P, f: F) -> Result<T, RawError>
    where
        P: Params,
        F: FnOnce(&Row<'_, '_>) -> Result<T, RowError>,
    {
        self.sql().query_row(sql, params, f)
    }

    /// [`RawSql::prepare`].
    ///
    /// # Errors
    /// The driver's.
    pub fn prepare(&self, sql: &str) -> Result<RawStatement<'_>, RawError> {
        self.sql().prepare(sql)
    }
}

impl<'c> RawSql<'c> {
    /// Runs `sql` (one or more statements).
    ///
    /// # Errors
    /// The driver's.
    pub fn execute_batch(self, sql: &str) -> Result<(), RawError> {
        Ok(self.0.execute_batch(sql)?)
    }

    /// Runs one statement with bound parameters; returns the rows changed.
    ///
    /// # Errors
    /// The driver's.
    pub fn execute<P: Params>(self, sql: &str, params: P) -> Result<usize, RawError> {
        Ok(self.0.execute(sql, params)?)
    }

    /// Maps the one row `sql` returns.
    ///
    /// # Errors
    /// The driver's (also when no row comes back).
    pub fn query_row<T, P, F>(self, sql: &str, params: P, f: F) -> Result<T, RawError>
    where
        P: Params,
        F: FnOnce(&Row<'_, '_>) -> Result<T, RowError>,
    {
        Ok(self.0.query_row(sql, params, |r| f(&Row(r)).map_err(|e| e.0))?)
    }

    /// Prepares `sql`.
    ///
    /// # Errors
    /// The driver's.
    pub fn prepare(self, sql: &str) -> Result<RawStatement<'c>, RawError> {
        Ok(RawStatement(self.0.prepare(sql)?))
    }
}

/// `values` as the parameters of a raw statement, in order.
pub fn values(values: &[RawValue]) -> impl Params + '_ {
    duckdb::params_from_iter(values)
}

/// A prepared raw statement ([`RawConnection::prepare`]).
pub struct RawStatement<'c>(duckdb::Statement<'c>);

impl RawStatement<'_> {
    /// Maps every row (read at once; the iterator yields them in order).
    ///
    /// # Errors
    /// The driver's, when the statement fails.
    pub fn query_map<T, P, F>(
        &mut self,
        params: P,
        mut f: F,
    ) -> Result<std::vec::IntoIter<Result<T, RawError>>, RawError>
    where
        P: Params,
        F: FnMut(&Row<'_, '_>) -> Result<T, RowError>,
    {
        let rows = self.0.query_map(params, |r| f(&Row(r)).map_err(|e| e.0))?;
        Ok(rows.map(|r| r.map_err(RawError)).collect::<Vec<_>>().into_iter())
    }

    /// Every row as the `{:?}` of its values (`[Text("a"), BigInt(1)]`).
    ///
    /// # Errors
    /// The driver's.
    pub fn query_debug(&mut self, params: &[RawValue]) -> Result<Vec<String>, RawError> {
        let mut rows = self.0.query(duckdb::params_from_iter(params))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let n = row.as_ref().column_count();
            let values = (0..n).map(|i| row.get(i)).collect::<Result<Vec<RawValue>, _>>()?;
            out.push(format!("{values:?}"));
        }
        Ok(out)
    }
}

impl Store {
    /// Runs `sql` (one or more statements) as it is: a test fixture, or a
    /// store damaged on purpose.
    ///
    /// # Errors
    /// DuckDB's message.
    pub fn raw_batch(&self, sql: &str) -> Result<(), String> {
        self.conn.execute_batch(sql).map_err(|e| e.to_string())
    }
}

impl crate::Reader {
    /// The one integer `sql` returns (its first row's first column).
    ///
    /// # Errors
    /// DuckDB's message (also when no row comes back).
    pub fn raw_i64(&self, sql: &str) -> Result<i64, String> {
        self.conn.query_row(sql, [], |r| r.get(0)).map_err(|e| e.to_string())
    }
}
