//! `kdrift why-pending NAMESPACE/POD` (or `POD` alone, its namespace found
//! in the store) and `kdrift why-pending --all`.

use std::io::Write;
use std::process::ExitCode;

use kdrift_analyze::{pending_pods, why_pending};
use kdrift_store::Store;

use crate::args::{Cli, Output, WhyPendingArgs};
use crate::render;

/// Exit 0 with findings (a FailedScheduling event, or the kubelet's
/// refusal of a pod the scheduler placed at once), 1 when the store has
/// nothing for the pod.
pub fn run(cli: &Cli, args: &WhyPendingArgs) -> anyhow::Result<ExitCode> {
    let store = crate::cmd::open_existing_store(cli)?;
    let mut out = crate::render::stdout();
    explain(&mut out, &store, cli.output, args)
}

/// Writes the answer for `args` to `out` (shared with `kdrift demo`).
pub fn explain<W: Write>(
    out: &mut W,
    store: &Store,
    output: Output,
    args: &WhyPendingArgs,
) -> anyhow::Result<ExitCode> {
    if let Some(pod) = &args.pod {
        // `-n NS POD` as kubectl reads it; `NS/POD -n OTHER` names two namespaces.
        let given = match (pod.namespace.as_str(), args.namespace.as_deref()) {
            ("", Some(ns)) => ns,
            (ns, Some(other)) if ns != other => anyhow::bail!(
                "the pod {}/{} and -n {other} name two namespaces: give one (`{other}/{}` or `-n {other} {}`)",
                pod.namespace,
                pod.name,
                pod.name,
                pod.name
            ),
            (ns, _) => ns,
        };
        // Looked up only for NAME alone or a pod not found (a scan of the events).
        let lookup = || pod_name_namespaces(store, &pod.name);
        let namespaces = if given.is_empty() { lookup()? } else { Vec::new() };
        let namespace = match (given, namespaces.as_slice()) {
            // NAME alone: the one namespace where it failed to schedule (else where a pod object of it is stored).
            ("", [only]) => only.clone(),
            ("", []) => {
                writeln!(
                    std::io::stderr(),
                    "kdrift: no FailedScheduling event for a pod named {} in {} (try `kdrift why-pending --all`)",
                    render::visible(&pod.name),
                    store.path().display()
                )?;
                return Ok(ExitCode::from(1));
            }
            ("", several) => {
                let refs: Vec<String> =
                    several.iter().map(|ns| render::visible(&format!("{ns}/{}", pod.name)).into_owned()).collect();
                anyhow::bail!(
                    "pods named {} failed to schedule in several namespaces: give one of {}",
                    render::visible(&pod.name),
                    refs.join(", ")
                );
            }
            (given, _) => given.to_string(),
        };
        let Some(report) = why_pending(store, &namespace, &pod.name)? else {
            let elsewhere: Vec<String> = lookup()?
                .iter()
                .filter(|ns| **ns != namespace)
                .map(|ns| format!("`kdrift why-pending {}`", render::visible(&format!("{ns}/{}", pod.name))))
                .collect();
            let hint = if elsewhere.is_empty() {
                "try `kdrift why-pending --all`".to_string()
            } else {
                format!("a pod of that name did in another namespace: {}", elsewhere.join(", "))
            };
            writeln!(
                std::io::stderr(),
                "kdrift: no FailedScheduling event for {} in {} ({hint})",
                render::visible(&format!("{namespace}/{}", pod.name)),
                store.path().display()
            )?;
            return Ok(ExitCode::from(1));
        };
        match output {
            Output::Json => render::json(out, &report)?,
            Output::Table => render::pending::report(out, &report)?,
        }
        return Ok(ExitCode::SUCCESS);
    }
    crate::cmd::check_range(args.since, args.until)?;
    let all = pending_pods(store)?;
    let stored = all.len();
    let selected = crate::selector::PodFilter::new(store, args.namespace.as_deref(), args.selector.as_ref())?;
    // Pods known from events only: no labels for -l to match (new-user trial 43).
    let unlabelled = all.iter().filter(|p| selected.labels_unknown(&p.namespace, &p.name)).count();
    let pods: Vec<_> = all
        .into_iter()
        .filter(|p| selected.keeps(&p.namespace, &p.name))
        .filter(|p| args.since.is_none_or(|t| p.last_failure >= t))
        .filter(|p| args.until.is_none_or(|t| p.first_failure <= t))
        .collect();
    if stored == 0 {
        writeln!(std::io::stderr(), "kdrift: no FailedScheduling events in {}", store.path().display())?;
    } else if pods.is_empty() {
        writeln!(
            std::io::stderr(),
            "kdrift: none of the {stored} {} with FailedScheduling in {} matches the {}{}{}",
            if stored == 1 { "pod" } else { "pods" },
            store.path().display(),
            filters_given(args),
            history_end(store, args)?,
            match unlabelled {
                0 => String::new(),
                n if n == stored => "; the store holds none of their Pod objects, so their labels are unknown (ingest \
                                     `kubectl get pods -A -o json` for -l to match)"
                    .to_string(),
                n => format!("; {n} of them have no stored Pod object, so their labels are unknown"),
            }
        )?;
    }
    match output {
        Output::Json => render::json(out, &pods)?,
        Output::Table => render::pending::list(out, &pods)?,
    }
    // Pods the kubelet refused without any FailedScheduling are in no list:
    // said apart, with the same filters (new-user trial 43).
    let refused: Vec<_> = kdrift_analyze::refused_pods(store)?
        .into_iter()
        .filter(|p| selected.keeps(&p.namespace, &p.name))
        .filter(|p| args.since.is_none_or(|t| p.rejected_at >= t))
        .filter(|p| args.until.is_none_or(|t| p.rejected_at <= t))
        .collect();
    if let Some(first) = refused.first() {
        let mut reasons: Vec<(&str, usize)> = Vec::new();
        for p in &refused {
            match reasons.iter_mut().find(|(r, _)| *r == p.reason) {
                Some((_, n)) => *n += 1,
                None => reasons.push((&p.reason, 1)),
            }
        }
        let reasons: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
        writeln!(
            std::io::stderr(),
            "note: {} the kubelet refused at admission ({}) had no FailedScheduling event, so {} not listed: the \
             scheduler placed {} at once; `kdrift why-pending NAMESPACE/NAME` explains each (e.g. {})",
            kdrift_analyze::count(refused.len(), "pod", "pods"),
            reasons.join(", "),
            if refused.len() == 1 { "it is" } else { "they are" },
            if refused.len() == 1 { "it" } else { "them" },
            render::visible(&format!("{}/{}", first.namespace, first.name)),
        )?;
    }
    // Controllers whose pods the kubelet refused in a loop: one line each,
    // with the same filters (new-user trial 46: 100 pods of 5 ReplicaSets
    // read as 101 unrelated rows).
    let loops: Vec<_> = kdrift_analyze::refusal_loops(store)?
        .into_iter()
        .filter(|l| args.namespace.as_deref().is_none_or(|ns| ns == l.namespace))
        .filter(|l| args.since.is_none_or(|t| l.last_at >= t))
        .filter(|l| args.until.is_none_or(|t| l.first_at <= t))
        .collect();
    for l in &loops {
        writeln!(
            std::io::stderr(),
            "note: by owner: {} {}: {} refused by the kubelet{} ({}{}) in {}, {} to {}: a create/refuse loop (the \
             controller replaces each refused pod; one fix serves them all)",
            l.owner_kind,
            render::visible(&format!("{}/{}", l.namespace, l.owner_name)),
            kdrift_analyze::count(usize::try_from(l.pods).unwrap_or(usize::MAX), "pod", "pods"),
            if l.node.is_empty() { String::new() } else { format!(" on {}", render::visible(&l.node)) },
            render::visible(&l.reason),
            l.counted.as_ref().map_or(String::new(), |c| format!(
                ": it counted {} of {} {} requested, {} free for a pod's {}",
                c.amount(c.used),
                c.amount(c.capacity),
                c.resource,
                c.amount(c.free()),
                c.amount(c.requested)
            )),
            render::duration((l.last_at - l.first_at).num_seconds()),
            render::time(l.first_at),
            render::time(l.last_at)
        )?;
    }
    Ok(if pods.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What `--all` was narrowed by, as given: `namespace and time range given
/// (-n web, --since 2026-11-28T05:15:01Z)` — only the filters given (a
/// new-user trial was told of a namespace it never gave).
fn filters_given(args: &WhyPendingArgs) -> String {
    let (mut names, mut values) = (Vec::new(), Vec::new());
    if let Some(ns) = &args.namespace {
        names.push("namespace");
        values.push(format!("-n {ns}"));
    }
    if let Some(s) = &args.selector {
        names.push("labels");
        values.push(format!("-l {}", s.text));
    }
    if args.since.is_some() || args.until.is_some() {
        names.push("time range");
    }
    values.extend(args.since.map(|t| format!("--since {}", render::time(t))));
    values.extend(args.until.map(|t| format!("--until {}", render::time(t))));
    if names.is_empty() {
        return "filters given".to_string();
    }
    format!("{} given ({})", names.join(" and "), values.join(", "))
}

/// With `--since` after the store's history, where it ends, as `skew --at`
/// says it: `; --since is after the store's history: its last recorded
/// instant is 2019-03-08T08:59:58Z`. Empty otherwise.
fn history_end(store: &Store, args: &WhyPendingArgs) -> anyhow::Result<String> {
    let Some(since) = args.since else { return Ok(String::new()) };
    Ok(match kdrift_analyze::time_span(store)? {
        Some((_, last)) if since > last => format!(
            ": --since {} is after the store's history: its last recorded instant is {}",
            render::time(since),
            render::time(last)
        ),
        _ => String::new(),
    })
}

/// The namespaces in which a pod of this name had FailedScheduling events,
/// else those holding a stored pod of that name (query `pod_name_namespaces`).
fn pod_name_namespaces(store: &Store, name: &str) -> anyhow::Result<Vec<String>> {
    Ok(kdrift_analyze::pod_name_namespaces(store, name)?)
}
