//! kdrift's ingest side: sources (dump files, the Kubernetes API,
//! VictoriaLogs, the demo scenario) into the append-only store. It writes
//! through `kdrift-store` (runs, staged records, derived tables) and never
//! touches DuckDB itself; it re-exports nothing of the store (callers depend
//! on `kdrift-store` directly).
//!
//! - [`api`]: `kdrift ingest api` (snapshot) and `kdrift record` (recorder);
//! - [`parse`]: bytes of a dump → object-version `Record`s (`kdrift_store::record`);
//! - [`files`]: `kdrift ingest file`, one run over many files;
//! - [`gzip`]: gzip input with a cap on what it may expand to;
//! - [`interrupt`]: stopping an ingest early (the CLI's SIGINT/SIGTERM);
//! - [`victorialogs`]: `kdrift ingest victorialogs`, one run per query window;
//! - [`scenario`]: the deterministic demo cluster history; [`demo`] loads it.

pub mod actions;
pub mod api;
pub mod demo;
pub mod files;
pub mod gzip;
pub mod interrupt;
pub mod ndjson_stream;
pub mod parse;
pub mod scenario;
pub mod victorialogs;

pub use files::{
    ingest_files, ingest_files_until, ingest_files_with, ingest_records, FileLimits, FileSummary, IngestReport,
    NoProgress, Progress,
};
pub use interrupt::Interrupt;

// The store crate under the names this crate's modules use (`crate::store`,
// `crate::record`, `crate::Store`, …); private: nothing of it is re-exported.
use kdrift_store as store;
#[cfg(test)]
use kdrift_store::Store;
use kdrift_store::{instant, parallel, record};
