//! LowNodeUtilization `metricsUtilization` with `source: Prometheus`: the
//! policy's own `prometheus.query` run on `--prometheus-url` as descheduler
//! v0.36 runs it (`prometheusUsageClient.sync`: one instant query,
//! `promv1.API.Query`, here at the plan's instant; its vector's samples,
//! `instance` = the node name, value in [0, 1];
//! `../shared/reference/descheduler-plugins.md` §4.3), with the
//! credentials and client of `kdrift ingest prometheus`. Without a URL the
//! planner stands in for the query (`kdrift_rebalance` `planner::metrics`)
//! and the plan says so.

use anyhow::Context;
use chrono::{DateTime, Utc};
use kdrift_ingest::{
    show_labels, Auth, CredentialSources, InstantAnswer, PromClient, PromError, Timeouts, PROM_ENV, REBALANCE_FLAGS,
};
use kdrift_rebalance::{MetricSample, MetricsSource, Policy, Snapshot};

use crate::args::PrometheusArgs;

/// The distinct queries of the policy's Prometheus-sourced
/// LowNodeUtilization profiles, in profile order.
fn queries(policy: &Policy) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in &policy.profiles {
        let m = p.low_node_utilization().and_then(|a| a.metrics_utilization.as_ref());
        if let Some(q) = m.filter(|m| m.source() == Ok(MetricsSource::Prometheus)).and_then(|m| m.query()) {
            if !out.iter().any(|o| o == q) {
                out.push(q.to_string());
            }
        }
    }
    out
}

/// What running (or not running) the policy's query gave.
#[derive(Debug, Default)]
pub(crate) struct QueryRun {
    /// The vector's samples ([`Snapshot::metric_samples`]).
    pub(crate) samples: Option<Vec<MetricSample>>,
    /// Why the answer was no vector ([`Snapshot::metric_query_error`]).
    pub(crate) error: Option<String>,
    /// The plan notes: what was run, or that the planner stands in for it.
    pub(crate) notes: Vec<String>,
    /// `the policy's query (Q) on URL at T`, when it ran: what a failed
    /// LowNodeUtilization run is told with.
    pub(crate) ran: Option<String>,
    /// The server's base URL (no credentials), when the query ran there.
    pub(crate) url: Option<String>,
}

impl QueryRun {
    /// Puts the query's result into `snapshot`.
    pub(crate) fn into_snapshot(self, snapshot: &mut Snapshot) -> Vec<String> {
        snapshot.metric_samples = self.samples;
        snapshot.metric_query_error = self.error;
        self.notes
    }

    /// Whether the query ran (a vector or another answer).
    pub(crate) fn ran(&self) -> bool {
        self.samples.is_some() || self.error.is_some()
    }
}

/// Runs the policy's Prometheus query at `at` on `url` (else
/// `--prometheus-url`): `samples`, or `error` for a non-vector answer (as
/// upstream's usage client fails), and the plan notes: what was run, or
/// that the planner stands in for it (no URL). Nothing when no profile
/// has a Prometheus source; `--prometheus-url` then only gets a note that
/// it is unused.
///
/// # Errors
/// Bad credentials or URL, credentials without a URL, the server
/// unreachable, refusing the query or silent past `--request-timeout`
/// (naming the URL and the time waited, never the credentials), several
/// distinct queries.
pub(crate) fn run_query(
    args: &PrometheusArgs,
    url: Option<&str>,
    policy: &Policy,
    at: DateTime<Utc>,
) -> anyhow::Result<QueryRun> {
    let queries = queries(policy);
    let credentials = args.prometheus_user.is_some()
        || args.prometheus_password_file.is_some()
        || args.prometheus_bearer_token_file.is_some()
        || args.prometheus_headers_file.is_some();
    let Some(url) = args.prometheus_url.as_deref().or(url) else {
        if credentials {
            anyhow::bail!(
                "--prometheus-user, --prometheus-password-file, --prometheus-bearer-token-file and \
                 --prometheus-headers-file are for --prometheus-url, which is not given"
            );
        }
        let notes = match queries.first() {
            Some(q) => vec![format!(
                "metricsUtilization source Prometheus: no --prometheus-url, so the policy's query ({q}) is not run: \
                 kdrift stands in for it with each node's measured cpu used / allocatable from the store's samples \
                 (give --prometheus-url to run it)"
            )],
            None => Vec::new(),
        };
        return Ok(QueryRun { notes, ..QueryRun::default() });
    };
    let query = match queries.as_slice() {
        [] => {
            let notes = vec![format!(
                "--prometheus-url {url} is unused: no LowNodeUtilization profile has metricsUtilization source \
                 Prometheus"
            )];
            return Ok(QueryRun { notes, ..QueryRun::default() });
        }
        [one] => one,
        several => anyhow::bail!(
            "the policy's Prometheus-sourced profiles have {} different queries ({}); kdrift runs one per plan",
            several.len(),
            several.join("; ")
        ),
    };
    let sources = CredentialSources {
        user: args.prometheus_user.clone(),
        password_file: args.prometheus_password_file.clone(),
        bearer_token_file: args.prometheus_bearer_token_file.clone(),
        headers_file: args.prometheus_headers_file.clone(),
        ..CredentialSources::default()
    };
    let auth = Auth::load_named(&sources, &|name| std::env::var(name).ok(), &PROM_ENV).map_err(PromError::from)?;
    // A plan file is passed around (CronJob output, review): the server it
    // names gets no credentials unless the command line names it too.
    if args.prometheus_url.is_none() && !auth.secret_values().is_empty() {
        anyhow::bail!(
            "the plan ran the policy's query on {url}: credentials (--prometheus-* or KDRIFT_PROM_*) are sent \
             only to a server given on the command line; add --prometheus-url {url} to run it there again"
        );
    }
    // The request timeout decides: the connection's own timeouts only
    // catch what it cannot (a server silent past it is cut by it, with
    // its words, not after reqwest's fixed 120 s read timeout).
    let limit = args.request_timeout;
    let timeouts = Timeouts { connect: limit.min(Timeouts::default().connect), read: limit + limit };
    let client = PromClient::given_by(url, auth, timeouts, &REBALANCE_FLAGS)?.with_request_timeout(limit);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the runtime")?;
    let when = crate::render::time(at);
    let base = client.base_url();
    let answer = runtime.block_on(client.query_instant(query, at)).with_context(|| {
        format!("metricsUtilization: the policy's query ({query}) at {when} on {base}/api/v1/query")
    })?;
    let mut run = QueryRun {
        ran: Some(format!("the policy's query ({query}) on {base} at {when}")),
        url: Some(base.clone()),
        ..QueryRun::default()
    };
    let said = match answer {
        InstantAnswer::Vector(samples) if samples.iter().any(|s| !s.problems.is_empty()) => {
            // A sample whose labels cannot be read (a label twice, too long,
            // not text) is an input error, as `kdrift ingest prometheus` makes
            // a series so (break-it 37 F5: the last `instance` was taken
            // silently): the run fails naming it, masked as ingest's errors.
            let bad = samples.iter().find(|s| !s.problems.is_empty()).map(|s| {
                let said = format!("sample {}: {}", show_labels(&s.metric), s.problems.join(", "));
                kdrift_rebalance::mask_shown(&client.redactor().redact(&said))
            });
            run.error = bad.clone();
            bad.unwrap_or_default()
        }
        InstantAnswer::Vector(samples) => {
            let n = samples.len();
            run.samples = Some(
                samples
                    .into_iter()
                    .map(|s| MetricSample {
                        instance: s.metric.get("instance").cloned(),
                        value: s.value.and_then(|v| v.parse().ok()).unwrap_or(f64::NAN),
                    })
                    .collect(),
            );
            format!("{n} sample(s)")
        }
        InstantAnswer::Other(kind) => {
            // Upstream's words (`prometheusUsageClient.sync`).
            let e = format!("expected query results to be of type \"vector\", got {kind:?} instead");
            run.error = Some(e.clone());
            e
        }
    };
    run.notes.push(format!(
        "metricsUtilization source Prometheus: ran the policy's query ({query}) on {base} as an instant query at \
         {when} (descheduler runs it at each cycle): {said}"
    ));
    Ok(run)
}
