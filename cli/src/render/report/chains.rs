//! The Pending chains as HTML: the list of pods that were Pending, then per
//! pod the chain as `why-pending` explains it — constraint → nodes excluded
//! → node left → shortfall → why that node is full (the drain burst) → why
//! the anchor pod is there → fixes, ranked — with the nodes at the failure
//! in a collapsed table. Every text from the store is escaped.

use kdrift_analyze::PreemptionVerdict;
use std::io::Write;

use kdrift_analyze::count;
use kdrift_analyze::{NodeFill, StateAtFailure};
use kdrift_analyze::{PendingPod, PendingReport};
use kdrift_rebalance::percent_text;

use super::escape::{id, Esc};
use crate::render::pending::{amount, arrival};
use crate::render::timeline::full;
use crate::render::{duration, pending_duration};

/// Holders listed per full node (the JSON of `why-pending` has them all).
const HOLDERS_SHOWN: usize = 10;

/// The `id` of a pod's chain section.
pub fn chain_id(namespace: &str, name: &str) -> String {
    format!("chain-{}", id(&format!("{namespace}/{name}")))
}

/// How many of the `pending` pods have their chain below, and how to see
/// the others' (`None` when every one has): the report shows only the
/// longest-pending pods' chains (`ReportOptions::max_chains`) and lists
/// only the `listed` longest-pending pods (`ReportOptions::max_listed`).
pub fn shown_line(pending: usize, listed: usize, chains: usize) -> Option<String> {
    let others = pending.checked_sub(chains).filter(|n| *n > 0)?;
    let shown = match chains {
        0 => format!("No chain is shown for the {pending} pods that were Pending"),
        1 => format!("A chain is shown for the longest-pending of the {pending} pods that were Pending"),
        n => format!("Chains are shown for the {n} longest-pending of the {pending} pods that were Pending"),
    };
    let rest = match (chains, others, listed.saturating_sub(chains)) {
        // Every pod listed: the text as it was before the list was cut.
        (0, _, _) if listed >= pending => "they are listed without one".to_string(),
        (_, 1, _) if listed >= pending => "the other one is listed without one".to_string(),
        (_, n, _) if listed >= pending => format!("the other {n} are listed without one"),
        (_, _, 0) => "the others are not listed".to_string(),
        (0, _, n) => format!("the {n} longest-pending are listed without one"),
        (_, _, 1) => "the next one is listed without one".to_string(),
        (_, _, n) => format!("the next {n} are listed without one"),
    };
    Some(format!(
        r#"<p class="chains-shown" data-shown="{chains}" data-pending="{pending}">{shown}; {rest}: <code>kdrift why-pending NAMESPACE/POD</code> explains any of them, <code>kdrift why-pending --all</code> lists them all.</p>"#
    ))
}

/// The table of the pods that were Pending in the range: `pods`, the
/// longest-pending of `total` (`ReportOptions::max_listed`), then a line
/// counting the others, when there are, and saying how to list them all.
pub fn list<W: Write>(out: &mut W, pods: &[PendingPod], chains: &[PendingReport], total: usize) -> std::io::Result<()> {
    writeln!(out, r#"<table class="pending-list">"#)?;
    writeln!(
        out,
        "<tr><th>pod</th><th>pending</th><th>first failure</th><th>attempts</th><th>outcome</th><th>reasons (latest)</th></tr>"
    )?;
    for p in pods {
        let key = format!("{}/{}", p.namespace, p.name);
        let shown = chains.iter().any(|c| c.namespace == p.namespace && c.name == p.name);
        let pod = if shown {
            format!(r##"<a href="#{}">{}</a>"##, chain_id(&p.namespace, &p.name), Esc(&key))
        } else {
            Esc(&key).to_string()
        };
        let outcome = match (&p.scheduled_node, p.scheduled_at, p.deleted_at) {
            (Some(n), Some(at), _) => match &p.rejected_reason {
                Some(reason) => {
                    format!("bound to {} at {}, rejected by its kubelet ({})", Esc(n), full(at), Esc(reason))
                }
                None => format!("scheduled on {} at {}", Esc(n), full(at)),
            },
            (_, _, Some(d)) => format!("never scheduled (deleted {})", full(d)),
            _ => "not seen scheduled".into(),
        };
        writeln!(
            out,
            r#"<tr data-pod="{}"><td>{pod}</td><td>{}</td><td>{}</td><td>{}</td><td>{outcome}</td><td>{}</td></tr>"#,
            Esc(&key),
            pending_duration(p),
            full(p.first_failure),
            p.occurrences,
            Esc(&p.reasons_shown())
        )?;
    }
    writeln!(out, "</table>")?;
    match total.checked_sub(pods.len()).filter(|n| *n > 0) {
        Some(more) => writeln!(
            out,
            r#"<p class="pending-more" data-listed="{}" data-more="{more}">… and {more} more: <code>kdrift why-pending --all -o json</code> lists them all.</p>"#,
            pods.len()
        ),
        None => Ok(()),
    }
}

/// One pod's chain.
pub fn chain<W: Write>(out: &mut W, r: &PendingReport) -> std::io::Result<()> {
    let key = format!("{}/{}", r.namespace, r.name);
    writeln!(out, r#"<section class="chain" id="{}" data-pod="{}">"#, chain_id(&r.namespace, &r.name), Esc(&key))?;
    writeln!(out, "<h3>{}</h3>", Esc(&key))?;
    let h = &r.history;
    let outcome = match (&h.scheduled, h.deleted_at) {
        (Some(s), _) => match &h.rejected {
            Some(r) => format!(
                "bound to {} by the scheduler at {} after waiting {}, then rejected by the kubelet at admission at \
                 {}: {} ({}); it never ran",
                Esc(&s.node),
                full(s.at),
                duration(h.pending_seconds),
                full(r.at),
                Esc(&r.reason),
                Esc(&r.message)
            ),
            None => {
                format!("scheduled on {} at {} after waiting {}", Esc(&s.node), full(s.at), duration(h.pending_seconds))
            }
        },
        (None, Some(d)) => {
            format!("never scheduled: deleted at {} after {} Pending", full(d), duration(h.pending_seconds))
        }
        (None, None) => format!("not seen scheduled: Pending for at least {}", duration(h.pending_seconds)),
    };
    writeln!(
        out,
        r#"<p class="outcome">Failed to schedule {} in {}, {} → {}; {outcome}.</p>"#,
        count(h.occurrences as usize, "time", "times"),
        count(h.failure_events as usize, "event", "events"),
        full(h.first_failure),
        full(h.last_failure)
    )?;
    writeln!(out, r#"<ol class="steps">"#)?;
    constraint(out, r)?;
    match &r.state {
        Some(s) => state_steps(out, s)?,
        None => writeln!(
            out,
            r#"<li class="step excluded"><span class="step-name">Nodes excluded</span> unknown: the store has no Node objects at the failure (ingest <code>kubectl get nodes -o json</code> for the numbers)</li>"#
        )?,
    }
    if let Some(w) = &r.why_full {
        let bound = r.state.as_ref().is_some_and(|s| s.requested_is_lower_bound);
        for f in &w.fills {
            fill(out, f, if bound { "≥" } else { "" })?;
        }
        if w.nodes_not_explained > 0 {
            writeln!(
                out,
                r#"<li class="step fill-more">{} more nodes are left but short; only the {} closest to fitting are explained</li>"#,
                w.nodes_not_explained,
                w.fills.len()
            )?;
        }
        for a in &w.anchors {
            writeln!(
                out,
                r#"<li class="step anchor" data-pod="{}/{}" data-node="{}"><span class="step-name">Why {}/{} (the pod affinity's anchor) is on {}</span><ul>"#,
                Esc(&a.namespace),
                Esc(&a.name),
                Esc(&a.node),
                Esc(&a.namespace),
                Esc(&a.name),
                Esc(&a.node)
            )?;
            for why in &a.why {
                writeln!(out, "<li>{}</li>", Esc(why))?;
            }
            writeln!(out, "</ul></li>")?;
        }
    }
    writeln!(out, r#"<li class="step fixes"><span class="step-name">Fixes, ranked</span><ol class="fixes">"#)?;
    for (i, s) in r.next_steps.iter().enumerate() {
        writeln!(
            out,
            r#"<li data-rank="{}"><span class="addresses">{}</span> {}</li>"#,
            i + 1,
            Esc(&s.addresses),
            Esc(&s.action)
        )?;
    }
    writeln!(out, "</ol></li>")?;
    writeln!(out, "</ol>")?;
    if let Some(s) = &r.state {
        nodes_table(out, s)?;
    }
    if !r.notes.is_empty() {
        writeln!(out, r#"<ul class="notes">"#)?;
        for n in &r.notes {
            writeln!(out, "<li>{}</li>", Esc(n))?;
        }
        writeln!(out, "</ul>")?;
    }
    writeln!(out, "</section>")
}

fn constraint<W: Write>(out: &mut W, r: &PendingReport) -> std::io::Result<()> {
    writeln!(
        out,
        r#"<li class="step constraint"><span class="step-name">Constraint</span> the scheduler's latest message: <q class="message">{}</q><ul>"#,
        Esc(&r.latest_message)
    )?;
    for x in &r.reasons {
        let nodes = match (x.nodes, r.total_nodes) {
            (Some(n), Some(total)) => format!("{n}/{total} nodes"),
            (Some(n), None) => count(n as usize, "node", "nodes"),
            (None, _) => "before any node was filtered".into(),
        };
        writeln!(
            out,
            r#"<li class="reason">{} — {nodes}; preemption {}</li>"#,
            Esc(&x.reason),
            match r.preemption_verdict(x) {
                PreemptionVerdict::Yes => "can help",
                PreemptionVerdict::No => "cannot help",
                PreemptionVerdict::Maybe => "might help (no preemption part in the message)",
            }
        )?;
    }
    writeln!(out, "</ul>")?;
    if let Some(s) = r.state.as_ref().filter(|s| s.pod_known) {
        let requests: Vec<String> = s
            .pod_requests
            .iter()
            .map(|(res, v)| {
                format!(
                    r#"<span class="pod-request" data-resource="{}" data-amount="{v}">{} {}</span>"#,
                    Esc(res),
                    Esc(res),
                    Esc(&amount(res, *v))
                )
            })
            .collect();
        let text = if requests.is_empty() { "nothing (BestEffort)".to_string() } else { requests.join(", ") };
        writeln!(out, "<p>The pod requests {text}.</p>")?;
        if let Some(f) = &s.spec_from {
            writeln!(
                out,
                concat!(
                    r#"<p class="spec-from" data-kind="{}" data-name="{}">From the owner's template: its Pod object is "#,
                    "not in the store, so its requests, constraints, the node left and the shortfalls derive from ",
                    "{} {}/{} (observed {}).</p>"
                ),
                Esc(&f.kind),
                Esc(&f.name),
                Esc(&f.kind),
                Esc(&f.namespace),
                Esc(&f.name),
                crate::render::time(f.observed_at)
            )?;
        }
    }
    writeln!(out, "</li>")
}

fn state_steps<W: Write>(out: &mut W, s: &StateAtFailure) -> std::io::Result<()> {
    writeln!(out, r#"<li class="step excluded"><span class="step-name">Nodes excluded</span><ul>"#)?;
    for c in &s.constraints {
        writeln!(
            out,
            r#"<li class="constraint" data-plugin="{}" data-nodes="{}"><b>{}</b> excluded {} node(s): {} — {}</li>"#,
            Esc(&c.plugin),
            c.nodes.len(),
            Esc(&c.plugin),
            c.nodes.len(),
            Esc(&c.nodes.join(", ")),
            Esc(&c.reason)
        )?;
    }
    if s.constraints.is_empty() {
        writeln!(out, "<li>no constraint other than resources excluded a node</li>")?;
    }
    if let Some(m) = &s.reconstructed_message {
        let verdict = match s.matches_event {
            Some(true) => "the same counts as the event",
            Some(false) => "different counts from the event (see the notes)",
            None => "not comparable with the event",
        };
        writeln!(out, "<li>kube-scheduler's filters on this state: <q>{}</q> — {verdict}</li>", Esc(m))?;
    }
    writeln!(out, "</ul></li>")?;
    let left = if s.left.is_empty() {
        if s.pod_known {
            "no node passes the pod's constraints".to_string()
        } else {
            "unknown: the pod's own object is not in the store".to_string()
        }
    } else {
        s.left.iter().map(|n| format!(r#"<span class="node-left">{}</span>"#, Esc(n))).collect::<Vec<_>>().join(", ")
    };
    writeln!(out, r#"<li class="step left"><span class="step-name">Node left</span> {left}</li>"#)?;
    if !s.shortfalls.is_empty() {
        // As the terminal: with a lower bound on the requested amounts, free
        // is at most and short at least (`data-bound` says so to scripts).
        let (le, ge) = if s.requested_is_lower_bound { ("≤", "≥") } else { ("", "") };
        let bound = if s.requested_is_lower_bound { r#" data-bound="lower""# } else { "" };
        writeln!(out, r#"<li class="step shortfall"><span class="step-name">Shortfall</span><ul>"#)?;
        for sf in &s.shortfalls {
            let (le, ge, bound, from) = match &sf.exact_from {
                Some(from) => ("", "", "", format!(" ({})", Esc(from))),
                None => (le, ge, bound, String::new()),
            };
            writeln!(
                out,
                r#"<li class="shortfall" data-node="{}" data-resource="{}" data-requested="{}" data-free="{}" data-short="{}"{bound}>{} {}: the pod requests <b>{}</b>, <b>{le}{}</b> free → <b>{ge}{}</b> short{from}</li>"#,
                Esc(&sf.node),
                Esc(&sf.resource),
                sf.requested,
                sf.free,
                sf.short,
                Esc(&sf.node),
                Esc(&sf.resource),
                Esc(&sf.display[0]),
                Esc(&sf.display[1]),
                Esc(&sf.display[2])
            )?;
        }
        writeln!(out, "</ul></li>")?;
    }
    Ok(())
}

/// `bound` (`≥` or '') prefixes the requested amount when it is a lower bound.
fn fill<W: Write>(out: &mut W, f: &NodeFill, bound: &str) -> std::io::Result<()> {
    writeln!(
        out,
        r#"<li class="step full" data-node="{}"><span class="step-name">Why {} is full</span> {bound}{}/{} {} requested by {}.<ul class="bursts">"#,
        Esc(&f.node),
        Esc(&f.node),
        Esc(&amount(&f.resource, f.requested)),
        Esc(&amount(&f.resource, f.allocatable)),
        Esc(&f.resource),
        count(f.holders.len(), "pod", "pods")
    )?;
    for b in &f.bursts {
        writeln!(out, r#"<li class="burst" data-operation="{}">{}</li>"#, b.operation, Esc(&b.summary))?;
    }
    for r in &f.runs {
        writeln!(out, r#"<li class="run" data-cause="{}">{}</li>"#, Esc(&r.cause), Esc(&r.summary))?;
    }
    writeln!(out, "</ul>")?;
    writeln!(
        out,
        r#"<table class="holders"><tr><th>pod</th><th>{}</th><th>bound</th><th>brought by</th></tr>"#,
        Esc(&f.resource)
    )?;
    for h in f.holders.iter().take(HOLDERS_SHOWN) {
        writeln!(
            out,
            "<tr><td>{}/{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            Esc(&h.namespace),
            Esc(&h.name),
            Esc(&amount(&f.resource, h.request)),
            h.bound_at.map_or("-".into(), full),
            Esc(&arrival(&h.arrival))
        )?;
    }
    if f.holders.len() > HOLDERS_SHOWN {
        let rest = &f.holders[HOLDERS_SHOWN..];
        writeln!(
            out,
            r#"<tr><td colspan="4">… and {} more pods holding {} (<code>kdrift why-pending -o json</code> lists them all)</td></tr>"#,
            rest.len(),
            Esc(&amount(&f.resource, rest.iter().map(|h| h.request).sum()))
        )?;
    }
    writeln!(out, "</table></li>")
}

fn nodes_table<W: Write>(out: &mut W, s: &StateAtFailure) -> std::io::Result<()> {
    writeln!(
        out,
        "<details><summary>Nodes at the last failure ({}; {})</summary>",
        full(s.at),
        count(s.pods_counted, "pod counted", "pods counted")
    )?;
    // Lower bounds as the terminal's table marks them: requested and pods
    // `≥`, free `≤`.
    let bound = if s.requested_is_lower_bound { "≥" } else { "" };
    let free_bound = if s.requested_is_lower_bound { "≤" } else { "" };
    writeln!(
        out,
        r#"<table class="nodes"><tr><th>node</th><th>cpu requested</th><th>cpu free</th><th>memory requested</th><th>pods</th><th>fails for this pod</th></tr>"#
    )?;
    // The kubelet's exact cpu free per node (`exact_free`'s first match),
    // looked up once: a scan per node was 25M comparisons at 5,000 nodes.
    let mut exact_cpu: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for sf in s.shortfalls.iter().filter(|sf| sf.resource == "cpu" && sf.exact_from.is_some()) {
        exact_cpu.entry(sf.node.as_str()).or_insert(sf.display[1].as_str());
    }
    for n in &s.nodes {
        let get = |name: &str| n.resources.iter().find(|r| r.resource == name);
        let cell = |name: &str| {
            get(name).map_or("-".to_string(), |r| {
                format!(
                    "{bound}{}/{} ({bound}{} %)",
                    amount(name, r.requested),
                    amount(name, r.allocatable),
                    percent_text(r.percent)
                )
            })
        };
        let mut flags = Vec::new();
        if n.unschedulable {
            flags.push("cordoned");
        }
        if n.ready == Some(false) {
            flags.push("NotReady");
        }
        let name = if flags.is_empty() { n.name.clone() } else { format!("{} ({})", n.name, flags.join(", ")) };
        writeln!(
            out,
            r#"<tr data-node="{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            Esc(&n.name),
            Esc(&name),
            Esc(&cell("cpu")),
            // The kubelet's exact count where it replaced the bound, as the
            // terminal's table and the shortfall line (new-user trial 42).
            match exact_cpu.get(n.name.as_str()) {
                Some(free) => format!("{} (kubelet)", Esc(free)),
                None => get("cpu").map_or("-".into(), |r| format!("{free_bound}{}", Esc(&amount("cpu", r.free)))),
            },
            Esc(&cell("memory")),
            get("pods").map_or("-".into(), |r| format!("{bound}{}/{}", r.requested, r.allocatable)),
            fit_cell(s, n)
        )?;
    }
    writeln!(out, "</table></details>")
}

/// What a node's row says of the pending pod, as the terminal's table:
/// its failing filters, "fits", or "?" when the pod's object is unknown; a
/// fit the event contradicts is said to be the stored objects', not the
/// failure's.
fn fit_cell(s: &StateAtFailure, n: &kdrift_analyze::NodeLine) -> String {
    match (n.fails.is_empty(), s.pod_known, s.matches_event) {
        (false, ..) => Esc(&n.fails.join("; ")).to_string(),
        (true, false, _) => "?".to_string(),
        (true, true, Some(false)) => "fits on the stored objects, not at the failure (see the notes)".to_string(),
        (true, true, _) => "fits".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{nodes_table, shown_line, state_steps};

    #[test]
    fn shortfalls_are_marked_as_bounds_as_the_terminal_marks_them() {
        // The chain's shortfall said "58m free → 42m short" where the
        // terminal said "≤58m free → ≥42m short".
        use kdrift_analyze::{Shortfall, StateAtFailure};
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-28T05:15:00Z").expect("t").to_utc();
        let short = |exact_from: Option<String>| Shortfall {
            node: "node-1".into(),
            resource: "cpu".into(),
            requested: 100,
            free: 58,
            short: 42,
            display: ["100m".into(), "58m".into(), "42m".into()],
            exact_from,
        };
        let mut s = StateAtFailure {
            at,
            pod_known: true,
            pod_requests: vec![("cpu".into(), 100)],
            requests_without_limit: Vec::new(),
            nodes: Vec::new(),
            constraints: Vec::new(),
            left: vec!["node-1".into()],
            shortfalls: vec![short(None)],
            reconstructed_message: None,
            matches_event: None,
            pods_counted: 0,
            requested_is_lower_bound: true,
            spec_from: None,
        };
        let html = |s: &StateAtFailure| {
            let mut out = Vec::new();
            state_steps(&mut out, s).expect("write");
            String::from_utf8(out).expect("utf-8")
        };
        let text = html(&s);
        assert!(
            text.contains(r#"data-short="42" data-bound="lower">node-1 cpu: the pod requests <b>100m</b>, <b>≤58m</b> free → <b>≥42m</b> short</li>"#),
            "{text}"
        );
        // Exact numbers (the kubelet's count) are not bounds, and say where they come from.
        s.shortfalls = vec![short(Some("the kubelet's count at admission, 2026-11-28T05:15:00Z".into()))];
        // The node table says the kubelet's free amount too, not the store's
        // bound (new-user trial 42: `≤1780m` in the table, `225m` in the line).
        s.nodes = vec![kdrift_analyze::NodeLine {
            name: "node-1".into(),
            ready: Some(true),
            unschedulable: false,
            pods: 3,
            resources: vec![kdrift_analyze::ResourceLine {
                resource: "cpu".into(),
                allocatable: 2000,
                requested: 220,
                free: 1780,
                percent: 11.0,
            }],
            fails: Vec::new(),
            recorded_as: None,
            estimated: false,
        }];
        let text = html(&s);
        let mut table = Vec::new();
        nodes_table(&mut table, &s).expect("write");
        let table = String::from_utf8(table).expect("utf-8");
        assert!(table.contains("<td>58m (kubelet)</td>") && !table.contains("1780m"), "{table}");
        assert!(
            text.contains(r#"data-short="42">node-1 cpu: the pod requests <b>100m</b>, <b>58m</b> free → <b>42m</b> short (the kubelet&#39;s count at admission, 2026-11-28T05:15:00Z)</li>"#),
            "{text}"
        );
    }

    #[test]
    fn the_chains_shown_are_counted_against_the_pods_pending() {
        assert_eq!(
            shown_line(101, 101, 20).as_deref(),
            Some(
                r#"<p class="chains-shown" data-shown="20" data-pending="101">Chains are shown for the 20 longest-pending of the 101 pods that were Pending; the other 81 are listed without one: <code>kdrift why-pending NAMESPACE/POD</code> explains any of them, <code>kdrift why-pending --all</code> lists them all.</p>"#
            )
        );
        let one = shown_line(2, 2, 1).expect("line");
        assert!(one.contains(">A chain is shown for the longest-pending of the 2 pods that were Pending; the other one is listed without one: "), "{one}");
        let none = shown_line(3, 3, 0).expect("line");
        assert!(
            none.contains(">No chain is shown for the 3 pods that were Pending; they are listed without one: "),
            "{none}"
        );
        assert_eq!(shown_line(5, 5, 5), None, "every chain is shown");
        assert_eq!(shown_line(0, 0, 0), None);
    }

    #[test]
    fn a_cut_list_says_which_pods_are_listed() {
        let cut = shown_line(10_959, 500, 20).expect("line");
        assert!(
            cut.contains(">Chains are shown for the 20 longest-pending of the 10959 pods that were Pending; the next 480 are listed without one: "),
            "{cut}"
        );
        let none = shown_line(600, 500, 0).expect("line");
        assert!(none.contains("; the 500 longest-pending are listed without one: "), "{none}");
        let only = shown_line(600, 20, 20).expect("line");
        assert!(only.contains("; the others are not listed: "), "{only}");
    }
}
