//! The report page: `<head>` with the inline style sheet, the header (store,
//! time range, counts), then the drain timeline, the requested % charts, the
//! Pending chains and the notes. Self-contained: no script, no external
//! resource, no font but the system's.

use std::io::Write;

use kdrift_analyze::Operation;
use kdrift_analyze::ReportData;
use kdrift_analyze::{EpisodeEnd, OperationKind};
use kdrift_rebalance::percent_text;

use super::chains;
use super::escape::Esc;
use super::gantt::{gantt, nodes_of, window, Gantt, Labels};
use super::series;
use crate::render::duration;
use crate::render::timeline::{full, kind};

/// Operations drawn in a chart of their own (the overview shows all).
const OPERATION_CHARTS: usize = 12;
/// Narrowest operation frame on the overview (SVG units of [`super::gantt::WIDTH`]):
/// a 10-minute drain in a 2-day range is 3.1 units wide.
const MIN_OVERVIEW_GROUP: f64 = 12.0;

const STYLE: &str = include_str!("report.css");

/// Writes the whole report.
pub fn html<W: Write>(out: &mut W, d: &ReportData) -> std::io::Result<()> {
    writeln!(out, "<!DOCTYPE html>")?;
    writeln!(out, r#"<html lang="en"><head><meta charset="utf-8">"#)?;
    writeln!(out, r#"<meta name="viewport" content="width=device-width, initial-scale=1">"#)?;
    writeln!(out, "<title>kdrift report — {}</title>", Esc(&d.store))?;
    writeln!(out, "<style>\n{STYLE}</style>\n</head>\n<body>")?;
    header(out, d)?;
    writeln!(out, "<main>")?;
    drains(out, d)?;
    requested(out, d)?;
    pending(out, d)?;
    notes(out, d)?;
    writeln!(out, "</main>")?;
    writeln!(
        out,
        r#"<footer>kdrift {} · times in UTC · requested % = requests of the pods bound to a node / its allocatable</footer>"#,
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(out, "</body></html>")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!(r#"<span class="count">{n}</span> {}"#, if n == 1 { one } else { many })
}

fn header<W: Write>(out: &mut W, d: &ReportData) -> std::io::Result<()> {
    writeln!(out, "<header>\n<h1>kdrift report</h1>\n<dl class=\"facts\">")?;
    writeln!(out, r#"<dt>Store</dt><dd id="store">{}</dd>"#, Esc(&d.store))?;
    let span = match (d.store_first_at, d.store_last_at) {
        (Some(a), Some(b)) => format!("the store spans {} → {}", full(a), full(b)),
        _ => "the store holds nothing with a time".into(),
    };
    match (d.from, d.to) {
        (Some(from), Some(to)) => writeln!(
            out,
            r#"<dt>Time range</dt><dd id="range" data-from="{}" data-to="{}">{} → {} ({}); {span}</dd>"#,
            from.to_rfc3339(),
            to.to_rfc3339(),
            full(from),
            full(to),
            duration((to - from).num_seconds())
        )?,
        // Nothing given and nothing with a time stored: no range (it read 1970 → 1970).
        _ => writeln!(out, r#"<dt>Time range</dt><dd id="range">none: {span}</dd>"#)?,
    }
    let c = &d.counts;
    writeln!(
        out,
        r#"<dt>Store holds</dt><dd id="counts" data-nodes="{}" data-pods="{}" data-events="{}">{}, {}, {}, {}, {}</dd>"#,
        c.nodes,
        c.pods,
        c.events,
        plural(c.nodes.max(0) as usize, "node", "nodes"),
        plural(c.pods.max(0) as usize, "pod", "pods"),
        plural(c.events.max(0) as usize, "event", "events"),
        plural(c.observations.max(0) as usize, "object version", "object versions"),
        plural(c.runs.max(0) as usize, "ingest run", "ingest runs"),
    )?;
    let ops = &d.timeline.operations;
    let rolling = ops.iter().filter(|o| o.kind == OperationKind::RollingDrain).count();
    let moved: usize = ops.iter().map(|o| o.pods_moved).sum();
    writeln!(
        out,
        r#"<dt>In the range</dt><dd id="found" data-operations="{}" data-pending="{}">{} ({}), {} moved, {} Pending</dd>"#,
        ops.len(),
        d.pending_total,
        plural(ops.len(), "drain or outage", "drains and outages"),
        plural(rolling, "rolling drain", "rolling drains"),
        plural(moved, "pod", "pods"),
        plural(d.pending_total, "pod", "pods"),
    )?;
    writeln!(out, "</dl>")?;
    writeln!(
        out,
        r##"<nav><a href="#drains">Drain timeline</a> · <a href="#requested">Requested % over time</a> · <a href="#pending">Pending chains</a> · <a href="#notes">Notes</a></nav>"##
    )?;
    writeln!(out, "</header>")
}

fn drains<W: Write>(out: &mut W, d: &ReportData) -> std::io::Result<()> {
    writeln!(out, r#"<section id="drains"><h2>Drain timeline</h2>"#)?;
    let ops = &d.timeline.operations;
    if ops.is_empty() {
        writeln!(out, r#"<p class="empty">No drain, reboot or outage in the range.</p>"#)?;
    } else {
        writeln!(
            out,
            "<p>Episodes less than {} apart are one operation. Every mark has a tooltip; an operation's frame \
             links to its own chart below, on its own time scale.</p>",
            duration(d.timeline.group_gap_seconds)
        )?;
    }
    legend(out)?;
    let overview = Gantt {
        id: "gantt-overview".into(),
        title: "Drains and outages per node over the whole range".into(),
        scale: Gantt::scale_for(d.requested.from, d.requested.to, &d.nodes),
        nodes: d.nodes.clone(),
        operations: ops.iter().collect(),
        min_band: 2.0,
        min_group: MIN_OVERVIEW_GROUP,
        zoomed: ops.iter().take(OPERATION_CHARTS).map(|o| o.number).collect(),
        labels: Labels::Short,
    };
    writeln!(out, r#"<div class="figure">"#)?;
    gantt(out, &overview)?;
    writeln!(out, "</div>")?;
    for op in ops.iter().take(OPERATION_CHARTS) {
        operation(out, d, op)?;
    }
    if ops.len() > OPERATION_CHARTS {
        writeln!(
            out,
            "<p>{} more operations are in the overview only (<code>kdrift timeline drains</code> lists them).</p>",
            ops.len() - OPERATION_CHARTS
        )?;
    }
    writeln!(out, "</section>")
}

fn legend<W: Write>(out: &mut W) -> std::io::Result<()> {
    writeln!(
        out,
        r#"<ul class="key"><li><i class="k-cordoned"></i>cordoned</li><li><i class="k-draining"></i>draining (first to last eviction)</li><li><i class="k-not-ready"></i>NotReady</li><li><i class="k-evict"></i>pod evicted</li><li><i class="k-landed"></i>replacement bound here</li><li><i class="k-reboot"></i>reboot</li></ul>"#
    )
}

fn operation<W: Write>(out: &mut W, d: &ReportData, op: &Operation) -> std::io::Result<()> {
    let title = format!("#{} {} · {}", op.number, kind(op.kind), full(op.started_at));
    writeln!(
        out,
        r#"<section class="operation" id="operation-{}" data-operation="{}"><h3>{}</h3>"#,
        op.number,
        op.number,
        Esc(&title)
    )?;
    let span = match op.ended_at {
        Some(e) => format!("ended {} after {}", full(e), duration((e - op.started_at).num_seconds())),
        None => crate::render::timeline::unended(op, &full(op.last_at())),
    };
    let landed: Vec<String> = op.landed.iter().map(crate::render::timeline::landing_text).collect();
    writeln!(
        out,
        "<p>Order: {}; {span}. {} moved; replacements landed on: {}. Skew left (max − min requested %): cpu {} (before: {}), memory {}.</p>",
        Esc(&crate::render::timeline::order_text(op)),
        kdrift_analyze::count(op.pods_moved, "pod", "pods"),
        Esc(&if landed.is_empty() { "-".to_string() } else { landed.join(", ") }),
        skew_text(&op.after, "cpu"),
        skew_text(&op.before, "cpu"),
        skew_text(&op.after, "memory")
    )?;
    let (from, to) = window(op);
    let nodes = nodes_of(op, &d.nodes);
    let chart = Gantt {
        id: format!("gantt-operation-{}", op.number),
        title: format!("Operation #{} per node", op.number),
        scale: Gantt::scale_for(from, to, &nodes),
        nodes,
        operations: vec![op],
        min_band: 1.0,
        min_group: 0.0,
        zoomed: Vec::new(),
        labels: Labels::Full,
    };
    writeln!(out, r#"<div class="figure">"#)?;
    gantt(out, &chart)?;
    writeln!(out, "</div>")?;
    episodes_table(out, op)?;
    writeln!(out, "</section>")
}

fn episodes_table<W: Write>(out: &mut W, op: &Operation) -> std::io::Result<()> {
    let t = |x: Option<chrono::DateTime<chrono::Utc>>| {
        x.map_or("-".to_string(), |t| crate::render::time_near(t, op.started_at))
    };
    let pct = |r: &kdrift_analyze::RequestedAt, node: &str, res: &str| {
        r.node(node)
            .and_then(|n| n.get(res))
            .filter(|l| l.allocatable > 0)
            .map_or("-".to_string(), |l| format!("{} %", percent_text(l.percent)))
    };
    writeln!(
        out,
        r#"<table class="episodes"><tr><th>node</th><th>cordoned</th><th>NotReady</th><th>rebooted</th><th>Ready</th><th>uncordoned</th><th>evicted</th><th>landed here</th><th>cpu before → after</th><th>memory before → after</th></tr>"#
    )?;
    let mut nodes: Vec<&str> = op.order.iter().map(String::as_str).collect();
    for l in &op.landed {
        if !nodes.contains(&l.node.as_str()) {
            nodes.push(&l.node);
        }
    }
    for node in nodes {
        let e = op.episode(node);
        let landed = op.landed.iter().find(|l| l.node == node).map_or(0, |l| l.pods);
        // As the CLI's REBOOTED column (new-user trial 43: the legend named
        // reboots, the table had no column for them).
        let rebooted = match e.map(|e| &e.reboots) {
            Some(reboots) if !reboots.is_empty() => reboots.iter().map(|r| t(Some(*r))).collect::<Vec<_>>().join(", "),
            _ => "-".to_string(),
        };
        let end = match e.map(|e| e.end) {
            Some(EpisodeEnd::Open) => " (open)",
            Some(EpisodeEnd::RecoveryUnseen) => " (recovered unseen)",
            _ => "",
        };
        writeln!(
            out,
            r#"<tr data-node="{n}"><td>{n}{end}</td><td>{}</td><td>{}</td><td>{rebooted}</td><td>{}</td><td>{}</td><td>{}</td><td>{landed}</td><td>{} → {}</td><td>{} → {}</td></tr>"#,
            t(e.and_then(|e| e.cordoned_at)),
            t(e.and_then(|e| e.not_ready_at)),
            t(e.and_then(|e| e.ready_at)),
            t(e.and_then(|e| e.uncordoned_at)),
            e.map_or(0, |e| e.evicted.len()),
            pct(&op.before, node, "cpu"),
            pct(&op.after, node, "cpu"),
            pct(&op.before, node, "memory"),
            pct(&op.after, node, "memory"),
            n = Esc(node),
        )?;
    }
    writeln!(out, "</table>")
}

fn requested<W: Write>(out: &mut W, d: &ReportData) -> std::io::Result<()> {
    writeln!(out, r#"<section id="requested"><h2>Requested % over time</h2>"#)?;
    let s = &d.requested;
    let nodes = s.nodes();
    if d.outside_history {
        writeln!(
            out,
            r#"<p class="empty">The range is outside the store's history: no requested % to chart.</p></section>"#
        )?;
        return Ok(());
    }
    if nodes.is_empty() {
        writeln!(
            out,
            r#"<p class="empty">The store has no Node objects in the range: no requested % to chart.</p></section>"#
        )?;
        return Ok(());
    }
    // Only the samples with a node are charted and counted (as the summary
    // line on stdout): a range that starts before the first Node object has
    // earlier instants with none.
    let charted = s.charted_samples();
    let start_charted = s.samples.first().is_some_and(|x| !x.nodes.is_empty());
    let uncharted = match s.samples.len() - charted {
        0 => String::new(),
        1 if !start_charted => format!(
            "; not at the start of the range ({}): the store has no Node object yet there",
            crate::render::timeline::full(s.from)
        ),
        n => format!(
            "; not at {n} instants from the start of the range ({}): the store has no Node object yet there",
            crate::render::timeline::full(s.from)
        ),
    };
    writeln!(
        out,
        "<p>Sampled at {} instants: {}{} ({} changes of requests, bindings, stops or Node versions in the range){}. A value holds until the next sample; shaded: the drain operations.</p>",
        charted,
        if start_charted { "the start of the range and " } else { "" },
        if s.coalesced { "the last change of each equal slice of the range" } else { "every change" },
        s.changes,
        Esc(&uncharted)
    )?;
    if let Some(note) = &s.lower_bound_note {
        writeln!(out, r#"<p class="note lower-bound">{}</p>"#, Esc(note))?;
    }
    if let Some(u) = &d.used {
        writeln!(
            out,
            r#"<p class="used-note">Dotted: measured used % of allocatable, the mean of each {} step (the store's usage samples).</p>"#,
            crate::render::duration(u.step_seconds)
        )?;
    }
    for resource in ["cpu", "memory"] {
        writeln!(out, r#"<h3>{resource}</h3><div class="figure">"#)?;
        series::chart(out, s, d.used.as_ref(), &d.nodes, &d.timeline.operations, resource)?;
        writeln!(out, "</div>")?;
        series::legend(out, s, d.used.as_ref(), &d.nodes, resource)?;
    }
    writeln!(out, "</section>")
}

fn pending<W: Write>(out: &mut W, d: &ReportData) -> std::io::Result<()> {
    writeln!(out, r#"<section id="pending"><h2>Pending chains</h2>"#)?;
    if d.pending.is_empty() {
        writeln!(out, r#"<p class="empty">No pod had FailedScheduling in the range.</p></section>"#)?;
        return Ok(());
    }
    if let Some(line) = chains::shown_line(d.pending_total, d.pending.len(), d.chains.len()) {
        writeln!(out, "{line}")?;
    }
    chains::list(out, &d.pending, &d.chains, d.pending_total)?;
    for c in &d.chains {
        chains::chain(out, c)?;
    }
    writeln!(out, "</section>")
}

fn notes<W: Write>(out: &mut W, d: &ReportData) -> std::io::Result<()> {
    writeln!(out, r#"<section id="notes"><h2>Notes</h2><ul class="notes">"#)?;
    let all: Vec<&String> = d.notes.iter().chain(d.timeline.notes.iter()).collect();
    if all.is_empty() {
        writeln!(out, "<li>none</li>")?;
    }
    for n in all {
        writeln!(out, "<li>{}</li>", Esc(n))?;
    }
    writeln!(out, "</ul></section>")
}

/// A resource's skew in points, `-` when no two nodes offer it (no Node
/// objects: it read `0.0 points`).
fn skew_text(r: &kdrift_analyze::RequestedAt, resource: &str) -> String {
    r.skew
        .iter()
        .find(|s| s.resource == resource && s.nodes >= 2)
        .map_or("-".to_string(), |s| format!("{} points", percent_text(s.skew)))
}
