//! The measured usage `rebalance plan`, `explain` and `recommend` load when the policy's
//! LowNodeUtilization has `metricsUtilization` (kdrift issue 37): the
//! store's usage samples at the plan's instant (`--live`: the newest ones),
//! as one [`Reading`] per node and pod — the latest sample, as descheduler's
//! metrics collector gives, or (opt-in, `--usage-window`/`--usage-percentile`)
//! a percentile over a window.

use chrono::{DateTime, Utc};
use kdrift_analyze::LoadedSnapshot;
use kdrift_rebalance::{MeasuredUsage, Policy, Reading, UsageWindowOption};

use crate::args::{Cli, UsageArgs};

/// How old the latest sample may be for an instantaneous reading: 5 minutes
/// (descheduler polls metrics-server every 5 s; the recorder samples every
/// 30 s by default, so this allows ten missed samples).
pub(crate) const LATEST_MAX_AGE_US: i64 = 5 * 60 * 1_000_000;

/// The percentile `--usage-window` uses without `--usage-percentile`.
pub(crate) const DEFAULT_PERCENTILE: f64 = 95.0;

/// The reading `args` ask for: a percentile over `--usage-window`, else the
/// latest sample no older than [`LATEST_MAX_AGE_US`].
pub(crate) fn reading_of(args: &UsageArgs) -> Reading {
    match args.usage_window {
        Some(window) => Reading::Percentile {
            window_us: window.num_microseconds().unwrap_or(i64::MAX),
            percentile: args.usage_percentile.unwrap_or(DEFAULT_PERCENTILE),
        },
        None => Reading::Latest { max_age_us: LATEST_MAX_AGE_US },
    }
}

/// The measured usage at `at` for `policy` (`None` when it has no
/// `metricsUtilization`, or the store holds no sample in the span: the plan
/// then uses requests), and the notes to show with the plan.
///
/// # Errors
/// The store cannot be opened or read.
pub(crate) fn load(
    cli: &Cli,
    args: &UsageArgs,
    policy: &Policy,
    at: DateTime<Utc>,
    live: bool,
    query_ran: bool,
) -> anyhow::Result<(Option<MeasuredUsage>, Vec<String>)> {
    let reading = reading_of(args);
    let mut notes = Vec::new();
    if !policy.uses_measured_usage() {
        if args.usage_window.is_some() {
            notes.push(
                "--usage-window is ignored: no LowNodeUtilization profile has metricsUtilization, so the plan is \
                 from requests"
                    .to_string(),
            );
        }
        return Ok((None, notes));
    }
    if live && !cli.db.exists() {
        notes.push(format!(
            "metricsUtilization: no store at {} to read usage samples from, so the plan is from requests (record or \
             ingest usage first: `kdrift record`, `kdrift ingest prometheus`)",
            cli.db.display()
        ));
        return Ok((None, notes));
    }
    let store = crate::cmd::open_existing_store(cli)?;
    let usage = kdrift_analyze::measured_at(&store, at, reading)?;
    let when = crate::render::time(at);
    let whence = if live { "the store's newest samples, " } else { "" };
    if usage.nodes.is_empty() {
        notes.push(format!(
            "metricsUtilization: the store holds no node usage sample for {} before {when} ({whence}{}), so the plan \
             is from requests; ingest usage (`kdrift record`, `kdrift ingest prometheus`, `kdrift ingest file`) or \
             choose another --at",
            reading.describe(),
            cli.db.display()
        ));
        return Ok((None, notes));
    }
    notes.push(if query_ran {
        format!(
            "metricsUtilization: the store's usage samples ({} at {when}, {whence}{} node(s), {} pod(s)) feed the \
             landing simulation's predicted used %; the Prometheus query's result classifies",
            reading.describe(),
            usage.nodes.len(),
            usage.pods.len()
        )
    } else {
        format!(
            "metricsUtilization: classified on measured usage, {} at {when} ({whence}{} node(s), {} pod(s) \
             measured); reasons cite used %, not requested %",
            reading.describe(),
            usage.nodes.len(),
            usage.pods.len()
        )
    });
    if matches!(reading, Reading::Percentile { .. }) {
        notes.push(format!(
            "beyond descheduler (--usage-window): descheduler v0.36 reads one instantaneous sample; this plan \
             classifies on the {} of each node's samples, so a short spike does not make a node hot, and ranks each \
             overutilized node's pods by their measured usage of its hot resource (descheduler's order breaks ties)",
            reading.describe()
        ));
    }
    Ok((Some(usage), notes))
}

/// What [`attach`] loaded, for the commands to report and keep.
#[derive(Debug, Default)]
pub(crate) struct Attached {
    /// The planner options' `rank_by_usage` (`--usage-window` on a policy
    /// with `metricsUtilization`).
    pub(crate) rank_by_usage: bool,
    /// `the policy's query (Q) on URL at T`, when it ran.
    pub(crate) query_ran: Option<String>,
    /// The server it ran on (base URL, no credentials), for the plan
    /// document ([`kdrift_rebalance::DocumentOptions::prometheus_url`]).
    pub(crate) prometheus_url: Option<String>,
}

/// Loads the measured usage for `policy` at `loaded.at` ([`load`]) and, with
/// a Prometheus source and `--prometheus-url`, the policy's query result
/// (`rebalance_prometheus`) into `loaded`'s snapshot and its notes: the one path `rebalance plan`,
/// `explain` and `recommend` take, so all three classify on the same
/// readings.
///
/// # Errors
/// The store cannot be opened or read; the query cannot be run.
pub(crate) fn attach(
    cli: &Cli,
    args: &UsageArgs,
    policy: &Policy,
    loaded: &mut LoadedSnapshot,
    live: bool,
) -> anyhow::Result<Attached> {
    let query = super::rebalance_prometheus::run_query(&args.prometheus, None, policy, loaded.at)?;
    let ran = query.ran();
    let attached = Attached {
        rank_by_usage: args.usage_window.is_some() && policy.uses_measured_usage(),
        query_ran: query.ran.clone(),
        prometheus_url: query.url.clone(),
    };
    let query_notes = query.into_snapshot(&mut loaded.snapshot);
    let (measured, notes) = load(cli, args, policy, loaded.at, live, ran)?;
    // The query classifies: the store's samples only feed the landing
    // simulation's predicted used %, so their absence is no "from requests".
    if measured.is_some() || !ran {
        loaded.notes.extend(notes);
    }
    loaded.snapshot.measured = measured;
    loaded.notes.extend(query_notes);
    Ok(attached)
}

/// For a simulated plan on requests (no `metricsUtilization`): the store's
/// latest usage samples at `loaded.at`, when it holds any, put into the
/// snapshot for the landing simulation alone (the planner reads them only
/// for `metricsUtilization`), so its predicted used % and hot-node landing
/// warnings ([`kdrift_rebalance::HotLanding`]) show where the replacements go
/// (new-user trial: a pod sent to the node measured 93.2 % cpu used).
///
/// # Errors
/// The store cannot be read.
pub(crate) fn attach_for_landings(cli: &Cli, policy: &Policy, loaded: &mut LoadedSnapshot) -> anyhow::Result<()> {
    if policy.uses_measured_usage() || loaded.snapshot.measured.is_some() || !cli.db.exists() {
        return Ok(());
    }
    let store = crate::cmd::open_existing_store(cli)?;
    let reading = Reading::Latest { max_age_us: LATEST_MAX_AGE_US };
    let usage = kdrift_analyze::measured_at(&store, loaded.at, reading)?;
    if usage.nodes.is_empty() {
        return Ok(());
    }
    loaded.notes.push(format!(
        "the plan is on requests; the store's usage samples ({} at {}, {} node(s), {} pod(s)) feed the landing \
         simulation's predicted used % and warn of replacements landing on a node used above the run's target \
         (else {} %)",
        reading.describe(),
        crate::render::time(loaded.at),
        usage.nodes.len(),
        usage.pods.len(),
        kdrift_rebalance::REQUESTS_PLAN_USED_LIMIT
    ));
    loaded.snapshot.measured = Some(usage);
    Ok(())
}

/// The windowed reading a plan document keeps (`--usage-window` with a
/// policy on measured usage), for `apply` to plan again on the same reading.
pub(crate) fn window_option(args: &UsageArgs, policy: &Policy) -> Option<UsageWindowOption> {
    let window = args.usage_window.filter(|_| policy.uses_measured_usage())?;
    Some(UsageWindowOption {
        window_seconds: window.num_seconds(),
        percentile: args.usage_percentile.unwrap_or(DEFAULT_PERCENTILE),
    })
}

/// For `rebalance apply` / `run`, which plan again on the live cluster:
/// every reading the plan was made on, into `options` — the store's newest
/// readings ([`latest_for_apply`]) and, with a Prometheus source, the
/// policy's query run now on `--prometheus-url`, else on `recorded_url` (the
/// server the plan document says its plan ran it on). Returns the notes
/// (what was run), said on stderr by the caller.
///
/// # Errors
/// The store cannot be read; the query cannot be run.
pub(crate) fn readings_for_apply(
    store: Option<&kdrift_store::Store>,
    policy: &Policy,
    window: Option<UsageWindowOption>,
    prometheus: &crate::args::PrometheusArgs,
    recorded_url: Option<&str>,
    options: &mut kdrift_rebalance::ExecuteOptions,
) -> anyhow::Result<Readings> {
    options.measured = latest_for_apply(store, policy, window)?;
    let query = super::rebalance_prometheus::run_query(prometheus, recorded_url, policy, Utc::now())?;
    options.metric_samples = query.samples;
    options.metric_query_error = query.error;
    Ok(Readings { notes: query.notes, url: query.url })
}

/// What [`readings_for_apply`] says and ran.
pub(crate) struct Readings {
    /// Said on stderr before anything is evicted.
    pub(crate) notes: Vec<String>,
    /// The server the policy's query ran on, without credentials (its
    /// base URL: no user, query string or fragment), as a plan records it.
    pub(crate) url: Option<String>,
}

/// For `rebalance apply` / `run`, which plan again on the live cluster: the
/// store's newest readings now (as `plan --live` reads them) — the latest
/// sample, or the plan's own windowed reading (`window`, from its document)
/// — when the policy has `metricsUtilization` and the store holds any;
/// `None` otherwise (the plan is then from requests).
///
/// # Errors
/// The store cannot be read.
pub(crate) fn latest_for_apply(
    store: Option<&kdrift_store::Store>,
    policy: &Policy,
    window: Option<UsageWindowOption>,
) -> anyhow::Result<Option<MeasuredUsage>> {
    let Some(store) = store.filter(|_| policy.uses_measured_usage()) else { return Ok(None) };
    let reading = window.map_or(Reading::Latest { max_age_us: LATEST_MAX_AGE_US }, |w| w.reading());
    let usage = kdrift_analyze::measured_at(store, Utc::now(), reading)?;
    Ok((!usage.nodes.is_empty()).then_some(usage))
}
