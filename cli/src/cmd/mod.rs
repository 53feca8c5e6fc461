//! One function per command: open the store, call the library, render.

mod api;
mod backtest;
mod check;
mod cluster;
mod demo;
mod explain;
mod hotspots;
mod ingest;
mod ingest_prometheus;
mod ingest_stdin;
mod postmortem;
mod query;
mod rebalance;
mod rebalance_exec;
mod rebalance_prometheus;
mod rebalance_usage;
mod report;
mod sessions;
mod skew;
mod timeline;
mod version;
mod why_pending;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use chrono::{DateTime, Utc};
use kdrift_store::Store;

use crate::progress::migrations::Migrations;

use crate::args::{Cli, Command, IngestCommand, PostmortemCommand, RebalanceCommand, SessionsCommand, TimelineCommand};

/// The one rule of "nothing found" (docs/cli.md): the command's table or
/// document is on stdout (an empty table prints nothing), `why` and the
/// `notes` that go with it on stderr (`kdrift: why`, `note: …`), exit 1;
/// exit 0 when `why` is `None` (something was found).
///
/// # Errors
/// Writing stderr.
pub(crate) fn nothing_found(why: Option<String>, notes: &[String]) -> anyhow::Result<ExitCode> {
    let Some(why) = why else { return Ok(ExitCode::SUCCESS) };
    let mut err = std::io::stderr().lock();
    writeln!(err, "kdrift: {why}")?;
    for n in notes {
        writeln!(err, "note: {n}")?;
    }
    Ok(ExitCode::from(1))
}

/// Refuses a `--since` after `--until` (nothing can be in that range; the
/// commands would report "nothing found" instead).
///
/// # Errors
/// The refusal, naming both instants.
pub(crate) fn check_range(since: Option<DateTime<Utc>>, until: Option<DateTime<Utc>>) -> anyhow::Result<()> {
    if let (Some(since), Some(until)) = (since, until) {
        let utc = crate::render::time;
        anyhow::ensure!(
            since <= until,
            "--since {} is after --until {}: the range is empty (swap them?)",
            utc(since),
            utc(until)
        );
    }
    Ok(())
}

/// Tells the user, one `kdrift: warning:` line each, about the runs a
/// process that ended left `running`: those opening `store` closed as
/// failed ([`Store::abandoned_runs`]), and those a read-only open found and
/// left for the next open for writing to close ([`Store::unclosed_runs`]).
///
/// # Errors
/// Writing to stderr failed.
pub(crate) fn warn_abandoned_runs(store: &Store) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for run in store.abandoned_runs() {
        writeln!(err, "kdrift: warning: store {}: {run}", store.path().display())?;
    }
    for run in store.unclosed_runs() {
        writeln!(err, "kdrift: warning: store {}: {run}", store.path().display())?;
    }
    Ok(())
}

/// How the command's stores are opened: DuckDB's memory limit
/// (`--memory-limit` / `KDRIFT_MEMORY_LIMIT`).
pub(crate) fn store_options(cli: &Cli) -> kdrift_store::OpenOptions {
    kdrift_store::OpenOptions { memory_limit: cli.memory_limit }
}

/// Opens (or creates) the store at `--db` for writing ([`Store::open`]),
/// with `--memory-limit`, warning about the runs it closed as abandoned.
///
/// # Errors
/// The store cannot be opened.
pub(crate) fn open_store(cli: &Cli) -> anyhow::Result<Store> {
    let db = &cli.db;
    let store = Store::open_with(db, &store_options(cli), &Migrations::new())
        .with_context(|| format!("opening store {}", db.display()))?;
    warn_abandoned_runs(&store)?;
    Ok(store)
}

/// After an ingest that completed: sorts the name index and the bindings
/// again when batches appended enough to them ([`Store::sort_name_index`],
/// [`Store::sort_pod_bindings`]), then keeps the drain timeline's moves and
/// episodes of the history as it now is
/// ([`keep_drain_moves`]), so that `timeline drains` and
/// `why-pending` read them instead of matching every eviction of the
/// history again. Logged (`-v`); a failure is a warning, not the command's:
/// the ingested data stays, lookups by name or node read more of the
/// unsorted tables, and the analyses compute the moves from the history
/// instead.
///
/// # Errors
/// Writing the warning to stderr failed.
pub(crate) fn keep_after_ingest(store: &Store) -> anyhow::Result<()> {
    sort_when_grown(
        store,
        Store::sort_name_index,
        [
            "sorted the name index",
            "the name index's",
            "the name index was not sorted",
            "lookups by name read more of it",
        ],
    )?;
    sort_when_grown(
        store,
        Store::sort_pod_bindings,
        [
            "sorted the bindings by node",
            "the bindings'",
            "the bindings were not sorted by node",
            "lookups by node read more of them",
        ],
    )?;
    let started = std::time::Instant::now();
    match keep_drain_moves(store) {
        Ok(kept) if kept.computed => tracing::info!(
            "kept the moves of {} drain operation(s): {} pod(s), {:.2} s",
            kept.operations,
            kept.moves,
            started.elapsed().as_secs_f64()
        ),
        Ok(_) => tracing::info!("the kept drain moves are already those of the history (nothing new to match)"),
        Err(e) => writeln!(
            std::io::stderr(),
            "kdrift: warning: store {}: the drain moves were not kept ({:#}); `kdrift timeline drains` computes them \
             from the history instead",
            store.path().display(),
            e
        )?,
    }
    Ok(())
}

/// Keeps the drain moves of the history as it now is: matched by the
/// analyses ([`kdrift_analyze::moves_to_keep`], which only read),
/// written by the store ([`Store::keep_drain_moves`]); nothing when the kept
/// ones are fresh.
///
/// # Errors
/// The analysis or the write failed.
pub(crate) fn keep_drain_moves(store: &Store) -> anyhow::Result<kdrift_store::KeptMoves> {
    Ok(match kdrift_analyze::moves_to_keep(store)? {
        Some(moves) => store.keep_drain_moves(&moves)?,
        None => kdrift_store::KeptMoves { computed: false, operations: 0, moves: 0 },
    })
}

/// Runs one of the store's "sort when grown by an eighth" steps
/// ([`Store::sort_name_index`], [`Store::sort_pod_bindings`]): logs what it
/// did (`-v`), or warns on stderr when it failed (the store stays correct,
/// only slower to read). `words`: what sorting did, whose unsorted tail
/// was small, what failed, and what that costs.
fn sort_when_grown(
    store: &Store,
    sort: fn(&Store) -> Result<bool, kdrift_store::StoreError>,
    [done, whose, failed, cost]: [&str; 4],
) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    match sort(store) {
        Ok(true) => tracing::info!("{done}, {:.2} s", started.elapsed().as_secs_f64()),
        Ok(false) => tracing::debug!("{whose} unsorted tail is small; not sorted"),
        Err(e) => writeln!(
            std::io::stderr(),
            "kdrift: warning: store {}: {failed} ({:#}); {cost}",
            store.path().display(),
            e
        )?,
    }
    Ok(())
}

/// Opens the existing store at `--db` read-only ([`Store::open_existing`]),
/// with `--memory-limit`, warning about the runs a migration closed as
/// abandoned, or that are still marked `running` though their process has
/// ended.
///
/// # Errors
/// The store cannot be opened.
pub(crate) fn open_existing_store(cli: &Cli) -> anyhow::Result<Store> {
    let db = &cli.db;
    let store = Store::open_existing_with(db, &store_options(cli), &Migrations::new())
        .with_context(|| format!("opening store {}", db.display()))?;
    warn_abandoned_runs(&store)?;
    Ok(store)
}

/// Runs the parsed command; returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    crate::render::set_max_cell_width(cli.max_cell_width);
    crate::format::set(cli.format, cli.no_headers);
    // `-o wide` is never cut to the terminal.
    crate::render::fit::init(crate::format::wide());
    match &cli.command {
        Command::Ingest(IngestCommand::File(args)) => ingest::file(&cli, args),
        Command::Ingest(IngestCommand::Api(args)) => api::snapshot(&cli, args),
        Command::Record(args) => api::record(&cli, args),
        Command::Ingest(IngestCommand::Victorialogs(args)) => ingest::victorialogs(&cli, args),
        Command::Ingest(IngestCommand::Prometheus(args)) => ingest_prometheus::run(&cli, args),
        Command::WhyPending(args) => why_pending::run(&cli, args),
        Command::Demo(args) => demo::run(&cli, args),
        Command::Query(args) => query::run(&cli, args),
        Command::Rebalance(RebalanceCommand::Plan(args)) => rebalance::plan(&cli, args),
        Command::Rebalance(RebalanceCommand::Recommend(args)) => rebalance::recommend(&cli, args),
        Command::Rebalance(RebalanceCommand::Explain(args)) => explain::explain(&cli, args),
        Command::Rebalance(RebalanceCommand::Backtest(args)) => backtest::backtest(&cli, args),
        Command::Rebalance(RebalanceCommand::Apply(args)) => rebalance_exec::apply(&cli, args),
        Command::Rebalance(RebalanceCommand::Run(args)) => rebalance_exec::run(&cli, args),
        Command::Check(args) => check::run(&cli, args),
        Command::Sessions(SessionsCommand::Annotate(args)) => sessions::annotate(&cli, args),
        Command::Skew(args) => skew::run(&cli, args),
        Command::Hotspots(args) => hotspots::run(&cli, args),
        Command::Postmortem(PostmortemCommand::Job(args)) => postmortem::job(&cli, args),
        Command::Timeline(TimelineCommand::Drains(args)) => timeline::drains(&cli, args),
        Command::Report(args) => report::run(&cli, args),
        Command::Completion(args) => {
            crate::completion::run(args, crate::plugin::bin(), &mut std::io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Version => version::run(&cli),
    }
}
