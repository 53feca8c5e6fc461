//! Query results read column by column (Arrow record batches, as
//! [`crate::Store::query_columns`] returns them), for the few results
//! of 100,000+ rows: duckdb-rs' row-by-row `Row::get` costs ~0.25 µs a value
//! (a downcast and a type match per call), which made reading the 175,678
//! kept drain moves of the 10M-event store take ~0.6 s against ~0.2 s for
//! the query itself (kdrift issue 6).
//!
//! Each accessor checks a column's Arrow type once per batch and names the
//! query and the column when it is not the expected one
//! ([`StoreError::Column`]).

use chrono::{DateTime, Utc};
use duckdb::arrow::array::{Array, BooleanArray, Int32Array, Int64Array, StringArray, TimestampMicrosecondArray};
use duckdb::arrow::record_batch::RecordBatch;

use crate::sql::NamedQuery;
use crate::StoreError;

/// A named query's whole result, as the batches DuckDB handed over.
pub struct Batches {
    query: &'static str,
    batches: Vec<RecordBatch>,
}

impl Batches {
    pub(crate) fn new(q: &NamedQuery, batches: Vec<RecordBatch>) -> Batches {
        Batches { query: q.name, batches }
    }

    /// Rows in every batch.
    pub fn rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// Each batch's columns, in order.
    pub fn iter(&self) -> impl Iterator<Item = Columns<'_>> {
        self.batches.iter().map(|batch| Columns { query: self.query, batch })
    }
}

/// One batch of a named query's result.
pub struct Columns<'a> {
    query: &'static str,
    batch: &'a RecordBatch,
}

impl<'a> Columns<'a> {
    pub(crate) fn new(q: &NamedQuery, batch: &'a RecordBatch) -> Columns<'a> {
        Columns { query: q.name, batch }
    }

    /// Rows in this batch.
    pub fn rows(&self) -> usize {
        self.batch.num_rows()
    }

    fn column<T: 'static>(&self, i: usize, expected: &str) -> Result<&'a T, StoreError> {
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

    fn error(&self, column: usize, name: String, problem: String) -> StoreError {
        StoreError::Column { query: self.query, column, name, problem }
    }

    /// Column `i` as text (SQL VARCHAR).
    pub fn text(&self, i: usize) -> Result<Text<'a>, StoreError> {
        Ok(Text(self.column::<StringArray>(i, "Utf8 (VARCHAR)")?))
    }

    /// Column `i` as 32-bit integers (SQL INTEGER).
    pub fn int32(&self, i: usize) -> Result<Int32s<'a>, StoreError> {
        Ok(Int32s(self.column::<Int32Array>(i, "Int32 (INTEGER)")?))
    }

    /// Column `i` as 64-bit integers (SQL BIGINT).
    pub fn int64(&self, i: usize) -> Result<Int64s<'a>, StoreError> {
        Ok(Int64s(self.column::<Int64Array>(i, "Int64 (BIGINT)")?))
    }

    /// Column `i` as booleans (SQL BOOLEAN).
    pub fn bools(&self, i: usize) -> Result<Bools<'a>, StoreError> {
        Ok(Bools(self.column::<BooleanArray>(i, "Boolean (BOOLEAN)")?))
    }

    /// Row `row` of integer column `i`, or the NULL error.
    pub fn required_i64(&self, a: Int64s<'_>, i: usize, row: usize) -> Result<i64, StoreError> {
        a.get(row).ok_or_else(|| self.null(i))
    }

    /// Row `row` of boolean column `i`, or the NULL error.
    pub fn required_bool(&self, a: Bools<'_>, i: usize, row: usize) -> Result<bool, StoreError> {
        a.get(row).ok_or_else(|| self.null(i))
    }

    /// Column `i` as UTC instants (SQL TIMESTAMP: microseconds, no time zone).
    pub fn times(&self, i: usize) -> Result<Times<'a>, StoreError> {
        Ok(Times(self.column::<TimestampMicrosecondArray>(i, "Timestamp(Microsecond) (TIMESTAMP)")?))
    }

    /// The error for a NULL in column `i`, where a value is required.
    pub fn null(&self, i: usize) -> StoreError {
        let name = self.batch.schema().fields().get(i).map_or_else(|| "?".to_string(), |f| f.name().clone());
        self.error(i, name, "is NULL where a value is required".to_string())
    }
}

/// A text column.
#[derive(Clone, Copy)]
pub struct Text<'a>(&'a StringArray);

impl<'a> Text<'a> {
    /// Row `row`'s value; `None` for NULL.
    pub fn get(&self, row: usize) -> Option<&'a str> {
        (!self.0.is_null(row)).then(|| self.0.value(row))
    }
}

/// A TIMESTAMP column.
#[derive(Clone, Copy)]
pub struct Times<'a>(&'a TimestampMicrosecondArray);

impl Times<'_> {
    /// Row `row`'s instant; `None` for NULL (or out of chrono's range).
    pub fn get(&self, row: usize) -> Option<DateTime<Utc>> {
        (!self.0.is_null(row)).then(|| DateTime::from_timestamp_micros(self.0.value(row))).flatten()
    }
}

/// An INTEGER column.
#[derive(Clone, Copy)]
pub struct Int32s<'a>(&'a Int32Array);

impl Int32s<'_> {
    /// Row `row`'s value; `None` for NULL.
    pub fn get(&self, row: usize) -> Option<i32> {
        (!self.0.is_null(row)).then(|| self.0.value(row))
    }
}

/// A BIGINT column.
#[derive(Clone, Copy)]
pub struct Int64s<'a>(&'a Int64Array);

impl Int64s<'_> {
    /// Row `row`'s value; `None` for NULL.
    pub fn get(&self, row: usize) -> Option<i64> {
        (!self.0.is_null(row)).then(|| self.0.value(row))
    }
}

/// A BOOLEAN column.
#[derive(Clone, Copy)]
pub struct Bools<'a>(&'a BooleanArray);

impl Bools<'_> {
    /// Row `row`'s value; `None` for NULL.
    pub fn get(&self, row: usize) -> Option<bool> {
        (!self.0.is_null(row)).then(|| self.0.value(row))
    }
}
