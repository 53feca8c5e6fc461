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
}
