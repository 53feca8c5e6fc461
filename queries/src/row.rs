//! What a caller of a named query sees of DuckDB: the parameters it binds
//! ([`Param`], [`params!`](crate::params)) and the rows it maps ([`Row`],
//! [`RowError`]). Callers (`kdrift-ingest`, `kdrift-analyze`) map rows into
//! their own structs through these, never through the driver's types.

/// One value bound to a query's `$1`, `$2`, … (integers, text, booleans,
/// instants, their `Option`s): anything DuckDB's driver can bind.
pub trait Param {
    /// The driver's view of the value.
    #[doc(hidden)]
    fn as_sql(&self) -> &dyn duckdb::ToSql;
}

impl<T: duckdb::ToSql> Param for T {
    fn as_sql(&self) -> &dyn duckdb::ToSql {
        self
    }
}

impl duckdb::ToSql for dyn Param + '_ {
    fn to_sql(&self) -> duckdb::Result<duckdb::types::ToSqlOutput<'_>> {
        self.as_sql().to_sql()
    }
}

/// Parameters of mixed types for a named query, bound in order to `$1`,
/// `$2`, …: `params![namespace, name, at.timestamp_micros()]`. (Values of
/// one type can be passed as an array: `[first, last]`.)
#[macro_export]
macro_rules! params {
    () => {
        [] as [&dyn $crate::Param; 0]
    };
    ($($p:expr),+ $(,)?) => {
        [$(&$p as &dyn $crate::Param),+]
    };
}

/// A value a result column can be read as (integers, text, booleans,
/// `DateTime<Utc>`, their `Option`s for nullable columns).
pub trait FromColumn: duckdb::types::FromSql {}

impl<T: duckdb::types::FromSql> FromColumn for T {}

/// A column's position in a result row (from 0), or its name.
pub trait ColumnIndex: duckdb::RowIndex {}

impl<T: duckdb::RowIndex> ColumnIndex for T {}

/// One row of a named query's result ([`crate::Reader::query_map`],
/// [`crate::Reader::query_one`]).
pub struct Row<'r, 's>(pub(crate) &'r duckdb::Row<'s>);

impl Row<'_, '_> {
    /// Column `idx` as a `T`.
    ///
    /// # Errors
    /// [`RowError`] when the column is missing or its value is not a `T`
    /// (a NULL read as a non-`Option`, text read as an integer); the store
    /// reports it as a failure of the query, naming it.
    pub fn get<I: ColumnIndex, T: FromColumn>(&self, idx: I) -> Result<T, RowError> {
        self.0.get(idx).map_err(RowError)
    }
}

/// A value of a row that could not be read as asked ([`Row::get`]).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct RowError(pub(crate) duckdb::Error);
