//! `kdrift ingest file` and `kdrift ingest victorialogs`.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use kdrift_ingest::DecompressedCap;
use kdrift_ingest::{directories_without_dumps, missing_paths, refused_files, DUMP_EXTENSIONS};
use kdrift_ingest::{ingest_files_named, FileLimits};
use kdrift_ingest::{
    pull, Auth, CredentialSources, PullOptions, PullReport, Retry, Tenant, Timeouts, VlClient, VlError,
};

use crate::args::{Cli, IngestFileArgs, IngestVictorialogsArgs, Output};
use crate::progress::{Bar, PullBar};
use crate::render;
use crate::signals::{outcome, run_kept, windows_kept, Outcome, Stage};

/// Loads the files, prints the per-file summary on stdout and every input
/// error on stderr. Exit 2 when anything failed to load, else 0; a path that
/// does not exist, or nothing to load at all (only directories without dump
/// files and files that are no dump), is an error before the store is
/// opened (nothing is created). A directory without dump files next to
/// other paths is a warning. Files are stored by their absolute path.
/// SIGINT or SIGTERM closes the run as failed (the batches it committed
/// stay) and exits 130 or 143; during the final commit it is too late to
/// stop the run: it completes, a warning says so, and the exit status is
/// that of a completed ingest ([`crate::signals::outcome`]).
pub fn file(cli: &Cli, args: &IngestFileArgs) -> anyhow::Result<ExitCode> {
    // Caught first: a signal during the checks below (walking a large
    // directory) or while the store opens (a migration can take seconds)
    // is reported, not a silent death.
    let caught = crate::signals::catch()?;
    // `-`: standard input, read whole before anything else.
    let inputs = super::ingest_stdin::Inputs::take(&args.paths)?;
    let paths = &inputs.paths;
    // A mistyped path is refused before the store is created or a run recorded.
    let missing = missing_paths(paths);
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|p| p.display().to_string()).collect();
        anyhow::bail!(
            "{}: no such file or directory; nothing was loaded (store {} not opened)",
            names.join(", "),
            cli.db.display()
        );
    }
    // A directory with no dump file in it: an error when nothing else was
    // given (nothing to load), else a warning.
    let empty = directories_without_dumps(paths);
    let described: Vec<String> = empty
        .iter()
        .map(|(dir, ignored)| match ignored {
            0 => format!("no files found in {}", dir.display()),
            n => format!("no dump files found in {} ({n} other file(s) ignored)", dir.display()),
        })
        .collect();
    if !empty.is_empty() && empty.len() == paths.len() {
        anyhow::bail!(
            "{}: nothing to load (in a directory kdrift reads files ending {}, also .gz); store {} not opened",
            described.join("; "),
            DUMP_EXTENSIONS.iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(", "),
            cli.db.display()
        );
    }
    // Named files that are no dump (a TSV, a `kubectl get` table): with
    // nothing else to load, refused before the store is created or a run
    // recorded; next to other inputs, reported by the run (exit 2).
    let refused: Vec<_> = refused_files(paths).into_iter().map(|e| inputs.named(e)).collect();
    if !refused.is_empty() && refused.len() + empty.len() == paths.len() {
        let reasons: Vec<String> = refused.iter().map(ToString::to_string).chain(described).collect();
        anyhow::bail!("{}; nothing was loaded (store {} not opened)", reasons.join("; "), cli.db.display());
    }
    for d in &described {
        writeln!(std::io::stderr(), "kdrift: warning: {d}")?;
    }
    if caught.interrupt().is_triggered() {
        return interrupted_before_loading(cli, &caught, "store not opened");
    }
    let store = crate::cmd::open_store(cli)?;
    caught.store_opened();
    if caught.interrupt().is_triggered() {
        return interrupted_before_loading(cli, &caught, "no run recorded");
    }
    let report = {
        let mut bar = Bar::new();
        let limits = FileLimits {
            decompressed: args.max_decompressed.map_or(DecompressedCap::Default, DecompressedCap::Bytes),
            yaml_depth: args.max_yaml_depth,
            batch_bytes: args.max_batch_bytes,
            parsed_bytes: args.max_parsed_bytes.unwrap_or(cli.memory_limit.min(kdrift_ingest::MAX_PARSED_BYTES)),
        };
        ingest_files_named(&store, paths, &inputs.names, &limits, args.at, &mut bar, caught.interrupt())?
    };
    let stage = if report.interrupted {
        Stage::Reading
    } else if report.interrupted_during_commit {
        Stage::FinalCommit
    } else {
        Stage::Finished
    };
    let kept = run_kept(report.run_id);
    if let Outcome::Stopped { exit_status } = outcome(caught.signal(), stage, &kept) {
        // The input errors met before the signal: recorded with the run too.
        for e in report.files.iter().flat_map(|f| &f.errors) {
            writeln!(std::io::stderr(), "kdrift: {e}")?;
        }
        let c = report.counts;
        writeln!(
            std::io::stderr(),
            "kdrift: error: interrupted by {}: run {} is closed as failed; the {} object versions it committed before \
             ({} new) stay in {}, what it read since is dropped (ingesting the same files again adds only what is \
             missing)",
            caught.signal_name(),
            report.run_id,
            c.records,
            c.added,
            cli.db.display()
        )?;
        return Ok(ExitCode::from(exit_status));
    }
    crate::cmd::keep_after_ingest(&store)?;
    {
        let mut err = std::io::stderr().lock();
        for file in &report.files {
            for e in &file.errors {
                writeln!(err, "kdrift: {e}")?;
            }
        }
        for e in report.usage.iter().flat_map(|u| &u.errors) {
            writeln!(err, "kdrift: {e}")?;
        }
        for w in &report.warnings {
            writeln!(err, "kdrift: warning: {w}")?;
        }
        if args.at.is_none() {
            if let Some(note) = top_time_note(&report.usage) {
                writeln!(err, "kdrift: note: {note}")?;
            }
        }
    }
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => {
            // Directories given: a row per directory read, unless -v.
            let dirs: Vec<String> = if cli.verbose == 0 {
                paths
                    .iter()
                    .filter(|p| p.is_dir())
                    .filter_map(|p| std::fs::canonicalize(p).ok())
                    .map(|p| p.display().to_string())
                    .collect()
            } else {
                Vec::new()
            };
            render::ingest::summary(&mut out, &report, &cli.db, &dirs)?
        }
    }
    drop(out);
    // A signal too late to stop the run (during its final commit, or since):
    // it completed and is kept, and the exit status says so; the warning
    // says the signal was seen.
    if let Outcome::Completed { warning } = outcome(caught.signal(), stage, &kept) {
        writeln!(std::io::stderr(), "{warning}")?;
    }
    Ok(if report.error_count() > 0 { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

/// A signal before the run began: nothing was loaded; exit 130 or 143.
fn interrupted_before_loading(cli: &Cli, caught: &crate::signals::Caught, what: &str) -> anyhow::Result<ExitCode> {
    writeln!(
        std::io::stderr(),
        "kdrift: error: interrupted by {} before anything was loaded ({what}: {})",
        caught.signal_name(),
        cli.db.display()
    )?;
    Ok(caught.exit_code())
}

/// Pulls from VictoriaLogs window by window, prints the per-window summary
/// on stdout and every row that could not be stored on stderr. Exit 2 when
/// the pull stopped (the windows committed before stay) or a row failed;
/// 130 or 143 on SIGINT or SIGTERM ([`crate::signals`]); during the final
/// window's commit it is too late to stop the pull: it completes, a warning
/// says so, and the exit status is that of a completed pull, as for
/// `ingest file`.
pub fn victorialogs(cli: &Cli, args: &IngestVictorialogsArgs) -> anyhow::Result<ExitCode> {
    let sources = CredentialSources {
        user: args.user.clone(),
        password_file: args.password_file.clone(),
        bearer_token_file: args.bearer_token_file.clone(),
        headers_file: args.headers_file.clone(),
        tenant: Tenant { account_id: args.account_id, project_id: args.project_id },
    };
    let auth = Auth::load(&sources, &|name| std::env::var(name).ok())?;
    let client = VlClient::new(&args.url, auth, Timeouts::default())?
        .follow_redirects(args.follow_redirects)?
        .with_request_timeout(args.request_timeout);
    let caught = crate::signals::catch()?;
    let options = PullOptions {
        start: args.start,
        end: args.end,
        filter: args.filter.clone(),
        layout: args.layout,
        resume: args.resume,
        max_rows_per_window: args.window_rows,
        retry: Retry { attempts: args.attempts, first_delay: args.retry_delay, ..Retry::default() },
        // No batch larger than DuckDB can commit under --memory-limit (issue 39).
        max_batch_bytes: args.max_batch_bytes.min(kdrift_store::batch_bytes_within(cli.memory_limit)),
        max_window_bytes: args.max_window_bytes,
        interrupt: caught.interrupt().clone(),
        ..PullOptions::default()
    };
    // A range that cannot be pulled is refused before any store is created.
    options.range(chrono::Utc::now())?;
    let store = crate::cmd::open_store(cli)?;
    caught.store_opened();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the runtime")?;
    let pulled = {
        let mut bar = PullBar::new();
        runtime.block_on(pull(&store, &client, &options, &mut bar))
    };
    let (report, failure) = match pulled {
        Ok(report) => (report, None),
        Err(failed) => {
            let failed = *failed;
            (failed.committed, Some(failed.error))
        }
    };
    // A pull that failed before committing anything has no summary to give
    // (0 rows, 0 windows would read as a finished pull): only its error.
    if failure.is_none() || !report.windows.is_empty() {
        print_pull(cli, &report)?;
    }
    if let Some(error @ VlError::Interrupted { .. }) = &failure {
        writeln!(std::io::stderr(), "kdrift: error: interrupted by {}: {error}", caught.signal_name())?;
        return Ok(caught.exit_code());
    }
    if let Some(error) = failure {
        if !report.windows.is_empty() {
            committed_before_failure(report.windows.len(), &cli.db)?;
        }
        return Err(error.into());
    }
    for warning in &report.warnings {
        writeln!(std::io::stderr(), "kdrift: warning: {warning}")?;
    }
    crate::cmd::keep_after_ingest(&store)?;
    let stage = if report.interrupted_during_commit { Stage::FinalCommit } else { Stage::Finished };
    let runs: Vec<i64> = report.windows.iter().map(|w| w.run_id).collect();
    if let Outcome::Completed { warning } = outcome(caught.signal(), stage, &windows_kept(&runs)) {
        writeln!(std::io::stderr(), "{warning}")?;
    }
    Ok(if report.error_count() > 0 { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

fn print_pull(cli: &Cli, report: &PullReport) -> anyhow::Result<()> {
    {
        let mut err = std::io::stderr().lock();
        for e in report.windows.iter().flat_map(|w| &w.errors) {
            writeln!(err, "kdrift: {e}")?;
        }
    }
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, report),
        Output::Table => render::ingest::victorialogs(&mut out, report, &cli.db),
    }
}

/// Says that a pull's `windows` committed before its failure stay in the
/// store `db`, and how to continue (VictoriaLogs and Prometheus pulls).
pub(super) fn committed_before_failure(windows: usize, db: &std::path::Path) -> anyhow::Result<()> {
    writeln!(
        std::io::stderr(),
        "kdrift: the {windows} window(s) committed before the failure stay in {}; rerun with --resume to continue after them",
        db.display()
    )?;
    Ok(())
}

/// Without `--at`, saved `kubectl top` tables are stored at each file's
/// modification time, which may be far from when they were taken: the note
/// that says so, with the instants (`None` when no table was read).
fn top_time_note(usage: &[kdrift_ingest::TopFileSummary]) -> Option<String> {
    let utc = crate::render::time;
    let when = match usage {
        [] => return None,
        [one] => format!("stored at the file's modification time {}", utc(one.at)),
        many => format!(
            "stored at each file's modification time ({})",
            many.iter().map(|u| format!("{} at {}", u.location, utc(u.at))).collect::<Vec<_>>().join(", ")
        ),
    };
    let they = if usage.len() == 1 { "it was" } else { "they were" };
    Some(format!("kubectl top tables have no time: {when}; pass --at TIME for the time {they} taken"))
}
