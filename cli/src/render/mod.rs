//! Rendering of findings to any `Write`: tables (tabled) for people, JSON for
//! machines. Nothing here computes a finding.

pub mod api;
pub mod fit;
pub mod hot;
pub mod ingest;
pub mod ingest_dirs;
pub mod ingest_prometheus;
pub mod json_stream;
pub mod pending;
pub mod postmortem;
pub mod query;
pub mod rebalance;
pub mod rebalance_exec;
pub mod report;
pub mod sessions;
pub mod skew;
pub mod timeline;
pub mod visible_out;

pub use visible_out::stdout;

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use tabled::settings::object::Segment;
use tabled::settings::{Style, Width};
use tabled::Table;

/// The widest a table cell is printed by default, in characters (per line
/// of the cell): a longer value is cut and ends with `…`; `-o json` keeps
/// every value whole; `--max-cell-width N` sets another width (0: no cut). Kubernetes messages stay well within it (the API server
/// caps an event's message near 1 KiB); a 200 MB message stored from a
/// file made `why-pending --all` pad every row to its width and print
/// 1 GB (kdrift issue 34).
pub const MAX_CELL_WIDTH: usize = 1024;

/// The cell width tables are cut at, characters (0: none): the global
/// `--max-cell-width`, set once before a command renders.
static CELL_WIDTH: AtomicUsize = AtomicUsize::new(MAX_CELL_WIDTH);

/// Sets the width [`plain`] cuts cells at, characters (0: no cut).
pub fn set_max_cell_width(width: usize) {
    CELL_WIDTH.store(width, Ordering::Relaxed);
}

/// The cell width tables are cut at, characters (0: not cut): what
/// [`plain`] applies, for a renderer that shortens a text itself.
pub fn max_cell_width() -> usize {
    CELL_WIDTH.load(Ordering::Relaxed)
}

/// With `--no-headers` a table output keeps only its rows on stdout, as
/// kubectl: its titles, footers and summary lines are left out
/// ([`headers`]) and its notes (what a reader must not miss) go to stderr
/// through this; otherwise `line` goes to `out`.
pub fn note_line<W: Write>(out: &mut W, line: &str) -> std::io::Result<()> {
    if crate::format::no_headers() {
        writeln!(std::io::stderr(), "{line}")
    } else {
        writeln!(out, "{line}")
    }
}

/// Whether a table output writes its titles, footers and summary lines
/// (not with `--no-headers`: only the rows, as kubectl; [`note_line`]).
pub fn headers() -> bool {
    !crate::format::no_headers()
}

/// Every kdrift table's look: no borders, every cell cut at the
/// `--max-cell-width` ([`MAX_CELL_WIDTH`] by default; 0 or `-o wide`: not
/// cut), without the header row with `--no-headers`, then the whole table
/// to the terminal's width ([`fit`]; not with `-o wide`), widest columns first.
pub fn plain(table: &mut Table) -> &mut Table {
    // Every kdrift table's first row is its header: kubectl's --no-headers leaves it out.
    if crate::format::no_headers() && table.count_rows() > 0 {
        table.with(tabled::settings::Remove::row(tabled::settings::object::Rows::first()));
    }
    table.with(Style::blank());
    table.modify(Segment::all(), tabled::settings::Format::content(|s| visible(s).into_owned()));
    if let width @ 1.. = CELL_WIDTH.load(Ordering::Relaxed) {
        table.modify(Segment::all(), Width::truncate(width).suffix("…"));
    }
    fit_to(table, fit::table_width())
}

/// `text` with its control characters written visibly (`\n`, `\r`, `\t`,
/// `\e`, else `\xNN`; [`kdrift_rebalance::visible`]): a name or message
/// holding them (no Kubernetes name does, and ingest refuses such names; an
/// older store, a log line or an argument may) forged table rows with a
/// newline, or reached the terminal as an escape sequence (break-it 38 F8).
/// Every table cell goes through it ([`plain`]), and every name or message
/// a plain-text line or an error message prints.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    kdrift_rebalance::visible(text)
}

/// `1 night`, `2 nights`, `0 nights`: a count of simulated nights as said.
pub fn nights(n: impl Into<u64>) -> String {
    match n.into() {
        1 => "1 night".to_string(),
        n => format!("{n} nights"),
    }
}

/// Cuts `table` to `width` characters a line (0: not cut): the widest
/// column (a message, a reason) first, only as far as needed and never
/// below [`fit::MIN_COLUMN`], then the next widest ([`fit::cuts`]); each
/// cut cell ends with `…`. Names and times stay whole where they can.
fn fit_to(table: &mut Table, width: usize) -> &mut Table {
    if width == 0 {
        return table;
    }
    let columns = table.count_columns();
    let mut widths = vec![0usize; columns];
    for row in table.get_records().iter() {
        for (i, cell) in row.iter().enumerate().take(columns) {
            let w = cell.as_ref().lines().map(tabled::grid::util::string::get_line_width).max().unwrap_or(0);
            widths[i] = widths[i].max(w);
        }
    }
    // As printed (tabled's total_width counts the cells before the cut above).
    let printed = table.to_string().lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let excess = printed.saturating_sub(width);
    for (i, to) in fit::cuts(&widths, excess) {
        table.modify(tabled::settings::object::Columns::one(i), Width::truncate(to).suffix("…"));
    }
    table
}

/// Every time kdrift prints — table cells, lines, notes, messages and the
/// `-o json`/`-o yaml` documents ([`json`]): RFC 3339 in UTC to the whole
/// second, sub-seconds cut (`2026-11-28T05:30:00Z`,
/// [`kdrift_store::instant_text`]). Never raw microseconds, never another
/// layout. One exception keeps what is stored: a `try --at …` hint, which
/// must name a stored instant exactly (`kdrift query`'s `…_us` columns are
/// numbers in JSON, exact).
pub fn time(t: chrono::DateTime<chrono::Utc>) -> String {
    kdrift_store::instant_text(t)
}

/// A time of day where the date is said next to it (a drain's rows):
/// `05:30:00Z` ([`kdrift_store::time_of_day_text`]).
pub fn time_of_day(t: chrono::DateTime<chrono::Utc>) -> String {
    kdrift_store::time_of_day_text(t)
}

/// `t` as its time of day when on `near`'s date (said next to it), else
/// in full: `05:30:00Z`, `2026-11-29T00:10:00Z`.
pub fn time_near(t: chrono::DateTime<chrono::Utc>, near: chrono::DateTime<chrono::Utc>) -> String {
    if t.date_naive() == near.date_naive() {
        time_of_day(t)
    } else {
        time(t)
    }
}

/// Writes `value` as pretty JSON followed by a newline (as YAML with
/// `-o yaml`), every time in it to the whole second as [`time`] prints it.
/// JSON is written as it is serialised, through a buffer
/// ([`json_stream::write_pretty`]), never as a second copy of the document.
pub fn json<W: Write, T: serde::Serialize>(out: &mut W, value: &T) -> anyhow::Result<()> {
    if crate::format::yaml() {
        let mut doc = serde_json::to_value(value)?;
        whole_seconds(&mut doc);
        let text = serde_yaml::to_string(&doc)?;
        // As io::Error, so that a closed pipe (`| head`) is recognised as one.
        out.write_all(text.as_bytes())?;
        return Ok(());
    }
    // As io::Error, so that a closed pipe (`| head`) is recognised as one.
    json_stream::write_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Every string of `doc` that is a time as chrono writes one
/// (`2026-11-28T05:30:00.315Z`, a `DateTime<Utc>` field) cut to the whole
/// second, as [`time`] prints it.
fn whole_seconds(doc: &mut serde_json::Value) {
    use serde_json::Value;
    match doc {
        Value::String(s) => {
            if let Some(t) = chrono_time(s) {
                *s = time(t);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_seconds),
        Value::Object(fields) => fields.values_mut().for_each(whole_seconds),
        _ => {}
    }
}

/// `s` when it is a UTC time with sub-seconds in chrono's layout
/// (`YYYY-MM-DDTHH:MM:SS.fffZ`), else `None` (whole seconds, other text).
pub(crate) fn chrono_time(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    let b = s.as_bytes();
    let shaped = b.len() > 21
        && b[4] == b'-'
        && b[10] == b'T'
        && b[19] == b'.'
        && b[b.len() - 1] == b'Z'
        && b[20..b.len() - 1].iter().all(u8::is_ascii_digit);
    shaped.then(|| chrono::DateTime::parse_from_rfc3339(s).ok()).flatten().map(|t| t.to_utc())
}

/// One resource's skew: `97.1 points (node-1 99.6 % − node-5 2.5 %)`, every
/// number with one decimal, the points the difference of the percents shown
/// (so the line adds up; `-o json` has the exact values). Offered by fewer
/// than two nodes: `needs at least two nodes with allocatable cpu (only a
/// offers it)`.
pub fn skew_points(s: &kdrift_analyze::ResourceSkew) -> String {
    use kdrift_rebalance::{percent_text, points_text};
    if s.nodes < 2 {
        // A node against itself (`0.0 points (a − a)`) measures nothing.
        return format!("needs at least two nodes with allocatable {} (only {} offers it)", s.resource, s.max_node);
    }
    format!(
        "{} points ({} {} % − {} {} %)",
        points_text(s.max_percent, s.min_percent),
        s.max_node,
        percent_text(s.max_percent),
        s.min_node,
        percent_text(s.min_percent)
    )
}

/// How long a pod of `why-pending --all` was pending: `1h 30m`, or `at
/// least 10m 6s` when the store never saw it scheduled or deleted (the
/// single-pod report's "pending for at least" wording).
pub fn pending_duration(p: &kdrift_analyze::PendingPod) -> String {
    if p.pending_is_lower_bound {
        format!("at least {}", duration(p.pending_seconds))
    } else {
        duration(p.pending_seconds)
    }
}

/// `2h 5m`, `90m`, `42s`: a compact human duration.
pub fn duration(seconds: i64) -> String {
    let s = seconds.max(0);
    let (d, h, m, sec) = (s / 86_400, (s % 86_400) / 3600, (s % 3600) / 60, s % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{sec}s"),
        (0, 0, _) if sec == 0 => format!("{m}m"),
        (0, 0, _) => format!("{m}m {sec}s"),
        (0, _, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}

#[cfg(test)]
mod tests {
    use super::{duration, plain, skew_points, visible, MAX_CELL_WIDTH};

    #[test]
    fn control_characters_in_a_cell_are_written_visibly_and_forge_no_row() {
        // Break-it 38 F8: pod names from Events, printed raw.
        assert_eq!(visible("nl\n:4\nINJECTED"), "nl\\n:4\\nINJECTED");
        assert_eq!(visible("esc\u{1b}[31mred\tx\r\u{7}\u{85}"), "esc\\e[31mred\\tx\\r\\x07\\x85");
        assert!(matches!(visible("media/backup-0"), std::borrow::Cow::Borrowed("media/backup-0")));
        let mut b = tabled::builder::Builder::default();
        b.push_record(["POD", "REASON"]);
        b.push_record(["nl\n:4\nINJECTED", "esc\u{1b}]0;title\u{7}"]);
        let text = plain(&mut b.build()).to_string();
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(text.lines().nth(1).expect("the row").contains(r"nl\n:4\nINJECTED   esc\e]0;title\x07"), "{text}");
    }

    #[test]
    fn a_cell_wider_than_the_cap_is_cut_with_an_ellipsis_and_pads_no_row_beyond_it() {
        let huge = "m".repeat(5 * MAX_CELL_WIDTH);
        let mut b = tabled::builder::Builder::default();
        b.push_record(["POD", "MESSAGE"]);
        b.push_record(["a", huge.as_str()]);
        b.push_record(["b", "short"]);
        let text = plain(&mut b.build()).to_string();
        let widths: Vec<usize> = text.lines().map(|l| l.chars().count()).collect();
        assert!(widths.iter().all(|w| *w < MAX_CELL_WIDTH + 20), "{widths:?}");
        let cut = text.lines().nth(1).expect("row a");
        assert!(cut.trim_end().ends_with('…'), "{}", &cut[cut.len().saturating_sub(20)..]);
        assert_eq!(cut.matches('m').count(), MAX_CELL_WIDTH - 1, "the cell keeps the cap less the ellipsis");
        assert!(text.lines().nth(2).expect("row b").contains("short"));
    }

    #[test]
    fn a_table_wider_than_the_terminal_cuts_its_widest_column() {
        let mut b = tabled::builder::Builder::default();
        b.push_record(["POD", "REASONS"]);
        b.push_record(["media/backup-1", "1 Insufficient cpu, 4 node(s) didn't match pod affinity rules"]);
        let mut table = b.build();
        table.with(tabled::settings::Style::blank());
        let text = super::fit_to(&mut table, 50).to_string();
        assert_eq!(
            text.lines().map(str::trim_end).collect::<Vec<_>>(),
            [" POD              REASONS", " media/backup-1   1 Insufficient cpu, 4 node(s) …"]
        );
        assert!(text.lines().all(|l| l.chars().count() <= 50), "{text}");
    }

    #[test]
    fn json_times_are_cut_to_the_whole_second_and_other_text_is_left() {
        let mut doc = serde_json::json!({
            "created_at": "2026-12-07T01:19:39.161893828Z",
            "at": ["2026-11-28T05:30:01.020Z", "2026-11-28T05:30:00Z"],
            "message": "2026-11-28T05:30:01.020Z is after",
            "label": "2026-11-28T05:30:01.x20Z",
        });
        super::whole_seconds(&mut doc);
        assert_eq!(
            doc,
            serde_json::json!({
                "created_at": "2026-12-07T01:19:39Z",
                "at": ["2026-11-28T05:30:01Z", "2026-11-28T05:30:00Z"],
                "message": "2026-11-28T05:30:01.020Z is after",
                "label": "2026-11-28T05:30:01.x20Z",
            })
        );
    }

    #[test]
    fn durations() {
        assert_eq!(duration(42), "42s");
        assert_eq!(duration(5400), "1h 30m");
        assert_eq!(duration(90 * 60 + 5), "1h 30m");
        assert_eq!(duration(600), "10m");
        assert_eq!(duration(61), "1m 1s");
        assert_eq!(duration(200_000), "2d 7h");
        assert_eq!(duration(-5), "0s");
    }

    #[test]
    fn skew_parts_add_up_to_the_points() {
        let s = kdrift_analyze::ResourceSkew {
            resource: "cpu".into(),
            max_node: "node-1".into(),
            max_percent: 99.64,
            min_node: "node-5".into(),
            min_percent: 2.46,
            skew: 99.64 - 2.46,
            nodes: 5,
        };
        // 97.18 exactly, but 99.6 − 2.5 is what the reader checks.
        assert_eq!(skew_points(&s), "97.1 points (node-1 99.6 % − node-5 2.5 %)");
    }
}
