//! Shared helpers of the end-to-end tests: where the real fixtures are
//! (`../shared/fixtures/real`, read in place, never copied), fresh stores
//! in temporary directories, a fake VictoriaLogs ([`fake_vlogs`]) and the
//! shippers that load it ([`shippers`]).

pub mod after_the_fact;
pub mod fake_vlogs;
pub mod leaks;
pub mod real_vlogs;
pub mod shippers;
pub mod vl_pull;

use std::path::PathBuf;

use kdrift_store::Store;

pub mod busy_cluster;
pub mod cluster_info_dump;
pub mod fake_kube;
pub mod filter_load;
pub mod hostile_kube;
pub mod hot_node;
pub mod list_calls;
pub mod recorder;
pub mod scale_data;
pub mod tied_versions;
pub mod usage_spike;

/// `../shared/fixtures/real` next to the checkout (or the directory
/// `KDRIFT_REAL_FIXTURES` names, for a checkout elsewhere), when present.
pub fn real_fixtures() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KDRIFT_REAL_FIXTURES") {
        let dir = PathBuf::from(dir);
        return dir.is_dir().then_some(dir);
    }
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
pub fn tsv_node_events(path: &std::path::Path) -> Result<Vec<kdrift_store::Record>, String> {
    use kdrift_store::{Change, Origin, Record};
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
/// object (schema v3), and that [`kdrift_rebalance::PodInfo::from_json_text`]
/// reads each stored pod model as the model reads it (on its typed path for
/// every readable one). Returns how many versions were compared.
///
/// # Panics
/// On the first version that differs (naming it), or when the store cannot be read.
pub fn assert_model_fields_agree(store: &Store) -> usize {
    use kdrift_rebalance::{node_model_fields_agree, pod_model_fields_agree};
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
    let (mut pods, mut typed) = (0usize, 0usize);
    let (mut nodes, mut typed_nodes) = (0usize, 0usize);
    for (kind, object, model_text) in &rows {
        let whole: serde_json::Value = serde_json::from_str(object).expect("object JSON");
        let model: serde_json::Value =
            serde_json::from_str(model_text.as_deref().expect("a model")).expect("model JSON");
        if kind == "Pod" && kdrift_rebalance::PodInfo::from_json(&model).is_ok() {
            pods += 1;
        }
        let same = match kind.as_str() {
            "Pod" => {
                let text = model_text.as_deref().expect("a model");
                let from_value = kdrift_rebalance::PodInfo::from_json(&model).map_err(|e| e.to_string());
                if from_value.is_ok() && kdrift_rebalance::pod_json_reads_typed(text) {
                    typed += 1;
                }
                pod_model_fields_agree(&whole)
                    && kdrift_rebalance::PodInfo::from_json(&whole).ok() == from_value.clone().ok()
                    // The typed reader of stored models (`ClusterAt::load`) reads the same.
                    && kdrift_rebalance::PodInfo::from_json_text(text).map_err(|e| e.to_string()) == from_value
            }
            _ => {
                let text = model_text.as_deref().expect("a model");
                let from_value = kdrift_rebalance::NodeInfo::from_json(&model).map_err(|e| e.to_string());
                if from_value.is_ok() {
                    nodes += 1;
                    if kdrift_rebalance::node_json_reads_typed(text) {
                        typed_nodes += 1;
                    }
                }
                node_model_fields_agree(&whole)
                    && kdrift_rebalance::NodeInfo::from_json(&whole).ok() == from_value.clone().ok()
                    // The typed reader of stored models (`ClusterAt::load_nodes`) reads the same.
                    && kdrift_rebalance::NodeInfo::from_json_text(text).map_err(|e| e.to_string()) == from_value
            }
        };
        assert!(same, "{kind} {}: the model fields lose something the model reads", &object[..object.len().min(200)]);
    }
    // Every readable pod model takes the typed path (the speed of loading a
    // cluster depends on it; a fallback would be silent otherwise).
    assert_eq!(typed, pods, "readable pod models read by the typed path");
    assert_eq!(typed_nodes, nodes, "readable node models read by the typed path");
    rows.len()
}

/// About `samples` instants spread over the store's pod and node version
/// times, plus the first and last, each of them 1 µs earlier, an hour,
/// three hours and two days before the history and an hour after it: where
/// the state at an instant changes, and around it.
///
/// # Panics
/// When the store has no pod or node version, or cannot be read.
pub fn sample_instants(store: &Store, samples: usize) -> Vec<chrono::DateTime<chrono::Utc>> {
    use chrono::{DateTime, Duration, Utc};
    // Test-only read of the raw tables (not a product query).
    let mut stmt = store
        .conn()
        .prepare(
            "SELECT DISTINCT observed_at FROM (SELECT observed_at FROM pod_versions UNION ALL \
             SELECT observed_at FROM node_versions) ORDER BY observed_at",
        )
        .expect("prepare");
    let times: Vec<DateTime<Utc>> =
        stmt.query_map([], |r| r.get(0)).expect("query").collect::<Result<_, _>>().expect("rows");
    assert!(!times.is_empty(), "the store has no pod or node version");
    let step = times.len().div_ceil(samples.max(1)).max(1);
    let mut instants: Vec<DateTime<Utc>> = times.iter().step_by(step).copied().collect();
    instants.extend([times[0], times[times.len() - 1]]);
    let edges: Vec<DateTime<Utc>> = instants.iter().map(|t| *t - Duration::microseconds(1)).collect();
    instants.extend(edges);
    instants.push(times[0] - Duration::hours(1));
    // Further before: pods created then but first observed over an hour
    // later are found by `first_seen_late` (schema v14), not the hour after.
    instants.extend([times[0] - Duration::hours(3), times[0] - Duration::days(2)]);
    instants.push(times[times.len() - 1] + Duration::hours(1));
    instants
}

pub use filter_load::assert_filter_load_agrees;

/// Asserts that the per-node requested amounts read from the store's
/// aggregates (`kdrift_analyze::amounts_at`, schema v4) are
/// those of the state loaded pod by pod (`ClusterAt::load`, summed as
/// `NodePods::usage`), at the store's first and last instants, just before
/// both, an hour after the last, 1 and 3 hours and 2 days before the first, and at up to `samples` pod or node version times (each, and 1 µs
/// before it: the edges of the version intervals). Returns how many instants
/// were compared.
///
/// # Panics
/// On the first instant where they differ (naming it and the difference),
/// or when the store cannot be read.
pub fn assert_amounts_agree(store: &Store, samples: usize) -> usize {
    use kdrift_analyze::ClusterAt;
    use kdrift_analyze::{amounts_at, AmountsAt};
    let instants = sample_instants(store, samples);
    let from_aggregates = amounts_at(store, &instants).expect("amounts_at");
    assert_eq!(from_aggregates.len(), instants.len());
    assert_pod_amounts_reads_agree(store, &instants);
    for (at, fast) in instants.iter().zip(&from_aggregates) {
        let slow = AmountsAt::from(&ClusterAt::load(store, *at).expect("ClusterAt::load"));
        let names = |a: &AmountsAt| a.nodes.iter().map(|n| n.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(fast), names(&slow), "nodes at {at}");
        assert_eq!(fast.nodes, slow.nodes, "node objects at {at}");
        assert_eq!(fast.usage, slow.usage, "requested amounts per node at {at}");
        assert_eq!(fast.estimated_nodes, slow.estimated_nodes, "estimated nodes at {at}");
        assert_eq!(fast.estimated_pods, slow.estimated_pods, "estimated pods at {at}");
        assert_eq!(fast.event_only_pods, slow.event_only_pods, "event-only pods at {at}");
        assert_eq!(fast.requests_unknown, slow.requests_unknown, "pods without requests at {at}");
        assert_eq!(fast.unreadable, slow.unreadable, "unreadable objects at {at}");
    }
    instants.len()
}

/// Asserts that the pods' amounts read in one query for every instant
/// (`PodAmountsRead::OneQuery`: `requested_at_instants`,
/// `requested_extras_at_instants`) are those of the two queries per instant
/// (`PodAmountsRead::PerInstant`), instant by instant, in the order given.
///
/// # Panics
/// On the first instant where they differ, or when the store cannot be read.
pub fn assert_pod_amounts_reads_agree(store: &Store, instants: &[chrono::DateTime<chrono::Utc>]) {
    use kdrift_analyze::{amounts_at_by, PodAmountsRead};
    let each = amounts_at_by(store, instants, PodAmountsRead::PerInstant).expect("per instant");
    let one = amounts_at_by(store, instants, PodAmountsRead::OneQuery).expect("one query");
    assert_eq!((each.len(), one.len()), (instants.len(), instants.len()));
    for ((at, a), b) in instants.iter().zip(&each).zip(&one) {
        assert_eq!(a.at, b.at);
        assert_eq!(a.usage, b.usage, "requested amounts per node at {at}");
        assert_eq!(a.estimated_pods, b.estimated_pods, "estimated pods at {at}");
        assert_eq!(a.unreadable, b.unreadable, "unreadable objects at {at}");
        assert_eq!(a.estimated_nodes, b.estimated_nodes, "estimated nodes at {at}");
        assert_eq!(a.event_only_pods, b.event_only_pods, "event-only pods at {at}");
    }
}

/// Keeps the drain moves of the store's history as `kdrift` does after
/// every ingest: matched by the analyses
/// (`kdrift_analyze::moves_to_keep`, which only read), written by
/// the store (`Store::keep_drain_moves`); nothing when the kept ones are
/// fresh.
///
/// # Errors
/// The analysis or the write failed.
pub fn keep_moves(store: &Store) -> Result<kdrift_store::KeptMoves, kdrift_analyze::AnalyzeError> {
    Ok(match kdrift_analyze::moves_to_keep(store)? {
        Some(moves) => store.keep_drain_moves(&moves)?,
        None => kdrift_store::KeptMoves { computed: false, operations: 0, moves: 0 },
    })
}

/// Checks that the drain timeline read from the kept moves
/// ([`keep_moves`], schema v9) is the one computed from the history:
/// for the whole store, for windows around each operation (one operation,
/// from the second on, up to the first's end), and for
/// `drain_moves_and_placements` at the middle of each operation. Keeps the
/// moves first when they are not fresh. Returns the moves kept.
///
/// # Panics
/// On the first difference (naming the window), or when the store cannot
/// be read or written.
pub fn assert_kept_moves_agree(store: &Store) -> usize {
    use chrono::{DateTime, Duration, Utc};
    use kdrift_analyze::{drain_moves_and_placements, drain_timeline, moves_are_fresh, read_kept_moves};
    // Test-only: drop the kept rows so that the first reads compute (a fresh store may already have them).
    store.conn().execute_batch("DELETE FROM drain_moves; DELETE FROM drain_moves_kept;").expect("clear kept moves");
    assert!(!moves_are_fresh(store).expect("fresh?"), "nothing kept yet");
    let whole = drain_timeline(store, None, None).expect("timeline from the history");
    /// `--since`, `--until`.
    type Window = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);
    let mut windows: Vec<Window> = vec![(None, None)];
    let mut middles = Vec::new();
    for (i, op) in whole.operations.iter().enumerate() {
        let last = op.last_at();
        windows.push((Some(op.started_at), Some(last)));
        windows.push((Some(op.started_at + Duration::seconds(1)), None));
        if i == 0 {
            windows.push((None, Some(last)));
        }
        middles.push(op.started_at + (last - op.started_at) / 2);
    }
    let computed: Vec<_> =
        windows.iter().map(|(s, u)| drain_timeline(store, *s, *u).expect("timeline from the history")).collect();
    let computed_placed: Vec<_> =
        middles.iter().map(|t| drain_moves_and_placements(store, *t).expect("moves and placements")).collect();
    let kept = keep_moves(store).expect("keep the moves");
    assert!(kept.computed, "stale moves are computed");
    assert_eq!(kept.operations, whole.operations.len());
    assert_eq!(kept.moves, whole.operations.iter().map(|o| o.pods_moved).sum::<usize>(), "one row per moved pod");
    assert!(moves_are_fresh(store).expect("fresh?"), "kept moves are fresh");
    // The timeline reads every kept row column by column (a refused row
    // would send it back to the history, silently).
    assert_eq!(read_kept_moves(store).expect("kept rows read column by column"), kept.moves);
    assert!(!keep_moves(store).expect("keep again").computed, "fresh moves are not computed again");
    for ((s, u), expected) in windows.iter().zip(&computed) {
        let got = drain_timeline(store, *s, *u).expect("timeline from the kept moves");
        assert_eq!(got, *expected, "timeline --since {s:?} --until {u:?}");
    }
    for (t, expected) in middles.iter().zip(&computed_placed) {
        let got = drain_moves_and_placements(store, *t).expect("moves and placements");
        assert_eq!(got.0, expected.0, "drain_moves_and_placements({t}): moves");
        assert_eq!(got.1, expected.1, "drain_moves_and_placements({t}): placements");
    }
    kept.moves
}
