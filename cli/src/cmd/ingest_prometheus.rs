//! `kdrift ingest prometheus`: measured usage pulled window by window
//! (`kdrift_ingest::pull_prometheus`), the per-window summary on stdout,
//! every input error on stderr.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use kdrift_ingest::{
    pull_prometheus, resolve_queries, Auth, CredentialSources, PromClient, PromError, PromOptions, Retry, Timeouts,
    PROM_ENV,
};

use crate::args::{Cli, IngestPrometheusArgs, Output};
use crate::render;

/// Pulls usage samples from a Prometheus-compatible server. Exit 1 when it
/// stored no sample at all (the range and a hint on stderr). Exit 2 when the
/// pull stopped (the windows committed before stay; `--resume` continues
/// after them) or a series had input errors; 130 or 143 on SIGINT or
/// SIGTERM (the window in progress is not stored).
pub fn run(cli: &Cli, args: &IngestPrometheusArgs) -> anyhow::Result<ExitCode> {
    let sources = CredentialSources {
        user: args.user.clone(),
        password_file: args.password_file.clone(),
        bearer_token_file: args.bearer_token_file.clone(),
        headers_file: args.headers_file.clone(),
        ..CredentialSources::default()
    };
    let auth = Auth::load_named(&sources, &|name| std::env::var(name).ok(), &PROM_ENV).map_err(PromError::from)?;
    let client = PromClient::new(&args.url, auth, Timeouts::default())?
        .with_max_answer_bytes(usize::try_from(args.max_answer_bytes).unwrap_or(usize::MAX))
        .with_request_timeout(args.request_timeout);
    let caught = crate::signals::catch()?;
    let options = PromOptions {
        start: args.start,
        end: args.end,
        step: args.step,
        max_window: args.window,
        resume: args.resume,
        retry: Retry { attempts: args.attempts, first_delay: args.retry_delay, ..Retry::default() },
        interrupt: caught.interrupt().clone(),
        ..PromOptions::new(resolve_queries(&args.queries)?)
    };
    // A range that cannot be pulled is refused before any store is created.
    options.range(chrono::Utc::now())?;
    let store = crate::cmd::open_store(cli)?;
    caught.store_opened();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the runtime")?;
    let pulled = runtime.block_on(pull_prometheus(&store, &client, &options, &mut |w| {
        tracing::debug!(start = %w.window.start, samples = w.samples, "window committed");
    }));
    let (report, failure) = match pulled {
        Ok(report) => (report, None),
        Err(failed) => {
            let failed = *failed;
            (failed.committed, Some(failed.error))
        }
    };
    {
        let mut err = std::io::stderr().lock();
        for e in report.windows.iter().flat_map(|w| &w.errors) {
            writeln!(err, "kdrift: {e}")?;
        }
    }
    if failure.is_none() || !report.windows.is_empty() {
        let mut out = crate::render::stdout();
        match cli.output {
            Output::Json => render::json(&mut out, &report)?,
            Output::Table => render::ingest_prometheus::summary(&mut out, &report, &cli.db)?,
        }
    }
    if let Some(error @ PromError::Interrupted { .. }) = &failure {
        writeln!(std::io::stderr(), "kdrift: error: interrupted by {}: {error}", caught.signal_name())?;
        return Ok(caught.exit_code());
    }
    if let Some(error) = failure {
        if !report.windows.is_empty() {
            super::ingest::committed_before_failure(report.windows_pulled(), &cli.db)?;
        }
        return Err(error.into());
    }
    if report.error_count() > 0 {
        return Ok(ExitCode::from(2));
    }
    if report.samples() == 0 {
        // Nothing found: said with the range asked, exit 1 (as `query`,
        // `skew --usage` and `hotspots` do when they find nothing).
        writeln!(std::io::stderr(), "kdrift: {}", nothing_pulled(&report, args.start.is_none() && args.end.is_none()))?;
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// What to say when a pull stored no sample at all: the range asked (and
/// that it was the default, the last day) and how to ask for another, e.g.
/// `no usage sample from 2026-12-05T20:00:00Z to 2026-12-06T20:00:00Z (24
/// windows, the default range: the last day): the server has no data for
/// the queries then; pass --start and --end for the range its data covers`.
fn nothing_pulled(report: &kdrift_ingest::PromReport, default_range: bool) -> String {
    let utc = |t: Option<chrono::DateTime<chrono::Utc>>| t.map_or_else(|| "?".to_string(), crate::render::time);
    let windows = kdrift_analyze::count(report.windows_pulled(), "window", "windows");
    let default = if default_range { ", the default range: the last day" } else { "" };
    format!(
        "no usage sample from {} to {} ({windows}{default}): the server has no data for the queries then; pass \
         --start and --end for the range its data covers",
        utc(report.start),
        utc(report.end)
    )
}
