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
        Value::String(s) => s.clone(),
        // A JSON column's object or array: compact.
        other => other.to_string(),
    }
}

/// A result as a table (a cell longer than `--max-cell-width`, 1,024
/// characters by default, is cut with `…`; `-o json` has every value whole).
pub fn table<W: Write>(out: &mut W, r: &QueryResult) -> anyhow::Result<()> {
    let mut b = Builder::default();
    b.push_record(r.columns.iter().map(|c| c.to_uppercase()));
    for row in &r.rows {
        b.push_record(row.iter().map(cell));
    }
    writeln!(out, "{}", super::plain(&mut b.build()))?;
    writeln!(out, "{}", kdrift_analyze::count(r.rows.len(), "row", "rows"))?;
    Ok(())
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
    use super::shorten;

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
