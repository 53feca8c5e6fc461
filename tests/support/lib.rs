//! Shared helpers of the end-to-end tests: where the real fixtures are
//! (`../shared/fixtures/real`, read in place, never copied), fresh stores
//! in temporary directories, a fake VictoriaLogs ([`fake_vlogs`]) and the
//! shippers that load it ([`shippers`]).

pub mod fake_vlogs;
pub mod shippers;
pub mod vl_pull;

use std::path::PathBuf;

use kdrift_ingest::Store;

pub mod busy_cluster;
pub mod fake_kube;
pub mod recorder;

/// `../shared/fixtures/real` next to the checkout, when present.
pub fn real_fixtures() -> Option<PathBuf> {
    // At run time (cargo test sets it), so that a test binary built from
    // another checkout still reads the fixtures next to this one.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    let dir = PathBuf::from(manifest).join("../../shared/fixtures/real");
    dir.is_dir().then_some(dir)
}

/// The real fixtures directory, or `None` after printing why the calling
/// test skips (a clone without `../shared`). CI always has it.
pub fn real_fixtures_or_skip(test: &str) -> Option<PathBuf> {
    let dir = real_fixtures();
    if dir.is_none() {
        eprintln!(
            "{test}: SKIPPED: ../shared/fixtures/real is absent (a clone outside the workplace); CI always has it"
        );
    }
    dir
}

/// A new, empty store in a temporary directory (kept alive by the returned guard).
pub fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("test.duckdb")).expect("open store");
    (dir, store)
}

/// What VictoriaLogs' `/insert/jsonline` stores for one JSON line, as the
/// reference describes it (victorialogs.md "Ingestion"): nested objects
/// flattened with dots, arrays as JSON strings, numbers and booleans as
/// strings, nulls and empty strings dropped, the first present field of
/// `time_fields` moved to `_time`, `message_field` moved to `_msg`.
pub fn victorialogs_flatten(doc: &serde_json::Value, message_field: &str, time_fields: &[&str]) -> serde_json::Value {
    use serde_json::{Map, Value};
    fn walk(prefix: &str, v: &Value, out: &mut Map<String, Value>) {
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    walk(&key, child, out);
                }
            }
            Value::Null => {}
            Value::String(s) if s.is_empty() => {}
            Value::String(s) => {
                out.insert(prefix.to_string(), Value::String(s.clone()));
            }
            Value::Array(_) => {
                out.insert(prefix.to_string(), Value::String(v.to_string()));
            }
            other => {
                out.insert(prefix.to_string(), Value::String(other.to_string()));
            }
        }
    }
    let mut flat = Map::new();
    walk("", doc, &mut flat);
    let mut out = Map::new();
    if let Some(t) = time_fields.iter().find_map(|f| flat.remove(*f)) {
        out.insert("_time".into(), t);
    }
    match flat.remove(message_field) {
        Some(m) => out.insert("_msg".into(), m),
        None => out.insert(
            "_msg".into(),
            Value::String(
                "missing _msg field; see https://docs.victoriametrics.com/victorialogs/keyconcepts/#message-field"
                    .into(),
            ),
        ),
    };
    out.extend(flat);
    Value::Object(out)
}
