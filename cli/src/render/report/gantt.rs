//! The drain timeline as an SVG Gantt chart: one row per node, x = time;
//! per node episode a cordoned band, a draining band (first to last
//! eviction), a NotReady band, eviction ticks, reboot marks, and ticks where
//! evicted pods' replacements were bound; each operation framed and labelled
//! (`#2 rolling drain · 2026-11-28T02:00:00Z`). Every shape has a `<title>`
//! (a tooltip without script) and `data-*` attributes naming what it shows.

use std::collections::HashMap;
use std::io::Write;

use chrono::{DateTime, Duration, Utc};
use kdrift_analyze::Operation;
use kdrift_analyze::{BandKind, NodeEpisode};

use super::escape::Esc;
use super::scale::{axis, num, TimeScale};
use crate::render::timeline::{full, kind};

/// Width of every chart (SVG user units; the page scales it down when narrower).
pub const WIDTH: f64 = 1000.0;
/// Narrowest and widest gutter for the node names.
const LEFT_MIN: f64 = 70.0;
const LEFT_MAX: f64 = 260.0;
/// Longer node names are shortened in the middle (the whole name is in the tooltip).
const NAME_CHARS: usize = 34;
const RIGHT: f64 = 16.0;
const TOP: f64 = 34.0;
const ROW: f64 = 26.0;
const AXIS: f64 = 34.0;

/// How operations are labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Labels {
    /// `#2 · 11-28 02:00` (the overview: many operations side by side).
    Short,
    /// `#2 rolling drain · 2026-11-28T02:00:00Z → 02:10:15Z` (one operation).
    Full,
}

/// One Gantt chart.
#[derive(Debug, Clone)]
pub struct Gantt<'a> {
    /// The `id` of the `<svg>`.
    pub id: String,
    /// What the chart shows (its `<title>`).
    pub title: String,
    /// The time axis (x0/x1 are set by [`Gantt::scale_for`]).
    pub scale: TimeScale,
    /// Rows, top to bottom.
    pub nodes: Vec<String>,
    /// The operations drawn.
    pub operations: Vec<&'a Operation>,
    /// Narrowest band drawn (an instant still shows).
    pub min_band: f64,
    /// Narrowest operation frame drawn: on the overview of a long range a
    /// 10-minute drain is a few units wide (3.1 of 910 over 2 days), so its
    /// frame is widened to stay visible.
    pub min_group: f64,
    /// Operations with a zoomed chart of their own (`#operation-N`): their
    /// frame and label link to it.
    pub zoomed: Vec<usize>,
    /// Label style.
    pub labels: Labels,
}

/// A node name as its row label: at most [`NAME_CHARS`] characters, the
/// middle replaced by `…` (`aks-nodepool1-2…5-vmss000000`).
pub fn row_label(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= NAME_CHARS {
        return name.to_string();
    }
    let head = (NAME_CHARS - 1) / 2;
    let tail = NAME_CHARS - 1 - head;
    let mut s: String = chars[..head].iter().collect();
    s.push('…');
    s.extend(&chars[chars.len() - tail..]);
    s
}

/// The gutter left of the time axis for these row labels (about 7 units per
/// character at the labels' size).
pub fn gutter(nodes: &[String]) -> f64 {
    let longest = nodes.iter().map(|n| row_label(n).chars().count()).max().unwrap_or(0);
    (longest as f64 * 7.0 + 18.0).clamp(LEFT_MIN, LEFT_MAX)
}

impl Gantt<'_> {
    /// The time scale of a chart of this module's layout over `[from, to]`
    /// with rows for `nodes`.
    pub fn scale_for(from: DateTime<Utc>, to: DateTime<Utc>, nodes: &[String]) -> TimeScale {
        TimeScale::new(from, to, gutter(nodes), WIDTH - RIGHT)
    }

    /// The y of the top of a node's row.
    pub fn row_y(index: usize) -> f64 {
        TOP + index as f64 * ROW
    }

    /// The chart's height for `rows` rows.
    pub fn height(rows: usize) -> f64 {
        TOP + rows.max(1) as f64 * ROW + AXIS
    }
}

/// The window of one operation's own chart: a margin around it, stretched to
/// show replacements bound within 30 minutes after it.
pub fn window(op: &Operation) -> (DateTime<Utc>, DateTime<Utc>) {
    let (start, last) = (op.started_at, op.last_at());
    let pad = Duration::seconds(((last - start).num_seconds() * 6 / 100).max(60));
    let landed = landings(op).map(|(_, r)| r.bound_at).filter(|t| *t <= last + Duration::minutes(30)).max();
    let end = landed.map_or(last, |l| l.max(last));
    (start - pad, end + pad)
}

/// The nodes an operation touched or sent pods to, in `all`'s order.
pub fn nodes_of(op: &Operation, all: &[String]) -> Vec<String> {
    // A set, not a scan per node (5,000 nodes × an operation's landings).
    let touched: std::collections::HashSet<&str> =
        op.order.iter().map(String::as_str).chain(landings(op).map(|(_, r)| r.node.as_str())).collect();
    all.iter().filter(|n| touched.contains(n.as_str())).cloned().collect()
}

fn landings(op: &Operation) -> impl Iterator<Item = (&kdrift_analyze::MovedPod, &kdrift_analyze::Replacement)> {
    op.episodes.iter().flat_map(|e| e.evicted.iter()).filter_map(|m| m.replacement.as_ref().map(|r| (m, r)))
}

fn label(op: &Operation, style: Labels) -> String {
    match style {
        Labels::Short => format!("#{} · {}", op.number, op.started_at.format("%m-%d %H:%M")),
        Labels::Full => {
            let end = match op.ended_at {
                Some(e) if e.date_naive() == op.started_at.date_naive() => e.format("%H:%M:%SZ").to_string(),
                Some(e) => full(e),
                None => "still open".into(),
            };
            format!("#{} {} · {} → {end}", op.number, kind(op.kind), full(op.started_at))
        }
    }
}

/// Writes the chart.
pub fn gantt<W: Write>(out: &mut W, g: &Gantt<'_>) -> std::io::Result<()> {
    let height = Gantt::height(g.nodes.len());
    let s = &g.scale;
    writeln!(
        out,
        r#"<svg id="{}" class="chart gantt" viewBox="0 0 {} {}" width="{}" height="{}" role="img" aria-label="{}">"#,
        Esc(&g.id),
        num(WIDTH),
        num(height),
        num(WIDTH),
        num(height),
        Esc(&g.title)
    )?;
    writeln!(out, "<title>{}</title>", Esc(&g.title))?;
    let rows_bottom = Gantt::row_y(g.nodes.len().max(1));
    for i in 0..g.nodes.len() {
        let y = Gantt::row_y(i);
        writeln!(
            out,
            r#"<rect class="row-bg{}" x="{}" y="{}" width="{}" height="{}"/>"#,
            if i % 2 == 0 { "" } else { " odd" },
            num(s.x0),
            num(y),
            num(s.x1 - s.x0),
            num(ROW)
        )?;
    }
    axis(out, s, rows_bottom, 10, TOP)?;
    // Operation frames and labels, under the rows' marks.
    let mut label_end = f64::MIN;
    for op in &g.operations {
        let Some((x, w)) = s.span(op.started_at, Some(op.last_at()), g.min_band.max(g.min_group)) else { continue };
        let zoomed = g.zoomed.contains(&op.number);
        if zoomed {
            writeln!(out, r##"<a class="zoom" href="#operation-{}">"##, op.number)?;
        }
        writeln!(
            out,
            r#"<rect class="group" data-operation="{}" x="{}" y="{}" width="{}" height="{}"><title>{}</title></rect>"#,
            op.number,
            num(x),
            num(TOP - 4.0),
            num(w),
            num(rows_bottom - TOP + 4.0),
            Esc(&label(op, Labels::Full))
        )?;
        let text = label(op, g.labels);
        // About 6.6 units per character at the label's size.
        let text_w = text.chars().count() as f64 * 6.6;
        let lx = x.min(WIDTH - RIGHT - text_w).max(2.0);
        if lx >= label_end + 6.0 {
            label_end = lx + text_w;
            writeln!(
                out,
                r#"<text class="group-label" data-operation="{}" data-started-at="{}" x="{}" y="{}">{}</text>"#,
                op.number,
                op.started_at.to_rfc3339(),
                num(lx),
                num(TOP - 10.0),
                Esc(&text)
            )?;
        }
        if zoomed {
            writeln!(out, "</a>")?;
        }
    }
    // Each node's episodes and landings, in the operations' order, found
    // once: a scan of every operation per row was O(nodes × moves), 5,000 ×
    // 31,000 on kdrift issue 39's 1M-event store.
    let mut marks: HashMap<&str, RowMarks<'_>> = HashMap::new();
    for op in &g.operations {
        for e in &op.episodes {
            marks.entry(e.node.as_str()).or_default().episodes.push((op.number, e));
        }
    }
    for op in &g.operations {
        for (m, r) in landings(op) {
            marks.entry(r.node.as_str()).or_default().landings.push((op.number, m, r));
        }
    }
    let none = RowMarks::default();
    for (i, node) in g.nodes.iter().enumerate() {
        row(out, g, node, marks.get(node.as_str()).unwrap_or(&none), Gantt::row_y(i))?;
    }
    writeln!(out, "</svg>")
}

/// One row's marks: its node's episodes and the replacements bound to it,
/// each with its operation's number, in the operations' order.
#[derive(Default)]
struct RowMarks<'a> {
    episodes: Vec<(usize, &'a NodeEpisode)>,
    landings: Vec<(usize, &'a kdrift_analyze::MovedPod, &'a kdrift_analyze::Replacement)>,
}

fn row<W: Write>(out: &mut W, g: &Gantt<'_>, node: &str, marks: &RowMarks<'_>, y: f64) -> std::io::Result<()> {
    writeln!(out, r#"<g class="gantt-row" data-node="{}">"#, Esc(node))?;
    writeln!(
        out,
        r#"<text class="node-label" x="{}" y="{}">{}<title>{}</title></text>"#,
        num(g.scale.x0 - 8.0),
        num(y + 17.0),
        Esc(&row_label(node)),
        Esc(node)
    )?;
    for (number, e) in &marks.episodes {
        episode(out, g, *number, e, y)?;
    }
    for (number, m, r) in &marks.landings {
        let (number, m, r) = (*number, *m, *r);
        let x = g.scale.x(r.bound_at);
        if x < g.scale.x0 || x > g.scale.x1 {
            continue;
        }
        writeln!(
            out,
            r#"<line class="landed" data-operation="{}" data-pod="{}/{}" x1="{x}" y1="{}" x2="{x}" y2="{}"><title>{}/{} bound to {node} at {} (replaces {} evicted from {})</title></line>"#,
            number,
            Esc(&r.namespace),
            Esc(&r.name),
            num(y + 5.0),
            num(y + ROW - 5.0),
            Esc(&r.namespace),
            Esc(&r.name),
            full(r.bound_at),
            Esc(&m.key()),
            Esc(&m.from_node),
            x = num(x),
            node = Esc(node),
        )?;
    }
    writeln!(out, "</g>")
}

fn band<W: Write>(
    out: &mut W,
    g: &Gantt<'_>,
    class: &str,
    (node, operation): (&str, usize),
    (from, to): (DateTime<Utc>, Option<DateTime<Utc>>),
    (y, h): (f64, f64),
    what: &str,
) -> std::io::Result<()> {
    let Some((x, w)) = g.scale.span(from, to, g.min_band) else { return Ok(()) };
    let until = to.map_or_else(|| "open".to_string(), |t| t.to_rfc3339());
    let until_text = to.map_or_else(|| "still at the last signal".to_string(), full);
    writeln!(
        out,
        r#"<rect class="band {class}{}" data-node="{}" data-operation="{operation}" data-from="{}" data-to="{until}" x="{}" y="{}" width="{}" height="{}"><title>{} {what} {} → {}</title></rect>"#,
        if to.is_none() { " open" } else { "" },
        Esc(node),
        from.to_rfc3339(),
        num(x),
        num(y),
        num(w),
        num(h),
        Esc(node),
        full(from),
        until_text,
    )
}

fn episode<W: Write>(out: &mut W, g: &Gantt<'_>, op: usize, e: &NodeEpisode, y: f64) -> std::io::Result<()> {
    let node = e.node.as_str();
    for b in e.bands.iter().filter(|b| b.kind == BandKind::Cordoned) {
        band(out, g, "cordoned", (node, op), (b.from, b.to), (y + 4.0, ROW - 8.0), "cordoned")?;
    }
    let first = e.evicted.iter().map(|m| m.evicted_at).min();
    let last = e.evicted.iter().map(|m| m.evicted_at).max();
    if let (Some(first), Some(last)) = (first, last) {
        let what = format!("draining ({})", kdrift_analyze::count(e.evicted.len(), "pod evicted", "pods evicted"));
        band(out, g, "draining", (node, op), (first, Some(last)), (y + 4.0, ROW - 8.0), &what)?;
    }
    for b in e.bands.iter().filter(|b| b.kind == BandKind::NotReady) {
        band(out, g, "not-ready", (node, op), (b.from, b.to), (y + 9.0, ROW - 18.0), "NotReady")?;
    }
    for m in &e.evicted {
        let x = g.scale.x(m.evicted_at);
        if x < g.scale.x0 || x > g.scale.x1 {
            continue;
        }
        writeln!(
            out,
            r#"<line class="evict" data-operation="{op}" data-pod="{}" x1="{x}" y1="{}" x2="{x}" y2="{}"><title>{} evicted from {} at {} ({})</title></line>"#,
            Esc(&m.key()),
            num(y + 2.0),
            num(y + 12.0),
            Esc(&m.key()),
            Esc(node),
            full(m.evicted_at),
            Esc(&m.evidence.join(", ")),
            x = num(x),
        )?;
    }
    let marks =
        e.reboots.iter().map(|t| (t, "reboot", "rebooted")).chain(
            e.node_controller_deleted_pods.iter().map(|t| (t, "nc-delete", "the node controller deleted its pods")),
        );
    for (t, class, what) in marks {
        let x = g.scale.x(*t);
        if x < g.scale.x0 || x > g.scale.x1 {
            continue;
        }
        writeln!(
            out,
            r#"<circle class="{class}" data-node="{}" cx="{}" cy="{}" r="3.5"><title>{} {what} at {}</title></circle>"#,
            Esc(node),
            num(x),
            num(y + ROW / 2.0),
            Esc(node),
            full(*t)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kdrift_analyze::RequestedAt;
    use kdrift_analyze::{Band, EpisodeEnd, MovedPod, OperationKind};

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
    }

    fn op() -> Operation {
        let empty = RequestedAt { at: t("2026-11-28T02:00:00Z"), nodes: Vec::new(), skew: Vec::new() };
        let episode = NodeEpisode {
            node: "node-<1>".into(),
            started_at: t("2026-11-28T02:00:00Z"),
            ended_at: Some(t("2026-11-28T02:10:00Z")),
            end: EpisodeEnd::Closed,
            cordoned_at: Some(t("2026-11-28T02:00:00Z")),
            uncordoned_at: Some(t("2026-11-28T02:10:00Z")),
            not_ready_at: Some(t("2026-11-28T02:04:00Z")),
            ready_at: None,
            reboots: vec![t("2026-11-28T02:05:00Z")],
            node_controller_deleted_pods: Vec::new(),
            bands: vec![
                Band { kind: BandKind::Cordoned, from: t("2026-11-28T02:00:00Z"), to: Some(t("2026-11-28T02:10:00Z")) },
                Band { kind: BandKind::NotReady, from: t("2026-11-28T02:04:00Z"), to: None },
            ],
            evicted: vec![MovedPod {
                namespace: "web".into(),
                name: "api-\"x\"".into(),
                uid: String::new(),
                from_node: "node-<1>".into(),
                evicted_at: t("2026-11-28T02:01:00Z"),
                evidence: vec!["DisruptionTarget".into()],
                detail: None,
                owner: None,
                replacement: None,
            }],
            signals: Vec::new(),
            estimated: false,
        };
        Operation {
            cordoned_together: Vec::new(),
            number: 2,
            kind: OperationKind::Drain,
            started_at: t("2026-11-28T02:00:00Z"),
            ended_at: Some(t("2026-11-28T02:10:00Z")),
            order: vec!["node-<1>".into()],
            episodes: vec![episode],
            pods_moved: 1,
            landed: Vec::new(),
            not_replaced: 1,
            before: empty.clone(),
            after: empty,
            cpu_skew_after: None,
            cpu_skew_before: None,
            memory_skew_after: None,
        }
    }

    #[test]
    fn an_operation_without_an_end_says_whether_it_is_still_going_on() {
        // The header said "still going on" above an END column "recovered (unseen)".
        let mut o = op();
        o.ended_at = None;
        o.episodes[0].end = EpisodeEnd::RecoveryUnseen;
        let unended = |o: &Operation| crate::render::timeline::unended(o, "10:31:51");
        assert_eq!(unended(&o), "recovered, the time of its recovery not seen (last signal 10:31:51)");
        o.episodes[0].end = EpisodeEnd::Open;
        assert_eq!(unended(&o), "still going on at the last signal (10:31:51)");
    }

    #[test]
    fn bands_ticks_and_labels_land_where_the_times_are() {
        let op = op();
        // 0–24 h: the gutter for "node-<1>" (8 characters: 74 units), then
        // 910 units for 1440 minutes.
        let nodes = vec!["node-<1>".to_string()];
        let scale = Gantt::scale_for(t("2026-11-28T00:00:00Z"), t("2026-11-29T00:00:00Z"), &nodes);
        const LEFT: f64 = 74.0;
        assert_eq!(scale.x0, LEFT);
        let per_minute = (WIDTH - RIGHT - LEFT) / 1440.0;
        let g = Gantt {
            id: "g".into(),
            title: "test".into(),
            scale,
            nodes,
            operations: vec![&op],
            min_band: 0.0,
            min_group: 0.0,
            zoomed: Vec::new(),
            labels: Labels::Full,
        };
        let mut buf = Vec::new();
        gantt(&mut buf, &g).expect("write");
        let svg = String::from_utf8(buf).expect("utf8");
        // Cordoned 02:00 → 02:10: x = LEFT + 120 min, width 10 min.
        let cordon = format!(
            r#"class="band cordoned" data-node="node-&lt;1&gt;" data-operation="2" data-from="2026-11-28T02:00:00+00:00" data-to="2026-11-28T02:10:00+00:00" x="{}" y="{}" width="{}""#,
            num(LEFT + 120.0 * per_minute),
            num(TOP + 4.0),
            num(10.0 * per_minute)
        );
        assert!(svg.contains(&cordon), "{svg}");
        // NotReady from 02:04, still open: runs to the axis end.
        let open = format!(
            r#"class="band not-ready open" data-node="node-&lt;1&gt;" data-operation="2" data-from="2026-11-28T02:04:00+00:00" data-to="open" x="{}" y="{}" width="{}""#,
            num(LEFT + 124.0 * per_minute),
            num(TOP + 9.0),
            num((1440.0 - 124.0) * per_minute)
        );
        assert!(svg.contains(&open), "{svg}");
        // Draining: one eviction, a band of the minimum width (0 here) at 02:01.
        assert!(svg.contains(r#"class="band draining""#));
        // The eviction tick at 02:01, pod name escaped.
        let x = num(LEFT + 121.0 * per_minute);
        assert!(svg.contains(&format!(r#"data-pod="web/api-&quot;x&quot;" x1="{x}""#)), "{svg}");
        assert!(svg.contains(r#"class="reboot""#));
        assert!(svg.contains(">#2 drain · 2026-11-28T02:00:00Z → 02:10:00Z</text>"), "{svg}");
        assert!(!svg.contains("node-<1>"), "names are escaped everywhere");
    }

    #[test]
    fn long_node_names_are_shortened_in_the_middle() {
        let aks = "aks-nodepool1-28869405-vmss000000-with-a-long-suffix";
        let label = row_label(aks);
        assert_eq!(label.chars().count(), NAME_CHARS);
        assert_eq!(label, "aks-nodepool1-28…ith-a-long-suffix");
        assert_eq!(row_label("node-1"), "node-1");
        assert_eq!(gutter(&["node-1".into()]), LEFT_MIN);
        assert_eq!(gutter(&[aks.into()]), 34.0 * 7.0 + 18.0);
    }

    #[test]
    fn an_operation_window_has_a_margin() {
        let op = op();
        let (from, to) = window(&op);
        assert_eq!(from, t("2026-11-28T01:59:00Z"), "one minute at least");
        assert_eq!(to, t("2026-11-28T02:11:00Z"));
    }
}
