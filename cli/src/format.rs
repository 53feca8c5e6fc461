//! `-o table|json|yaml|wide` and `--no-headers`, as kubectl has them. The
//! commands choose between a table and a document ([`crate::args::Output`]);
//! how that is written is set here once, before a command renders:
//! `yaml` is the `-o json` document in YAML ([`crate::render::json`]),
//! `wide` the tables with no cell cut and their extra columns
//! ([`wide`]), `--no-headers` the tables without their header line
//! ([`crate::render::plain`]).

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use clap::ValueEnum;

use crate::args::Output;

/// `-o` as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable tables.
    Table,
    /// One JSON document.
    Json,
    /// The JSON document, in YAML.
    Yaml,
    /// Tables with every cell whole (no --max-cell-width cut) and their extra columns (why-pending
    /// --all, timeline drains, skew, hotspots, rebalance plan; the others: the table, uncut).
    Wide,
}

impl Format {
    /// What the command renders: a table (table, wide) or a document (json, yaml).
    pub fn output(self) -> Output {
        match self {
            Format::Table | Format::Wide => Output::Table,
            Format::Json | Format::Yaml => Output::Json,
        }
    }
}

/// The format given, as [`Format`]'s index.
static FORMAT: AtomicU8 = AtomicU8::new(0);
/// `--no-headers`.
static NO_HEADERS: AtomicBool = AtomicBool::new(false);

/// Records `-o` and `--no-headers` for the renderers (once, in `cmd::run`).
pub fn set(format: Format, no_headers: bool) {
    FORMAT.store(format as u8, Ordering::Relaxed);
    NO_HEADERS.store(no_headers, Ordering::Relaxed);
    if format == Format::Wide {
        crate::render::set_max_cell_width(0);
    }
}

/// `-o yaml`: documents are written as YAML.
pub fn yaml() -> bool {
    FORMAT.load(Ordering::Relaxed) == Format::Yaml as u8
}

/// `-o wide`: tables show their extra columns.
pub fn wide() -> bool {
    FORMAT.load(Ordering::Relaxed) == Format::Wide as u8
}

/// `--no-headers`: tables leave out their header line.
pub fn no_headers() -> bool {
    NO_HEADERS.load(Ordering::Relaxed)
}
