//! kdrift's library-level integration tests, one binary (each test binary
//! links the bundled DuckDB, so they are gathered in one): a module per
//! area, each with its own `//!` saying what it covers. The `kdrift`
//! binary's end-to-end tests are the other binary, `tests/cli/main.rs`.
//!
//! Run one area with a filter: `cargo test -p kdrift-tests --test library robustness::`.

mod api_ingest;
mod cut_and_foreign_files;
mod demo;
mod deploy_rebalance;
mod deploy_recorder;
mod deploy_sessions;
mod fake_kube;
mod pending_chain;
mod queries;
mod real_dumps;
mod rebalance;
mod rebalance_exec;
mod rebalance_list_calls;
mod recorder;
mod report_data;
mod robustness;
mod run_closing;
mod scale_data;
mod state;
mod store;
mod store_compression;
mod store_memory;
mod store_models;
mod streamed_yaml;
mod time_travel;
mod timeline;
mod usage_planner;
mod usage_prometheus;
mod vlogs_demo;
mod vlogs_failures;
mod vlogs_layouts;
mod vlogs_real;
mod whole_policy;
