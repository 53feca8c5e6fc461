//! Requested % of allocatable over time as an SVG line chart, one per
//! resource: one step line per node (a value holds until the next sample),
//! the drain operations shaded behind, a legend, and a table of each node's
//! lowest, highest and last value under the chart. When the store has usage
//! samples in the range, each node's measured used % is a second, dotted
//! line of its colour (the mean of each step), and the table adds its
//! highest and last value.

use std::io::Write;

use chrono::{DateTime, Utc};
use kdrift_analyze::Operation;
use kdrift_analyze::{RequestedSeries, UsedSeries};
use kdrift_rebalance::percent_text;

use super::escape::Esc;
use super::gantt::WIDTH;
use super::scale::{axis, num, TimeScale};
use crate::render::timeline::full;

const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 22.0;
const PLOT: f64 = 220.0;
const AXIS: f64 = 34.0;

/// Line colours (Tableau 10), by node index; after ten nodes the colours
/// repeat with a dash pattern.
pub const PALETTE: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#79706e"];

/// The colour and dash pattern of the `i`-th node.
pub fn style(i: usize) -> (&'static str, Option<&'static str>) {
    let dash = match i / PALETTE.len() {
        0 => None,
        1 => Some("6 3"),
        2 => Some("2 2"),
        _ => Some("8 3 2 3"),
    };
    (PALETTE[i % PALETTE.len()], dash)
}

/// The dash pattern of a used % line.
pub const USED_DASH: &str = "2 3";

/// The y range: 0 to 100 %, or up to the next multiple of 25 above the highest value (requested or used).
pub fn y_max(series: &RequestedSeries, used: Option<&UsedSeries>, nodes: &[String], resource: &str) -> f64 {
    let top = nodes.iter().flat_map(|n| series.percent_of(n, resource)).map(|(_, p)| p).fold(100.0, f64::max);
    let used_top = nodes
        .iter()
        .flat_map(|n| used.map(|u| u.percent_of(n, resource)).unwrap_or_default())
        .map(|(_, p)| p)
        .fold(top, f64::max);
    (used_top / 25.0).ceil() * 25.0
}

/// The SVG path of a step line through `points` (sorted by time), holding
/// the last value to `scale.to`: `M x y H x V y …`. Empty without points.
pub fn step_path(points: &[(DateTime<Utc>, f64)], scale: &TimeScale, y_of: impl Fn(f64) -> f64) -> String {
    let mut d = String::new();
    for (i, (t, v)) in points.iter().enumerate() {
        let (x, y) = (num(scale.x_clamped(*t)), num(y_of(*v)));
        if i == 0 {
            d.push_str(&format!("M{x} {y}"));
        } else {
            d.push_str(&format!(" H{x} V{y}"));
        }
    }
    if !points.is_empty() {
        d.push_str(&format!(" H{}", num(scale.x1)));
    }
    d
}

/// Writes the chart of one resource (`cpu`, `memory`) for `nodes`.
pub fn chart<W: Write>(
    out: &mut W,
    series: &RequestedSeries,
    used: Option<&UsedSeries>,
    nodes: &[String],
    operations: &[Operation],
    resource: &str,
) -> std::io::Result<()> {
    let scale = TimeScale::new(series.from, series.to, LEFT, WIDTH - RIGHT);
    let max = y_max(series, used, nodes, resource);
    let y_of = |p: f64| TOP + PLOT - (p.clamp(0.0, max) / max) * PLOT;
    let height = TOP + PLOT + AXIS;
    writeln!(
        out,
        r#"<svg id="requested-{r}" class="chart series" data-resource="{r}" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{r} requested % of allocatable per node">"#,
        r = Esc(resource),
        w = num(WIDTH),
        h = num(height)
    )?;
    writeln!(out, "<title>{} requested % of allocatable per node</title>", Esc(resource))?;
    for op in operations {
        let Some((x, w)) = scale.span(op.started_at, Some(op.last_at()), 2.0) else { continue };
        writeln!(
            out,
            r#"<rect class="op-window" data-operation="{n}" x="{}" y="{}" width="{}" height="{}"><title>#{n} {}</title></rect>"#,
            num(x),
            num(TOP),
            num(w),
            num(PLOT),
            full(op.started_at),
            n = op.number
        )?;
        writeln!(out, r#"<text class="op-label" x="{}" y="{}">#{}</text>"#, num(x), num(TOP - 6.0), op.number)?;
    }
    let mut pct = 0.0;
    while pct <= max {
        let y = num(y_of(pct));
        writeln!(out, r#"<line class="grid" x1="{}" y1="{y}" x2="{}" y2="{y}"/>"#, num(LEFT), num(WIDTH - RIGHT))?;
        writeln!(
            out,
            r#"<text class="y-tick" x="{}" y="{}">{pct:.0} %</text>"#,
            num(LEFT - 6.0),
            num(y_of(pct) + 4.0)
        )?;
        pct += 25.0;
    }
    axis(out, &scale, TOP + PLOT, 10, TOP)?;
    // The y axis' unit, along it (the ticks say `25 %`: of what).
    writeln!(
        out,
        r#"<text class="axis-title y-title" x="{}" y="11" transform="rotate(-90)">{} requested, % of allocatable</text>"#,
        num(-(TOP + PLOT / 2.0)),
        Esc(resource)
    )?;
    for (i, node) in nodes.iter().enumerate() {
        let points = series.percent_of(node, resource);
        if points.is_empty() {
            continue;
        }
        let (colour, dash) = style(i);
        let bound = if series.lower_bound_note.is_some() { "≥ " } else { "" };
        let last = percent_text(points.last().map_or(0.0, |p| p.1));
        writeln!(
            out,
            r#"<path class="line" data-node="{}" data-resource="{}" data-last="{last}" stroke="{colour}"{} d="{}"><title>{} {} requested: {bound}{last} % at the end</title></path>"#,
            Esc(node),
            Esc(resource),
            dash.map(|d| format!(r#" stroke-dasharray="{d}""#)).unwrap_or_default(),
            step_path(&points, &scale, y_of),
            Esc(node),
            Esc(resource),
        )?;
    }
    for (i, node) in nodes.iter().enumerate() {
        let points = used.map(|u| u.percent_of(node, resource)).unwrap_or_default();
        let Some((_, last)) = points.last() else { continue };
        let last = percent_text(*last);
        writeln!(
            out,
            r#"<path class="line used" data-node="{n}" data-resource="{r}" data-last="{last}" stroke="{}" stroke-dasharray="{USED_DASH}" d="{}"><title>{n} {r} used: {last} % in the last step</title></path>"#,
            style(i).0,
            step_path(&points, &scale, y_of),
            n = Esc(node),
            r = Esc(resource),
        )?;
    }
    writeln!(out, "</svg>")
}

/// The legend (colour per node) and a table of lowest / highest / last value.
pub fn legend<W: Write>(
    out: &mut W,
    series: &RequestedSeries,
    used: Option<&UsedSeries>,
    nodes: &[String],
    resource: &str,
) -> std::io::Result<()> {
    writeln!(out, r#"<table class="legend" data-resource="{}">"#, Esc(resource))?;
    let used_head = if used.is_some() { "<th>used: highest step</th><th>used: last step</th>" } else { "" };
    writeln!(out, "<tr><th>node</th><th>lowest</th><th>highest</th><th>at the end</th>{used_head}</tr>")?;
    for (i, node) in nodes.iter().enumerate() {
        // The used columns (empty without usage samples): highest and last step, or "no sample".
        let used_cells = match used.map(|u| u.percent_of(node, resource)) {
            None => String::new(),
            Some(p) if p.is_empty() => r#"<td colspan="2">no sample</td>"#.to_string(),
            Some(p) => format!(
                "<td>{} %</td><td>{} %</td>",
                percent_text(p.iter().map(|x| x.1).fold(f64::MIN, f64::max)),
                percent_text(p.last().map_or(0.0, |x| x.1))
            ),
        };
        let points = series.percent_of(node, resource);
        let (colour, dash) = style(i);
        let swatch = format!(
            r#"<svg class="swatch" width="26" height="10" viewBox="0 0 26 10"><line x1="1" y1="5" x2="25" y2="5" stroke="{colour}"{}/></svg>"#,
            dash.map(|d| format!(r#" stroke-dasharray="{d}""#)).unwrap_or_default()
        );
        let (lo, hi, last) = match points.last() {
            Some((_, last)) => (
                points.iter().map(|p| p.1).fold(f64::MAX, f64::min),
                points.iter().map(|p| p.1).fold(f64::MIN, f64::max),
                *last,
            ),
            None => {
                writeln!(
                    out,
                    r#"<tr><td>{swatch} {}</td><td colspan="3">no {} allocatable</td>{used_cells}</tr>"#,
                    Esc(node),
                    Esc(resource)
                )?;
                continue;
            }
        };
        let b = if series.lower_bound_note.is_some() { "≥ " } else { "" };
        writeln!(
            out,
            r#"<tr data-node="{n}"><td>{swatch} {n}</td><td>{b}{} %</td><td>{b}{} %</td><td>{b}{} %</td>{used_cells}</tr>"#,
            percent_text(lo),
            percent_text(hi),
            percent_text(last),
            n = Esc(node)
        )?;
    }
    writeln!(out, "</table>")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
    }

    #[test]
    fn a_step_line_holds_each_value_until_the_next_sample() {
        // 0–24 h over 0..1440: one unit per minute; y = 100 − percent.
        let scale = TimeScale::new(t("2026-11-28T00:00:00Z"), t("2026-11-29T00:00:00Z"), 0.0, 1440.0);
        let points = [(t("2026-11-28T00:00:00Z"), 50.0), (t("2026-11-28T02:03:00Z"), 97.1)];
        assert_eq!(step_path(&points, &scale, |p| 100.0 - p), "M0 50 H123 V2.9 H1440");
        assert_eq!(step_path(&[], &scale, |p| p), "");
    }

    #[test]
    fn colours_repeat_with_dashes_after_ten_nodes() {
        assert_eq!(style(0), ("#4e79a7", None));
        assert_eq!(style(10), ("#4e79a7", Some("6 3")));
        assert_ne!(style(1).0, style(0).0);
    }
}
