//! Tables for `kdrift query`.

use std::io::Write;

use kdrift_ingest::store::catalog::{QueryInfo, QueryResult};
use serde_json::{Map, Value};
use tabled::builder::Builder;
use tabled::settings::Style;

/// The query list: name, parameters, purpose.
pub fn list<W: Write>(out: &mut W, queries: &[QueryInfo]) -> anyhow::Result<()> {
    let mut b = Builder::default();
    b.push_record(["NAME", "PARAMETERS", "FILE", "PURPOSE"]);
    for q in queries {
        let params = q.params.iter().map(|p| format!("{} ({})", p.name, p.expects())).collect::<Vec<_>>().join(", ");
        let purpose: String = q.purpose.chars().take(100).collect();
        b.push_record([q.name.to_string(), params, format!("queries/{}", q.file), purpose]);
    }
    writeln!(out, "{}", b.build().with(Style::blank()))?;
    Ok(())
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::String(s) => s.chars().take(120).collect(),
        other => other.to_string(),
    }
}

/// A result as a table (long values cut at 120 characters; use -o json for all).
pub fn table<W: Write>(out: &mut W, r: &QueryResult) -> anyhow::Result<()> {
    let mut b = Builder::default();
    b.push_record(r.columns.iter().map(|c| c.to_uppercase()));
    for row in &r.rows {
        b.push_record(row.iter().map(cell));
    }
    writeln!(out, "{}", b.build().with(Style::blank()))?;
    writeln!(out, "{} rows", r.rows.len())?;
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
