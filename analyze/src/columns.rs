//! Query results read column by column (Arrow record batches, as
//! [`kdrift_store::Store::query_arrow`] returns them), for the few results
//! of 100,000+ rows: duckdb-rs' row-by-row `Row::get` costs ~0.25 µs a value
//! (a downcast and a type match per call), which made reading the 175,678
//! kept drain moves of the 10M-event store take ~0.6 s against ~0.2 s for
//! the query itself (kdrift issue 6).
//!
//! Each accessor checks a column's Arrow type once per batch and names the
//! query and the column when it is not the expected one
//! ([`AnalyzeError::Column`]).

use chrono::{DateTime, Utc};
use duckdb::arrow::array::{Array, BooleanArray, Int32Array, Int64Array, StringArray, TimestampMicrosecondArray};
use duckdb::arrow::record_batch::RecordBatch;
use kdrift_store::sql::NamedQuery;

use crate::AnalyzeError;

/// One batch of a named query's result.
pub(crate) struct Columns<'a> {
    query: &'static str,
    batch: &'a RecordBatch,
}

impl<'a> Columns<'a> {
    /// The batch `batch` of query `q`'s result.
    pub(crate) fn of(q: &NamedQuery, batch: &'a RecordBatch) -> Columns<'a> {
        Columns { query: q.name, batch }
    }

    /// Rows in this batch.
    pub(crate) fn rows(&self) -> usize {
        self.batch.num_rows()
    }

    fn column<T: 'static>(&self, i: usize, expected: &str) -> Result<&'a T, AnalyzeError> {
        let batch: &'a RecordBatch = self.batch;
        let name = || batch.schema().fields().get(i).map_or_else(|| "?".to_string(), |f| f.name().clone());
        let Some(column) = batch.columns().get(i) else {
            return Err(self.error(i, name(), format!("is missing, expected {expected}")));
        };
        column
            .as_any()
            .downcast_ref::<T>()
            .ok_or_else(|| self.error(i, name(), format!("is {}, expected {expected}", column.data_type())))
    }

    fn error(&self, column: usize, name: String, problem: String) -> AnalyzeError {
        AnalyzeError::Column { query: self.query, column, name, problem }
    }

    /// Column `i` as text (SQL VARCHAR).
    pub(crate) fn text(&self, i: usize) -> Result<Text<'a>, AnalyzeError> {
        Ok(Text(self.column::<StringArray>(i, "Utf8 (VARCHAR)")?))
    }

    /// Column `i` as 32-bit integers (SQL INTEGER).
    pub(crate) fn int32(&self, i: usize) -> Result<&'a Int32Array, AnalyzeError> {
        self.column::<Int32Array>(i, "Int32 (INTEGER)")
    }

    /// Column `i` as 64-bit integers (SQL BIGINT).
    pub(crate) fn int64(&self, i: usize) -> Result<&'a Int64Array, AnalyzeError> {
        self.column::<Int64Array>(i, "Int64 (BIGINT)")
    }

    /// Column `i` as booleans (SQL BOOLEAN).
    pub(crate) fn bools(&self, i: usize) -> Result<&'a BooleanArray, AnalyzeError> {
        self.column::<BooleanArray>(i, "Boolean (BOOLEAN)")
    }

    /// Row `row` of integer column `i`, or the NULL error.
    pub(crate) fn required_i64(&self, a: &Int64Array, i: usize, row: usize) -> Result<i64, AnalyzeError> {
        if a.is_null(row) {
            return Err(self.null(i));
        }
        Ok(a.value(row))
    }

    /// Row `row` of boolean column `i`, or the NULL error.
    pub(crate) fn required_bool(&self, a: &BooleanArray, i: usize, row: usize) -> Result<bool, AnalyzeError> {
        if a.is_null(row) {
            return Err(self.null(i));
        }
        Ok(a.value(row))
    }

    /// Column `i` as UTC instants (SQL TIMESTAMP: microseconds, no time zone).
    pub(crate) fn times(&self, i: usize) -> Result<Times<'a>, AnalyzeError> {
        Ok(Times(self.column::<TimestampMicrosecondArray>(i, "Timestamp(Microsecond) (TIMESTAMP)")?))
    }

    /// The error for a NULL in column `i`, where a value is required.
    pub(crate) fn null(&self, i: usize) -> AnalyzeError {
        let name = self.batch.schema().fields().get(i).map_or_else(|| "?".to_string(), |f| f.name().clone());
        self.error(i, name, "is NULL where a value is required".to_string())
    }
}

/// A text column.
#[derive(Clone, Copy)]
pub(crate) struct Text<'a>(&'a StringArray);

impl<'a> Text<'a> {
    /// Row `row`'s value; `None` for NULL.
    pub(crate) fn get(&self, row: usize) -> Option<&'a str> {
        (!self.0.is_null(row)).then(|| self.0.value(row))
    }
}

/// A TIMESTAMP column.
#[derive(Clone, Copy)]
pub(crate) struct Times<'a>(&'a TimestampMicrosecondArray);

impl Times<'_> {
    /// Row `row`'s instant; `None` for NULL (or out of chrono's range).
    pub(crate) fn get(&self, row: usize) -> Option<DateTime<Utc>> {
        (!self.0.is_null(row)).then(|| DateTime::from_timestamp_micros(self.0.value(row))).flatten()
    }
}
