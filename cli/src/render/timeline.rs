//! Tables for `timeline drains`: per operation, the nodes in order with their
//! cordon / NotReady / reboot / Ready / uncordon times and evictions, where
//! the evicted pods landed, and every node's requested % before and after
//! with the skew left.

use std::io::Write;

use chrono::{DateTime, Utc};
use kdrift_analyze::RequestedAt;
use kdrift_analyze::{DrainTimeline, Operation};
use kdrift_analyze::{EpisodeEnd, OperationKind};
use kdrift_rebalance::percent_text;
use tabled::{Table, Tabled};

use super::{duration, skew_points};

/// `2026-11-28T02:00:00Z` ([`super::time`]).
pub fn full(t: DateTime<Utc>) -> String {
    super::time(t)
}

/// Time of day when on `day`'s date, else the full time.
fn short(t: Option<DateTime<Utc>>, day: DateTime<Utc>) -> String {
    match t {
        None => "-".into(),
        Some(t) => super::time_near(t, day),
    }
}

/// An operation kind in words (`rolling drain`, `outage (no cordon)`).
pub fn kind(k: OperationKind) -> &'static str {
    match k {
        OperationKind::RollingDrain => "rolling drain",
        OperationKind::SimultaneousCordon => "simultaneous cordon",
        OperationKind::Drain => "drain",
        OperationKind::Outage => "outage (no cordon)",
        OperationKind::Mixed => "drain and outage",
    }
}

#[derive(Tabled)]
struct EpisodeRow {
    #[tabled(rename = "NODE")]
    node: String,
    #[tabled(rename = "CORDONED")]
    cordoned: String,
    #[tabled(rename = "NOT READY")]
    not_ready: String,
    #[tabled(rename = "REBOOTED")]
    rebooted: String,
    #[tabled(rename = "READY")]
    ready: String,
    #[tabled(rename = "UNCORDONED")]
    uncordoned: String,
    #[tabled(rename = "PODS EVICTED")]
    evicted: usize,
    #[tabled(rename = "END")]
    end: String,
}

#[derive(Tabled)]
struct UsageRow {
    #[tabled(rename = "NODE")]
    node: String,
    #[tabled(rename = "CPU BEFORE")]
    cpu_before: String,
    #[tabled(rename = "CPU AFTER")]
    cpu_after: String,
    #[tabled(rename = "MEMORY BEFORE")]
    mem_before: String,
    #[tabled(rename = "MEMORY AFTER")]
    mem_after: String,
    #[tabled(rename = "PODS BEFORE → AFTER")]
    pods: String,
}

fn pct(r: &RequestedAt, node: &str, resource: &str) -> String {
    match r.node(node).and_then(|n| n.get(resource)) {
        Some(l) if l.allocatable > 0 => {
            format!("{} %{}", percent_text(l.percent), if r.node(node).is_some_and(|n| n.estimated) { "*" } else { "" })
        }
        _ => "-".into(),
    }
}

/// The timeline as text.
pub fn drains<W: Write>(out: &mut W, t: &DrainTimeline) -> anyhow::Result<()> {
    for (i, op) in t.operations.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        operation(out, op)?;
    }
    if !t.operations.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{} operation(s); episodes less than {} apart are one operation; requested % = requests of the pods \
             bound to the node / allocatable, 1 s before the start and 1m after the end",
            t.operations.len(),
            duration(t.group_gap_seconds),
        )?;
    }
    if !t.evictions.is_empty() {
        if !t.operations.is_empty() {
            writeln!(out)?;
        }
        writeln!(out, "Evictions by other components (cordon or not):")?;
        for r in &t.evictions {
            writeln!(out, "  {}", r.summary)?;
        }
    }
    for n in &t.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}

/// The operation's order, nodes cordoned together shown as one step:
/// `node-1 → [node-2, node-3, node-4 together] → node-5`.
pub(crate) fn order_text(op: &Operation) -> String {
    let mut steps: Vec<String> = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for node in &op.order {
        if done.contains(&node.as_str()) {
            continue;
        }
        match op.cordoned_together.iter().find(|t| t.nodes.contains(node)) {
            Some(t) => {
                done.extend(t.nodes.iter().map(String::as_str));
                steps.push(format!("[{} together]", t.nodes.join(", ")));
            }
            None => steps.push(node.clone()),
        }
    }
    steps.join(" → ")
}

fn operation<W: Write>(out: &mut W, op: &Operation) -> anyhow::Result<()> {
    let span = match op.ended_at {
        Some(end) => format!(
            "{} → {} ({})",
            full(op.started_at),
            short(Some(end), op.started_at),
            duration((end - op.started_at).num_seconds())
        ),
        None => format!("{} → {}", full(op.started_at), unended(op, &short(Some(op.last_at()), op.started_at))),
    };
    writeln!(out, "#{} {} — {span}", op.number, kind(op.kind))?;
    if op.kind == OperationKind::SimultaneousCordon {
        // No order to tell: every node was cordoned within seconds.
        let cordons = op.episodes.iter().filter_map(|e| e.cordoned_at);
        let spread = cordons.clone().max().zip(cordons.min()).map_or(0, |(l, f)| (l - f).num_seconds());
        writeln!(
            out,
            "  cordoned together within {}: {} (e.g. a node-pool upgrade; their pods could only go to the other nodes)",
            duration(spread),
            op.order.join(", ")
        )?;
    } else {
        writeln!(out, "  order: {}", order_text(op))?;
        for t in &op.cordoned_together {
            let left = if t.left.is_empty() { "no node".to_string() } else { t.left.join(", ") };
            writeln!(
                out,
                "  {} cordoned together at {} (within {}): no order among them; their pods could only go to {left}",
                t.nodes.join(", "),
                short(Some(t.first_at), op.started_at),
                duration((t.last_at - t.first_at).num_seconds()),
            )?;
        }
    }
    let rows: Vec<EpisodeRow> = op
        .episodes
        .iter()
        .map(|e| EpisodeRow {
            node: e.node.clone(),
            cordoned: short(e.cordoned_at, op.started_at),
            not_ready: short(e.not_ready_at, op.started_at),
            rebooted: if e.reboots.is_empty() {
                "-".into()
            } else {
                e.reboots.iter().map(|r| short(Some(*r), op.started_at)).collect::<Vec<_>>().join(", ")
            },
            ready: short(e.ready_at, op.started_at),
            uncordoned: short(e.uncordoned_at, op.started_at),
            evicted: e.evicted.len(),
            end: match e.end {
                EpisodeEnd::Closed => short(e.ended_at, op.started_at),
                EpisodeEnd::Open => "open".into(),
                EpisodeEnd::RecoveryUnseen => "recovered (unseen)".into(),
            },
        })
        .collect();
    if crate::format::wide() {
        writeln!(out, "{}", super::plain(&mut wide_episodes(op, &rows)))?;
    } else {
        writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
    }
    for e in &op.episodes {
        if !e.node_controller_deleted_pods.is_empty() {
            writeln!(
                out,
                "  {}: the node controller deleted its pods at {}",
                e.node,
                e.node_controller_deleted_pods
                    .iter()
                    .map(|t| short(Some(*t), op.started_at))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
        }
    }
    let landed: Vec<String> = op.landed.iter().map(landing_text).collect();
    writeln!(
        out,
        "  pods moved: {}; replacements landed on: {}{}",
        op.pods_moved,
        if landed.is_empty() { "-".into() } else { landed.join(", ") },
        if op.not_replaced > 0 {
            format!("; {} without a replacement in the store", op.not_replaced)
        } else {
            String::new()
        }
    )?;
    if op.after.nodes.is_empty() && op.before.nodes.is_empty() {
        // An empty grid and "skew -" read as a table that lost its rows
        // (new-user trial 43: real node events without Node objects).
        writeln!(out, "  no Node objects: requested % unknown")?;
        return Ok(());
    }
    let rows = op.after.nodes.iter().map(|n| UsageRow {
        node: n.node.clone(),
        cpu_before: pct(&op.before, &n.node, "cpu"),
        cpu_after: pct(&op.after, &n.node, "cpu"),
        mem_before: pct(&op.before, &n.node, "memory"),
        mem_after: pct(&op.after, &n.node, "memory"),
        pods: format!("{} → {}", op.before.node(&n.node).map_or(0, |b| b.pods), n.pods),
    });
    writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
    let skew =
        |r: &RequestedAt, res: &str| r.skew.iter().find(|s| s.resource == res).map_or("-".to_string(), skew_points);
    writeln!(
        out,
        "  skew left (max − min requested %): cpu {}; memory {}",
        skew(&op.after, "cpu"),
        skew(&op.after, "memory")
    )?;
    // From the amounts, as the line above: "-" without nodes (it read 0.0).
    writeln!(out, "  skew before: cpu {}", skew(&op.before, "cpu"))?;
    if op.after.nodes.iter().any(|n| n.estimated) {
        writeln!(out, "  * estimated: versions observed later, or pods known only from events")?;
    }
    Ok(())
}

/// How an operation with no end time ends, `last` being its last signal
/// as text: "still going on at the last signal (…)", or, when every node
/// recovered but a recovery's time was not seen (a later NotReady shows
/// it: [`EpisodeEnd::RecoveryUnseen`]), "recovered, …" as its END column says.
pub(crate) fn unended(op: &Operation, last: &str) -> String {
    if op.episodes.iter().all(|e| e.end != EpisodeEnd::Open) {
        let whose = if op.episodes.len() == 1 { "its" } else { "a node's" };
        format!("recovered, the time of {whose} recovery not seen (last signal {last})")
    } else {
        format!("still going on at the last signal ({last})")
    }
}

/// One destination of an operation's replacements, `node-5 39`, with how
/// many of them the operation evicted from it again (`node-5 39 (12 moved
/// on)`): a rolling drain lands pods on nodes it drains later.
pub(crate) fn landing_text(l: &kdrift_analyze::Landing) -> String {
    match l.moved_again {
        0 => format!("{} {}", l.node, l.pods),
        again => format!("{} {} ({again} moved on)", l.node, l.pods),
    }
}

/// `-o wide`'s node rows: the table's, then how long the node stayed
/// cordoned and not Ready (`-` when it has no end) and the pods its drain
/// evicted (`namespace/name`, comma-separated).
fn wide_episodes(op: &Operation, rows: &[EpisodeRow]) -> Table {
    let lasted = |from: Option<DateTime<Utc>>, to: Option<DateTime<Utc>>| match (from, to) {
        (Some(a), Some(b)) => duration((b - a).num_seconds()),
        _ => "-".into(),
    };
    let mut b = tabled::builder::Builder::default();
    let mut header: Vec<String> = EpisodeRow::headers().into_iter().map(|h| h.to_string()).collect();
    header.extend(["CORDONED FOR", "NOT READY FOR", "EVICTED"].map(String::from));
    b.push_record(header);
    for (row, e) in rows.iter().zip(&op.episodes) {
        let mut cells: Vec<String> = row.fields().into_iter().map(|c| c.to_string()).collect();
        cells.push(lasted(e.cordoned_at, e.uncordoned_at));
        cells.push(lasted(e.not_ready_at, e.ready_at));
        let evicted: Vec<String> = e.evicted.iter().map(|p| format!("{}/{}", p.namespace, p.name)).collect();
        cells.push(if evicted.is_empty() { "-".into() } else { evicted.join(", ") });
        b.push_record(cells);
    }
    b.build()
}
