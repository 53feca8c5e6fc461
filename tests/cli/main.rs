//! The `kdrift` binary end to end, as a user runs it, in one test binary
//! (run as an integration test of the `kdrift` package so that cargo builds
//! the binary and sets `CARGO_BIN_EXE_kdrift`): a module per area. The
//! library-level tests are the other binary, `tests/library/main.rs`.
//!
//! Run one area with a filter: `cargo test -p kdrift --test cli messages::`.

mod commands;
mod first_hour;
mod interrupt;
mod kubectl;
mod messages;
mod rebalance;
mod rebalance_usage;
mod recorder_process;
mod report_html;
mod sessions;
mod usage;
mod vlogs;
