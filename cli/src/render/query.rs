//! Tables for `kdrift query`.

use std::io::Write;

use kdrift_store::{QueryInfo, QueryResult};
use serde_json::{Map, Value};
use tabled::builder::Builder;

/// The query list: name, parameters, purpose.
pub fn list<W: Write>(out: &mut W, queries: &[QueryInfo]) -> anyhow::Result<()> {
    let mut b = Builder::default();
    b.push_record(["NAME", "PARAMETERS", "FILE", "PURPOSE"]);
    for q in queries {
        let params = q.params.iter().map(|p| format!("{} ({})", p.name, p.expects())).collect::<Vec<_>>().join(", ");
        b.push_record([q.name.to_string(), params, format!("queries/{}", q.file), purpose(&q.purpose)]);
    }
    writeln!(out, "{}", super::plain(&mut b.build()))?;
    Ok(())
}

/// Characters of a purpose shown by `--list` (`-o json` has it whole), at
/// most: a narrower `--max-cell-width` narrows it, 0 shows it whole.
const PURPOSE_WIDTH: usize = 100;

/// A query's purpose as `--list` shows it: cut between words at
/// [`PURPOSE_WIDTH`] or the `--max-cell-width`, whichever is narrower.
fn purpose(text: &str) -> String {
    match super::max_cell_width() {
        0 => text.to_string(),
        width => shorten(text, width.min(PURPOSE_WIDTH)),
    }
}

/// `text` cut to at most `max` characters at a word boundary, with `…` when
/// cut (a word longer than `max` is cut inside).
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max || max == 0 {
        return text.to_string();
    }
    // Room for the ellipsis.
    let head: String = text.chars().take(max - 1).collect();
    let next_is_space = text.chars().nth(max - 1).is_some_and(char::is_whitespace);
    let cut = if next_is_space { head.as_str() } else { head.rsplit_once(' ').map_or(head.as_str(), |(kept, _)| kept) };
    let cut = cut.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '(' | '—' | '-'));
    format!("{cut}…")
}

/// One value as its table cell, whole: [`super::plain`] cuts it at the
/// `--max-cell-width` with `…` like every table's cell (`-o json` keeps it whole).
fn cell(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        // A TIMESTAMP column: to the second, as every time printed.
        Value::String(s) => super::chrono_time(s).map_or_else(|| s.clone(), super::time),
        // A JSON column's object or array: compact.
        other => other.to_string(),
    }
}

/// A result as a table (a cell longer than `--max-cell-width`, 1,024
/// characters by default, is cut with `…`; `…_us` columns as RFC 3339
/// times: [`instant_columns`]; `-o json` has every value whole).
pub fn table<W: Write>(out: &mut W, r: &QueryResult) -> anyhow::Result<()> {
    let instants = instant_columns(&r.columns);
    let mut b = Builder::default();
    b.push_record(r.columns.iter().enumerate().map(|(i, c)| {
        let name = if instants[i] { c.strip_suffix("_us").unwrap_or(c) } else { c };
        name.to_uppercase()
    }));
    for row in &r.rows {
        b.push_record(row.iter().enumerate().map(|(i, v)| match v.as_i64().filter(|_| instants[i]) {
            Some(us) => instant(us).unwrap_or_else(|| cell(v)),
            None => cell(v),
        }));
    }
    writeln!(out, "{}", super::plain(&mut b.build()))?;
    writeln!(out, "{}", kdrift_analyze::count(r.rows.len(), "row", "rows"))?;
    Ok(())
}

/// Which columns a table shows as RFC 3339 times: those named `…_us` (UTC
/// microseconds, the store's convention), headed by the name without `_us`
/// (`at_us` → `AT`) unless another column has that name (`window_end`
/// beside `window_end_us`: the time is shown already, the number stays).
/// `-o json` keeps the numbers and names.
fn instant_columns(columns: &[String]) -> Vec<bool> {
    columns
        .iter()
        .map(|c| c.strip_suffix("_us").is_some_and(|base| !base.is_empty() && !columns.iter().any(|o| o == base)))
        .collect()
}

/// UTC microseconds as RFC 3339 to the second (`2026-11-28T05:10:00Z`,
/// [`super::time`]); `None` out of chrono's range.
fn instant(us: i64) -> Option<String> {
    chrono::DateTime::from_timestamp_micros(us).map(super::time)
}

/// A result as an array of objects keyed by column name.
pub fn as_objects(r: &QueryResult) -> Value {
    Value::Array(
        r.rows
            .iter()
            .map(|row| {
                let mut m = Map::new();
                for (c, v) in r.columns.iter().zip(row) {
                    m.insert(c.clone(), v.clone());
                }
                Value::Object(m)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::{instant_columns, shorten, table};

    #[test]
    fn microsecond_columns_are_times_in_tables_and_numbers_in_json() {
        let r = kdrift_store::QueryResult {
            columns: vec!["at_us".into(), "node".into(), "window_end".into(), "window_end_us".into()],
            rows: vec![
                vec![
                    serde_json::json!(1_795_842_600_000_000i64),
                    serde_json::json!("node-1"),
                    serde_json::json!("2026-11-28T05:10:00Z"),
                    serde_json::json!(1_795_842_600_500_000i64),
                ],
                vec![
                    serde_json::json!(1_795_842_600_900_000i64),
                    serde_json::json!("node-2"),
                    serde_json::json!("2026-11-28T05:10:00.026126Z"),
                    serde_json::json!(1_795_842_600_500_000i64),
                ],
            ],
        };
        assert_eq!(instant_columns(&r.columns), [true, false, false, false]);
        let mut out = Vec::new();
        table(&mut out, &r).expect("table");
        let text = String::from_utf8(out).expect("utf-8");
        let words: Vec<Vec<&str>> = text.lines().map(|l| l.split_whitespace().collect()).collect();
        assert_eq!(words[0], ["AT", "NODE", "WINDOW_END", "WINDOW_END_US"]);
        assert_eq!(words[1], ["2026-11-28T05:10:00Z", "node-1", "2026-11-28T05:10:00Z", "1795842600500000"]);
        assert_eq!(words[2], ["2026-11-28T05:10:00Z", "node-2", "2026-11-28T05:10:00Z", "1795842600500000"]);
        assert_eq!(super::as_objects(&r)[0]["at_us"], 1_795_842_600_000_000i64);
    }

    #[test]
    fn purposes_are_cut_between_words_with_an_ellipsis() {
        assert_eq!(shorten("short enough", 20), "short enough");
        assert_eq!(shorten("Every ingest run, newest first: where it read from", 20), "Every ingest run…");
        assert_eq!(shorten("Every ingest run, newest first", 18), "Every ingest run…");
        assert_eq!(shorten("Every ingest run, newest first", 17), "Every ingest…");
        assert_eq!(shorten("abcdefghijklmnopqrstuvwxyz", 10), "abcdefghi…");
        let cut = shorten(&"word ".repeat(40), 100);
        assert!(cut.chars().count() <= 100 && cut.ends_with("word…"), "{cut}");
    }
}
