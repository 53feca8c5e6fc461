//! kdrift's ingest side: sources (dump files, the Kubernetes API,
//! VictoriaLogs, the demo scenario) into the append-only DuckDB store.
//!
//! - [`api`]: `kdrift ingest api` (snapshot) and `kdrift record` (recorder);
//! - [`parse`]: bytes of a dump → object-version [`record::Record`]s;
//! - [`record_mask`]: credentials in records' free text masked before the store;
//! - [`store`]: the DuckDB file, its schema and every named query;
//! - [`files`]: `kdrift ingest file`, one run over many files;
//! - [`gzip`]: gzip input with a cap on what it may expand to;
//! - [`interrupt`]: stopping an ingest early (the CLI's SIGINT/SIGTERM);
//! - [`instant`]: instants as users type them (RFC 3339 or UTC microseconds);
//! - [`victorialogs`]: `kdrift ingest victorialogs`, one run per query window;
//! - [`scenario`]: the deterministic demo cluster history; [`demo`] loads it.

pub mod actions;
pub mod api;
pub mod demo;
pub mod files;
pub mod gzip;
pub mod instant;
pub mod interrupt;
pub mod ndjson_stream;
pub mod parallel;
pub mod parse;
pub mod record;
pub mod record_mask;
pub mod scenario;
pub mod store;
pub mod victorialogs;

pub use files::{
    ingest_files, ingest_files_until, ingest_files_with, ingest_records, FileLimits, FileSummary, IngestReport,
    NoProgress, Progress,
};
pub use interrupt::Interrupt;
pub use store::{Store, StoreError};
