//! Errors of the analyses.

use kdrift_store::StoreError;

/// Why an analysis could not run (input problems inside the store, such as an
/// unparseable Pod object, are reported inside the findings instead).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnalyzeError {
    /// The store failed (names the query).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A pod reference that is not `NAMESPACE/NAME`.
    #[error("{0:?} is not a pod reference: expected NAMESPACE/NAME, e.g. media/backup-29930640-5l8lp")]
    BadPodRef(String),
    /// A query's result column is not of the type its reader expects (a
    /// store whose tables were altered by hand), or holds NULL where a
    /// value is required.
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
}
