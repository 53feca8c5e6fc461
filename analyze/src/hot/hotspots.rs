//! `kdrift hotspots`: the store's node usage samples bucketed by step
//! (query `usage_node_buckets`, the mean per bucket), each node's runs at
//! or above the threshold ([`super::episodes::runs`]), and for each episode
//! the pods measured on the node during it (query `usage_pods_between`)
//! with their requests and what put them there — the move attribution of
//! `why-pending`'s "why is that node full" (drain, another component's
//! eviction, rollout, HPA scale-up).

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use kdrift_store::{params, sql, Reader};

use super::drivers::{by_name, drivers};
use super::episodes::{runs, Episode, Hotspots, HotspotsOptions};
use super::{percent_of, usage_span, utc, MEASURED, NO_SAMPLES};
use crate::AnalyzeError;

/// One row of `usage_node_buckets`: node, bucket start µs, mean cpu, mean memory.
type Bucket = (String, i64, Option<f64>, Option<f64>);

/// The hotspot episodes of `options`' range.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn hotspots(store: &Reader, options: &HotspotsOptions) -> Result<Hotspots, AnalyzeError> {
    let step = options.step.max(Duration::seconds(1));
    let span = usage_span(store)?;
    let since = options.since.or(span.map(|s| s.1));
    let until = options.until.or(span.map(|s| s.2 + Duration::microseconds(1)));
    let mut report = Hotspots {
        since,
        until,
        step_seconds: step.num_seconds(),
        threshold: options.threshold,
        windows: options.windows,
        episodes: Vec::new(),
        spikes: 0,
        no_samples: None,
        notes: Vec::new(),
    };
    let Some((_, first, last)) = span else {
        report.no_samples = Some(NO_SAMPLES.to_string());
        return Ok(report);
    };
    // With samples in the store, both edges are known (given or theirs).
    let since = since.unwrap_or(first);
    let until = until.unwrap_or(last + Duration::microseconds(1));
    let (since_us, until_us, step_us) = (since.timestamp_micros(), until.timestamp_micros(), step.num_microseconds());
    let step_us = step_us.unwrap_or(i64::MAX).max(1);
    let rows: Vec<Bucket> = store.query_map(&sql::USAGE_NODE_BUCKETS, [since_us, until_us, step_us], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(4)?))
    })?;
    if rows.is_empty() {
        // A --since after the samples (`--since 2h` on an old store) left the
        // default end before it: say so, not "from <since> to <earlier>"
        // (new-user trial).
        report.no_samples = Some(if since > last && options.until.is_none() {
            format!(
                "--since {} is after the store's usage samples: they span {} to {}",
                utc(since),
                utc(first),
                utc(last)
            )
        } else {
            format!(
                "no node usage sample from {} to {}; the store's samples span {} to {}",
                utc(since),
                utc(until),
                utc(first),
                utc(last)
            )
        });
        return Ok(report);
    }
    let mut per_node: BTreeMap<&str, Vec<&Bucket>> = BTreeMap::new();
    for row in &rows {
        per_node.entry(row.0.as_str()).or_default().push(row);
    }
    // Allocatable from the node versions at the range's end, else its start.
    let nodes_end = crate::ClusterAt::load_nodes(store, until - Duration::microseconds(1))?.nodes;
    let nodes_start = crate::ClusterAt::load_nodes(store, since)?.nodes;
    let allocatable = |node: &str, resource: &str| -> Option<i64> {
        let n = nodes_end.iter().chain(&nodes_start).find(|n| n.name == node)?;
        Some(n.allocatable.get(resource)).filter(|a| *a > 0)
    };
    let mut unknown = Vec::new();
    for (node, buckets) in &per_node {
        for resource in MEASURED {
            let Some(alloc) = allocatable(node, resource) else {
                if resource == kdrift_rebalance::CPU {
                    unknown.push(node.to_string());
                }
                continue;
            };
            let series: Vec<(i64, f64)> = buckets
                .iter()
                .filter_map(|(_, at, cpu, mem)| {
                    let v = if resource == kdrift_rebalance::CPU { *cpu } else { *mem };
                    Some((*at, percent_of(v?, alloc)?))
                })
                .collect();
            let (found, spikes) = runs(&series, step_us, options.threshold, options.windows);
            report.spikes += spikes;
            for (s, e) in found {
                let values: Vec<f64> = series[s..=e].iter().map(|(_, v)| *v).collect();
                let started_at = micros(series[s].0);
                // The end of the last hot step, ongoing or not (docs/analyses.md):
                // not clamped to the range's end, which would end an ongoing
                // episode a step earlier than the same one closed later.
                let ended_at = micros(series[e].0.saturating_add(step_us));
                report.episodes.push(Episode {
                    node: node.to_string(),
                    resource: resource.to_string(),
                    started_at,
                    ended_at,
                    windows: e + 1 - s,
                    ongoing: series[e].0.saturating_add(step_us) >= until_us,
                    allocatable: alloc,
                    peak_percent: values.iter().copied().fold(f64::MIN, f64::max),
                    mean_percent: values.iter().sum::<f64>() / values.len() as f64,
                    requested_percent: None,
                    lower_bound: false,
                    pods: Vec::new(),
                    pods_left_out: 0,
                });
            }
        }
    }
    if !unknown.is_empty() {
        report.notes.push(format!(
            "measured but without a Node object (no allocatable to take a percent of), left out: {}",
            unknown.join(", ")
        ));
    }
    report.episodes.sort_by(|a, b| (a.started_at, &a.node, &a.resource).cmp(&(b.started_at, &b.node, &b.resource)));
    for episode in &mut report.episodes {
        for note in explain(store, episode)? {
            if !report.notes.contains(&note) {
                report.notes.push(note);
            }
        }
    }
    Ok(report)
}

fn micros(us: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(us).unwrap_or_else(crate::history::far_future)
}

/// Fills `episode`'s requested % and pods: what each pod measured on the
/// node used during it (mean), its request and what brought it, from the
/// state in the middle of the episode. Returns the caveats about the
/// requested amounts there (`kdrift skew`'s: lower bounds first), when
/// the node's are a lower bound.
fn explain(store: &Reader, episode: &mut Episode) -> Result<Vec<String>, AnalyzeError> {
    let mid = episode.started_at + (episode.ended_at - episode.started_at) / 2;
    // Whole seconds: the notes name the instant (an episode ends 1 µs after its last sample).
    let mid = chrono::DurationRound::duration_trunc(mid, Duration::seconds(1)).unwrap_or(mid);
    let (_, requested, caveats) = crate::skew::requested_noted(store, mid)?;
    let node = requested.node(&episode.node);
    episode.requested_percent = node.and_then(|n| n.get(&episode.resource)).map(|l| l.percent);
    episode.lower_bound = node.is_some_and(|n| n.lower_bound);
    let caveats = if episode.lower_bound { caveats } else { Vec::new() };
    let cpu = episode.resource == kdrift_rebalance::CPU;
    let bounds = params![episode.started_at.timestamp_micros(), episode.ended_at.timestamp_micros(), episode.node];
    let used: Vec<((String, String), i64)> = store
        .query_map(&sql::USAGE_PODS_BETWEEN, bounds, |r| {
            let avg: Option<f64> = if cpu { r.get(2)? } else { r.get(4)? };
            Ok(((r.get(0)?, r.get(1)?), avg))
        })?
        .into_iter()
        .filter_map(|(key, avg)| Some((key, avg?.round() as i64)))
        .collect();
    if used.is_empty() {
        return Ok(caveats);
    }
    let state = crate::ClusterAt::load(store, mid)?;
    let pods = by_name(&state.pods);
    (episode.pods, episode.pods_left_out) = drivers(&episode.resource, used, &pods);
    let known: Vec<&kdrift_rebalance::PodInfo> = episode
        .pods
        .iter()
        .filter_map(|d| pods.get(&(d.namespace.as_str(), d.name.as_str())).copied())
        .filter(|p| p.node_name.as_deref() == Some(episode.node.as_str()))
        .collect();
    let arrivals = crate::pending::arrivals_on(store, mid, &episode.node, &known)?;
    for (pod, (bound_at, arrival)) in known.iter().zip(arrivals) {
        if let Some(d) = episode.pods.iter_mut().find(|d| d.namespace == pod.namespace && d.name == pod.name) {
            d.bound_at = bound_at;
            d.arrival = Some(arrival);
        }
    }
    Ok(caveats)
}
