//! Does nothing: it exists so that the `[build-dependencies]` in
//! Cargo.toml, which pin the host features libduckdb-sys's build script is
//! compiled with, take part in every build that links DuckDB.
fn main() {}
