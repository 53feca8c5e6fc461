//! What the tests of other crates need to build or damage a store and to
//! read what no named query reads, without depending on DuckDB themselves
//! (feature `test-support`; never in the binary). Raw SQL, no parameters.

use duckdb::types::ValueRef;

use crate::Store;

impl Store {
    /// Runs `sql` (one or more statements) as it is: a test fixture, or a
    /// store damaged on purpose.
    ///
    /// # Errors
    /// DuckDB's message.
    pub fn raw_batch(&self, sql: &str) -> Result<(), String> {
        self.conn.execute_batch(sql).map_err(|e| e.to_string())
    }

    /// The one integer `sql` returns (its first row's first column).
    ///
    /// # Errors
    /// DuckDB's message (also when no row comes back).
    pub fn raw_i64(&self, sql: &str) -> Result<i64, String> {
        self.conn.query_row(sql, [], |r| r.get(0)).map_err(|e| e.to_string())
    }

    /// Every row of `sql`, each value as text: `NULL`, numbers and booleans
    /// as SQL writes them, text as it is, any other type in its Debug form
    /// (cast it to VARCHAR in `sql` to read it as SQL writes it).
    ///
    /// # Errors
    /// DuckDB's message.
    pub fn raw_rows(&self, sql: &str) -> Result<Vec<Vec<String>>, String> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| e.to_string())?;
        let mut rows = stmt.query([]).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| e.to_string())? {
            let n = row.as_ref().column_count();
            let mut values = Vec::with_capacity(n);
            for i in 0..n {
                values.push(match row.get_ref(i).map_err(|e| e.to_string())? {
                    ValueRef::Null => "NULL".to_string(),
                    ValueRef::Boolean(b) => b.to_string(),
                    ValueRef::TinyInt(v) => v.to_string(),
                    ValueRef::SmallInt(v) => v.to_string(),
                    ValueRef::Int(v) => v.to_string(),
                    ValueRef::BigInt(v) => v.to_string(),
                    ValueRef::HugeInt(v) => v.to_string(),
                    ValueRef::UTinyInt(v) => v.to_string(),
                    ValueRef::USmallInt(v) => v.to_string(),
                    ValueRef::UInt(v) => v.to_string(),
                    ValueRef::UBigInt(v) => v.to_string(),
                    ValueRef::Float(v) => v.to_string(),
                    ValueRef::Double(v) => v.to_string(),
                    ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    other => format!("{other:?}"),
                });
            }
            out.push(values);
        }
        Ok(out)
    }
}
