//! kdrift's ingest side: sources (dump files, the demo scenario; the live API
//! and VictoriaLogs later) into the append-only DuckDB store.
//!
//! - [`parse`]: bytes of a dump → object-version [`record::Record`]s;
//! - [`store`]: the DuckDB file, its schema and every named query;
//! - [`files`]: `kdrift ingest file`, one run over many files;
//! - [`scenario`]: the deterministic demo cluster history; [`demo`] loads it.

pub mod actions;
pub mod demo;
pub mod files;
pub mod parse;
pub mod record;
pub mod scenario;
pub mod store;

pub use files::{ingest_files, ingest_records, FileSummary, IngestReport, NoProgress, Progress};
pub use store::{Store, StoreError};
