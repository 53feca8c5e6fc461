//! `kdrift rebalance explain NAMESPACE/POD` (or `POD` alone, when one pod of
//! that name is in the store at the instant): for every plugin of the
//! policy, in cycle order, would it evict this pod at `--at` (the store's
//! history), and if not, the first rule that stops it. Plan only: never evicts.

use std::io::Write;
use std::process::ExitCode;

use chrono::{DateTime, SecondsFormat, Utc};
use kdrift_analyze::{pod_name_namespaces, pod_spans, PodSpan};
use kdrift_rebalance::{explain_pod, PlanOptions, PodVerdict};
use kdrift_store::Store;

use super::rebalance::{load_store, note_default_policy, read_policy};
use crate::args::{Cli, Output, RebalanceExplainArgs};
use crate::render;

/// Exit 0 with the explanation; 1 when the store has no nodes at the
/// instant or no such pod then (said on stderr, with when the store has the
/// pod at other times and an `--at` to try, or the pods of that name in
/// other namespaces); 2 after the explanation when a plugin failed (its
/// usage unreadable), said on stderr; errors (bad policy, no store, a NAME
/// alone that several namespaces have at the instant) are exit 2 through `main`.
pub fn explain(cli: &Cli, args: &RebalanceExplainArgs) -> anyhow::Result<ExitCode> {
    let (policy, policy_source) = read_policy(args.policy.as_deref())?;
    let Some(mut loaded) = load_store(cli, args.at)? else { return Ok(ExitCode::from(1)) };
    note_default_policy(&policy_source)?;
    // The readings `rebalance plan` classifies on (metricsUtilization).
    let attached = super::rebalance_usage::attach(cli, &args.usage, &policy, &mut loaded, false)?;
    let pods = &loaded.snapshot.pods;
    let (namespace, name) = (args.pod.namespace.as_str(), args.pod.name.as_str());
    let found = if namespace.is_empty() {
        // NAME alone: the one pod of that name at the instant.
        let named: Vec<usize> = (0..pods.len()).filter(|i| pods[*i].name == name).collect();
        if named.len() > 1 {
            let refs: Vec<String> = named.iter().map(|i| pods[*i].key()).collect();
            anyhow::bail!(
                "{} pods named {name} are in the store at {}: give one of {}",
                named.len(),
                time(loaded.at),
                refs.join(", ")
            );
        }
        named.first().copied()
    } else {
        pods.iter().position(|p| p.namespace == namespace && p.name == name)
    };
    let Some(index) = found else {
        let store =
            Store::open_existing_with(&cli.db, &crate::cmd::store_options(cli), &kdrift_store::NoMigrationProgress)?;
        writeln!(
            std::io::stderr(),
            "kdrift: {}",
            not_found(&store, &loaded.snapshot.pods, namespace, name, loaded.at)?
        )?;
        return Ok(ExitCode::from(1));
    };
    let options = PlanOptions { rank_by_usage: attached.rank_by_usage, ..PlanOptions::default() };
    let mut explanation = explain_pod(&loaded.snapshot, &policy, &options, index);
    explanation.notes = loaded.notes.clone();
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, &explanation)?,
        Output::Table => render::rebalance::explain(&mut out, &explanation, loaded.at, &policy_source)?,
    }
    // A plugin that could not run leaves the pod's fate unknown: an error,
    // not an answer (break-it 37 F1).
    let failed: Vec<String> = explanation
        .plugins
        .iter()
        .filter_map(|p| match &p.verdict {
            PodVerdict::Fails { error } => {
                let from = attached.query_ran.as_deref().map(|r| format!(" (from {r})")).unwrap_or_default();
                Some(format!("{} failed in profile {}: {error}{from}", p.plugin, p.profile))
            }
            _ => None,
        })
        .collect();
    if !failed.is_empty() {
        drop(out);
        writeln!(
            std::io::stderr(),
            "kdrift: error: {}; what it would do with {} is unknown",
            failed.join("; "),
            explanation.pod
        )?;
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

/// An instant as `--at` takes it back (sub-seconds kept: a pod's last
/// version may be observed 0.9 s before its deletion).
fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Why `namespace/name` (`namespace` empty: NAME alone) is not explained at
/// `at`: `no pod web/api-x in the store at T: the store last had it at L
/// (gone at G); try --at L`, or the pods of that name in other namespaces
/// then.
fn not_found(
    store: &Store,
    pods: &[kdrift_rebalance::PodInfo],
    namespace: &str,
    name: &str,
    at: DateTime<Utc>,
) -> anyhow::Result<String> {
    // Names as the user gave them or the store holds them, written visibly (issue 34).
    let shown = |text: String| crate::render::visible(&text).into_owned();
    let what = if namespace.is_empty() {
        format!("no pod named {}", shown(name.to_string()))
    } else {
        format!("no pod {}", shown(format!("{namespace}/{name}")))
    };
    let head = format!("{what} in the store at {}", crate::render::time(at));
    // The namespaces to look back in: the one given, else those where a pod of the name failed to schedule or is stored.
    let namespaces = if namespace.is_empty() { pod_name_namespaces(store, name)? } else { vec![namespace.to_string()] };
    let mut other_times = Vec::new();
    for ns in &namespaces {
        // The pod named as the user did: "it" when its namespace was given.
        let it = if namespace.is_empty() { shown(format!("{ns}/{name}")) } else { "it".to_string() };
        other_times.extend(other_time_hint(&pod_spans(store, ns, name)?, at, &it));
    }
    if !other_times.is_empty() {
        return Ok(format!("{head}: {}", other_times.join("; ")));
    }
    let elsewhere: Vec<String> = pods.iter().filter(|p| p.name == name).map(|p| shown(p.key())).take(5).collect();
    if !elsewhere.is_empty() {
        return Ok(format!("{head} (that name: {})", elsewhere.join(", ")));
    }
    // Known from its events only (no version of its object stored ever):
    // why-pending explains it from them.
    let from_events: Vec<String> =
        pod_name_namespaces(store, name)?.into_iter().filter(|ns| namespace.is_empty() || ns == namespace).collect();
    Ok(match from_events.first() {
        Some(ns) => {
            let pod = shown(format!("{ns}/{name}"));
            format!(
                "{head}: the store knows {pod} only from its events, no version of its Pod object, and explain needs \
                 the object (its requests, owner, labels, tolerations); `kdrift why-pending {pod}` explains it from \
                 the events, or ingest a `kubectl get pods -A -o json` taken while it existed"
            )
        }
        None => head,
    })
}

/// When the store has the pod of `spans` (called `it`) other than at `at`,
/// with an `--at` to try: the last time before `at`, the first after it, or both.
fn other_time_hint(spans: &[PodSpan], at: DateTime<Utc>, it: &str) -> Option<String> {
    let before = spans.iter().filter(|s| s.gone_at.is_some_and(|g| g <= at)).max_by_key(|s| s.last_seen_at);
    let after = spans.iter().filter(|s| s.first_at > at).min_by_key(|s| s.first_at);
    let last = |s: &PodSpan| {
        // Whole seconds as every printed time (only a `--at` to try names a stored instant exactly).
        let gone = s.gone_at.map(|g| format!(" (gone at {})", crate::render::time(g))).unwrap_or_default();
        format!("the store last had {it} at {}{gone}", time(s.last_seen_at))
    };
    match (before, after) {
        (Some(b), Some(a)) => Some(format!(
            "{} and has {it} again from {}: try --at {} or --at {}",
            last(b),
            time(a.first_at),
            time(b.last_seen_at),
            time(a.first_at)
        )),
        (Some(b), None) => Some(format!("{}: try --at {}", last(b), time(b.last_seen_at))),
        (None, Some(a)) => {
            Some(format!("the store first has {it} at {}: try --at {}", time(a.first_at), time(a.first_at)))
        }
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{other_time_hint, PodSpan};
    use chrono::{DateTime, Utc};

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().expect("time")
    }

    fn span(first: &str, last: &str, gone: Option<&str>) -> PodSpan {
        PodSpan { uid: "u".into(), first_at: at(first), last_seen_at: at(last), gone_at: gone.map(at) }
    }

    #[test]
    fn a_pod_gone_or_not_yet_created_is_pointed_at_the_instants_the_store_has_it() {
        let gone = span("2026-11-27T02:07:34Z", "2026-11-28T02:03:17.904Z", Some("2026-11-28T02:03:18.054Z"));
        assert_eq!(
            other_time_hint(std::slice::from_ref(&gone), at("2026-11-28T05:30:01Z"), "it").as_deref(),
            Some(
                "the store last had it at 2026-11-28T02:03:17.904Z (gone at 2026-11-28T02:03:18Z): \
                 try --at 2026-11-28T02:03:17.904Z"
            )
        );
        let later = span("2026-11-28T04:00:00Z", "2026-11-28T04:10:00Z", None);
        assert_eq!(
            other_time_hint(std::slice::from_ref(&later), at("2026-11-28T03:00:00Z"), "web/x").as_deref(),
            Some("the store first has web/x at 2026-11-28T04:00:00Z: try --at 2026-11-28T04:00:00Z")
        );
        let both = other_time_hint(&[gone.clone(), later], at("2026-11-28T03:00:00Z"), "it").expect("hint");
        assert!(both.ends_with("and has it again from 2026-11-28T04:00:00Z: try --at 2026-11-28T02:03:17.904Z or --at 2026-11-28T04:00:00Z"), "{both}");
        assert_eq!(other_time_hint(&[gone], at("2026-11-28T01:00:00Z"), "it"), None, "held then: nothing to suggest");
    }
}
