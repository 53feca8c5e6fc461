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
pub mod scale_data;

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

/// The node-level events of a `kubectl get events`-style TSV extraction
/// (`../shared/fixtures/real/drains/node-events-*.tsv`: `#` comments, a
/// header `firstTimestamp lastTimestamp count type reason object source
/// message file_ns`) as core/v1 Event records, exactly as the cluster wrote
/// them: `object` is `Kind/name` or `Kind/namespace/name`, `source` is
/// `component` or `component@host`.
pub fn tsv_node_events(path: &std::path::Path) -> Result<Vec<kdrift_ingest::record::Record>, String> {
    use kdrift_ingest::record::{Change, Origin, Record};
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    let mut header_seen = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !header_seen {
            header_seen = true;
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [first, last, count, ty, reason, object, source, message, ns] = cols[..] else {
            return Err(format!("{}:{}: expected 9 tab-separated columns, got {}", path.display(), i + 1, cols.len()));
        };
        let parts: Vec<&str> = object.split('/').collect();
        let (kind, obj_ns, name) = match parts[..] {
            [k, n] => (k, "", n),
            [k, namespace, n] => (k, namespace, n),
            _ => return Err(format!("{}:{}: bad object {object:?}", path.display(), i + 1)),
        };
        let (component, host) = source.split_once('@').unwrap_or((source, ""));
        let count: i64 = count.parse().map_err(|_| format!("{}:{}: bad count {count:?}", path.display(), i + 1))?;
        let object = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": format!("{name}.{}", i + 1), "namespace": ns},
            "involvedObject": {"kind": kind, "name": name, "namespace": obj_ns},
            "reason": reason,
            "message": message,
            "type": ty,
            "count": count,
            "firstTimestamp": first,
            "lastTimestamp": last,
            "source": {"component": component, "host": host},
        });
        out.push(Record {
            object,
            origin: Origin { location: path.display().to_string(), line: Some(i as u64 + 1), item: None },
            observed_at: None,
            change: Change::Listed,
        });
    }
    Ok(out)
}

/// Checks, for every Pod and Node version in `store`, that the model reads
/// the same pod or node from its stored `model` fields as from the whole
/// object (schema v3). Returns how many versions were compared.
///
/// # Panics
/// On the first version that differs (naming it), or when the store cannot be read.
pub fn assert_model_fields_agree(store: &Store) -> usize {
    use kdrift_rebalance::model_fields::{node_model_fields_agree, pod_model_fields_agree};
    // Test-only read of the raw tables (not a product query).
    let mut stmt = store
        .conn()
        .prepare(
            "SELECT o.kind, CAST(o.object AS VARCHAR), COALESCE(p.model, n.model) FROM observations o \
             LEFT JOIN pod_versions p ON p.obs_id = o.obs_id LEFT JOIN node_versions n ON n.obs_id = o.obs_id \
             WHERE o.kind IN ('Pod', 'Node')",
        )
        .expect("prepare");
    let rows: Vec<(String, String, Option<String>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    for (kind, object, model) in &rows {
        let whole: serde_json::Value = serde_json::from_str(object).expect("object JSON");
        let model: serde_json::Value = serde_json::from_str(model.as_deref().expect("a model")).expect("model JSON");
        let same = match kind.as_str() {
            "Pod" => {
                pod_model_fields_agree(&whole)
                    && kdrift_rebalance::PodInfo::from_json(&whole).ok()
                        == kdrift_rebalance::PodInfo::from_json(&model).ok()
            }
            _ => {
                node_model_fields_agree(&whole)
                    && kdrift_rebalance::NodeInfo::from_json(&whole).ok()
                        == kdrift_rebalance::NodeInfo::from_json(&model).ok()
            }
        };
        assert!(same, "{kind} {}: the model fields lose something the model reads", &object[..object.len().min(200)]);
    }
    rows.len()
}
