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
use kdrift_ingest::{Auth, CredentialSources, InstantAnswer, PromClient, PromError, Timeouts, PROM_ENV};
use kdrift_rebalance::{MetricSample, MetricsSource, Policy, Snapshot};

use crate::args::UsageArgs;

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

/// Runs the policy's Prometheus query at `at` into `snapshot`
/// (`metric_samples`, or `metric_query_error` for a non-vector answer, as
/// upstream's usage client fails), and returns the plan notes: what was
/// run, or that the planner stands in for it (no `--prometheus-url`).
/// Nothing when no profile has a Prometheus source; `--prometheus-url`
/// then only gets a note that it is unused.
///
/// # Errors
/// Bad credentials or URL, the server unreachable or refusing the query
/// (naming the URL, never the credentials), several distinct queries.
pub(crate) fn run_query(
    args: &UsageArgs,
    policy: &Policy,
    at: DateTime<Utc>,
    snapshot: &mut Snapshot,
) -> anyhow::Result<Vec<String>> {
    let queries = queries(policy);
    let Some(url) = &args.prometheus_url else {
        return Ok(match queries.first() {
            Some(q) => vec![format!(
                "metricsUtilization source Prometheus: no --prometheus-url, so the policy's query ({q}) is not run: \
                 kdrift stands in for it with each node's measured cpu used / allocatable from the store's samples \
                 (give --prometheus-url to run it)"
            )],
            None => Vec::new(),
        });
    };
    let query = match queries.as_slice() {
        [] => {
            return Ok(vec![format!(
                "--prometheus-url {url} is unused: no LowNodeUtilization profile has metricsUtilization source \
                 Prometheus"
            )])
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
    let client = PromClient::new(url, auth, Timeouts::default())?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the runtime")?;
    let when = crate::render::time(at);
    let answer = runtime.block_on(client.query_instant(query, at)).with_context(|| {
        format!("metricsUtilization: the policy's query ({query}) at {when} on {}/api/v1/query", client.base_url())
    })?;
    let said = match answer {
        InstantAnswer::Vector(samples) => {
            let n = samples.len();
            snapshot.metric_samples = Some(
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
            snapshot.metric_query_error = Some(e.clone());
            e
        }
    };
    Ok(vec![format!(
        "metricsUtilization source Prometheus: ran the policy's query ({query}) on {} as an instant query at {when} \
         (descheduler runs it at each cycle): {said}",
        client.base_url()
    )])
}
