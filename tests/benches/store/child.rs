//! One measured case, run in a fresh child process (`store child CASE …`)
//! so that its peak RSS (VmHWM) is its own. Prints one JSON line.

use std::path::{Path, PathBuf};
use std::time::Instant;

use chrono::{DateTime, Utc};
use kdrift_analyze::{drain_timeline, why_pending};
use kdrift_analyze::{policy_from_thresholds, skew};
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_ingest::{Auth, PullOptions};
use kdrift_store::sql;
use kdrift_store::Store;
use kdrift_tests::vl_pull::pull_blocking;
use serde_json::{json, Value};

/// Peak resident set of this process, KiB (`VmHWM` of /proc/self/status).
pub fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn time_of(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).map_err(|e| format!("{s}: {e}"))
}

/// Runs `args` = `CASE ARG…`; prints the result line.
pub fn run(args: &[String]) -> Result<(), String> {
    let arg = |i: usize| args.get(i).cloned().ok_or_else(|| format!("child {args:?}: missing argument {i}"));
    let result = match arg(0)?.as_str() {
        "ingest-kdrift" => ingest_kdrift(Path::new(&arg(1)?), Path::new(&arg(2)?))?,
        "ingest-duckdb" => ingest_duckdb(Path::new(&arg(1)?), Path::new(&arg(2)?))?,
        "pull" => pull(&arg(1)?, time_of(&arg(2)?)?, time_of(&arg(3)?)?, Path::new(&arg(4)?))?,
        "queries" => queries(Path::new(&arg(1)?), &arg(2)?, &arg(3)?, time_of(&arg(4)?)?)?,
        "keep-moves" => keep_moves(Path::new(&arg(1)?))?,
        "breakdown" => breakdown(Path::new(&arg(1)?), &arg(2)?, &arg(3)?, &arg(4)?, &arg(5)?)?,
        "explain" => explain(Path::new(&arg(1)?), &arg(2)?, &args[3..])?,
        "exec" => exec(Path::new(&arg(1)?), Path::new(&arg(2)?))?,
        "usage-pull" => crate::usage::pull(&arg(1)?, time_of(&arg(2)?)?, time_of(&arg(3)?)?, Path::new(&arg(4)?))?,
        "usage-readings" => crate::usage::readings(Path::new(&arg(1)?), time_of(&arg(2)?)?)?,
        other => return Err(format!("unknown child case {other}")),
    };
    println!("{result}");
    Ok(())
}

fn ingest_kdrift(ndjson: &Path, dir: &Path) -> Result<Value, String> {
    let store = Store::open(&dir.join("store.duckdb")).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let report = ingest_files(&store, &[PathBuf::from(ndjson)], &mut NoProgress).map_err(|e| e.to_string())?;
    // Closing checkpoints what the WAL still holds: part of the work.
    drop(store);
    let secs = t.elapsed().as_secs_f64();
    Ok(
        json!({ "secs": secs, "rows": report.counts.records, "errors": report.error_count(), "vm_hwm_kib": vm_hwm_kib() }),
    )
}

fn ingest_duckdb(ndjson: &Path, dir: &Path) -> Result<Value, String> {
    let conn =
        kdrift_store::test_support::RawConnection::open(dir.join("baseline.duckdb")).map_err(|e| e.to_string())?;
    let path = ndjson.display().to_string();
    let t = Instant::now();
    conn.execute(sql::BENCH_READ_JSON_BASELINE.sql, [&path]).map_err(|e| format!("read_json baseline: {e}"))?;
    let rows: i64 =
        conn.query_row(sql::BENCH_BASELINE_COUNT.sql, [], |r| r.get(0)).map_err(|e| format!("baseline count: {e}"))?;
    drop(conn); // closed as kdrift's store is (a checkpoint of what the WAL holds)
    let secs = t.elapsed().as_secs_f64();
    Ok(json!({ "secs": secs, "rows": rows, "errors": 0, "vm_hwm_kib": vm_hwm_kib() }))
}

fn pull(url: &str, start: DateTime<Utc>, end: DateTime<Utc>, dir: &Path) -> Result<Value, String> {
    let store = Store::open(&dir.join("store.duckdb")).map_err(|e| e.to_string())?;
    let options = PullOptions { start: Some(start), end: Some(end), ..PullOptions::default() };
    let t = Instant::now();
    let report = pull_blocking(&store, url, Auth::default(), &options).map_err(|e| format!("pull: {e:?}"))?;
    drop(store); // closing checkpoints what the WAL still holds
    let secs = t.elapsed().as_secs_f64();
    let windows = report.windows.len();
    Ok(json!({ "secs": secs, "rows": report.rows(), "windows": windows, "errors": 0, "vm_hwm_kib": vm_hwm_kib() }))
}

/// Median, min and max of `runs` timed calls after one warm-up, in ms.
pub fn timed<T>(runs: usize, mut f: impl FnMut() -> Result<T, String>) -> Result<(Value, T), String> {
    let t = Instant::now();
    let mut last = f()?;
    // On stderr, so a slow case shows before its runs end.
    eprintln!("  (warm-up run: {:.1} ms)", t.elapsed().as_secs_f64() * 1000.0);
    let runs = runs.max(1);
    let mut ms = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        last = f()?;
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    Ok((json!({ "median_ms": ms[ms.len() / 2], "min_ms": ms[0], "max_ms": ms[ms.len() - 1], "runs": runs }), last))
}

fn queries(store: &Path, ns: &str, name: &str, at: DateTime<Utc>) -> Result<Value, String> {
    let t = Instant::now();
    let store = Store::open_existing(store).map_err(|e| e.to_string())?;
    let open_ms = t.elapsed().as_secs_f64() * 1000.0;
    // KDRIFT_BENCH_RUNS: fewer runs for a quick look (the figures use the defaults).
    let runs = |default: usize| std::env::var("KDRIFT_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    // KDRIFT_BENCH_ONLY=why_pending,timeline,skew: some of them (for a profile of one).
    let only = std::env::var("KDRIFT_BENCH_ONLY").ok();
    let wanted = |case: &str| only.as_deref().is_none_or(|o| o.split(',').any(|c| c.trim() == case));
    let mut out = json!({ "open_ms": open_ms });
    if wanted("why_pending") {
        let (why, found) = timed(runs(20), || why_pending(&store, ns, name).map_err(|e| e.to_string()))?;
        out["why_pending"] = why;
        out["why_pending_found"] = json!(found.is_some());
    }
    if wanted("timeline") {
        let (timeline, ops) = timed(runs(5), || drain_timeline(&store, None, None).map_err(|e| e.to_string()))?;
        out["timeline"] = timeline;
        out["operations"] = json!(ops.operations.len());
    }
    if wanted("skew") {
        let threshold = |v: f64| [("cpu".to_string(), v), ("memory".to_string(), v)].into_iter().collect();
        let policy = policy_from_thresholds(threshold(20.0), threshold(50.0)).map_err(|e| e.to_string())?;
        let (skew_at, report) = timed(runs(20), || skew(&store, Some(at), &policy).map_err(|e| e.to_string()))?;
        out["skew"] = skew_at;
        out["skew_nodes"] = json!(report.nodes.len());
    }
    out["vm_hwm_kib"] = json!(vm_hwm_kib());
    Ok(out)
}

/// The drain timeline's moves (schema v9): the timeline with the moves
/// computed from the history (the kept rows emptied first), the time
/// `kdrift ingest` then spends keeping them, and the timeline reading them.
/// Leaves the store with its moves kept. Opens the store for writing.
fn keep_moves(store: &Path) -> Result<Value, String> {
    let store = Store::open(store).map_err(|e| e.to_string())?;
    let runs = std::env::var("KDRIFT_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    store.batch(&sql::CLEAR_DRAIN_MOVES).map_err(|e| e.to_string())?;
    let (from_history, computed) = timed(runs, || drain_timeline(&store, None, None).map_err(|e| e.to_string()))?;
    let t = Instant::now();
    let kept = kdrift_tests::keep_moves(&store).map_err(|e| e.to_string())?;
    let keep_ms = t.elapsed().as_secs_f64() * 1000.0;
    let (from_kept, read) = timed(runs, || drain_timeline(&store, None, None).map_err(|e| e.to_string()))?;
    if read != computed {
        return Err("the timeline read from the kept moves differs from the one computed from the history".into());
    }
    Ok(json!({
        "timeline_from_history": from_history,
        "keep_moves_ms": keep_ms,
        "moves": kept.moves,
        "operations": kept.operations,
        "timeline_from_kept": from_kept,
        "vm_hwm_kib": vm_hwm_kib(),
    }))
}

/// The named queries behind the three analyses, each timed on its own
/// (median of 3 after a warm-up, through the `kdrift query` catalog, so the
/// rows are converted too): where the time goes.
fn breakdown(store: &Path, ns: &str, name: &str, at: &str, end: &str) -> Result<Value, String> {
    let store = Store::open_existing(store).map_err(|e| e.to_string())?;
    let p = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
    let pod = [("namespace", ns), ("name", name)];
    let range = [("since_us", "0"), ("until_us", end)];
    // 20 instants over the history (what a drain timeline of 10 operations asks: before and after each).
    // `at` and `end` as the catalog takes them: microseconds or RFC 3339.
    let micros = |s: &str| s.parse::<i64>().or_else(|_| time_of(s).map(|t| t.timestamp_micros()));
    let (at_us, end_us) = (micros(at)?, micros(end)?);
    let first_us = at_us - (end_us - at_us);
    let instants = (0..20).map(|i| (first_us + (end_us - first_us) / 20 * i).to_string()).collect::<Vec<_>>().join(",");
    // The hour boundary before `at`: a checkpoint when anything changed in the hour up to it (schema v8).
    let hour_us = (at_us.div_euclid(3_600_000_000) * 3_600_000_000).to_string();
    let cases: Vec<(&str, Vec<(String, String)>)> = vec![
        ("pod_failures", p(&pod)),
        ("pod_scheduled", p(&[("namespace", ns), ("name", name), ("since_us", "0")])),
        ("nodes_at", p(&[("at_us", at)])),
        ("pods_at", p(&[("at_us", at)])),
        // What why-pending reads instead (schema v10): the filter fields, then the models it needs.
        ("pod_filter_fields_at", p(&[("at_us", at)])),
        ("requested_by_node", p(&[("instants", &at_us.to_string())])),
        ("pods_summary_at", p(&[("instants", &at_us.to_string())])),
        ("requested_by_node", p(&[("instants", &instants)])),
        ("pods_summary_at", p(&[("instants", &instants)])),
        ("nodes_at_instants", p(&[("instants", &instants)])),
        ("requested_checkpoint_times", Vec::new()),
        ("requested_since_checkpoint", p(&[("checkpoint_us", &hour_us), ("at_us", at)])),
        ("requested_extras_at", p(&[("at_us", at)])),
        ("event_only_placements", p(&[("at_us", at)])),
        ("pods_gone", p(&[("at_us", at)])),
        ("scheduled_coverage", Vec::new()),
        ("owner_samples", p(&[("at_us", at)])),
        ("node_signals", p(&range)),
        ("pod_evictions", p(&range)),
        ("pod_placements", p(&range)),
    ];
    let mut out = serde_json::Map::new();
    for (query, params) in cases {
        let (timing, rows) = timed(3, || {
            kdrift_store::run_query(&store, query, &params).map(|r| r.rows.len()).map_err(|e| e.to_string())
        })?;
        let key = match params.iter().find(|(k, _)| k == "instants") {
            Some((_, v)) => format!("{query} ({} instants)", v.split(',').count()),
            None => query.to_string(),
        };
        out.insert(key, json!({ "median_ms": timing["median_ms"], "rows": rows }));
    }
    Ok(Value::Object(out))
}

/// `EXPLAIN ANALYZE` of one named query with its parameters (numbers bound
/// as BIGINT, anything else as text): DuckDB's per-operator timings, for
/// profiling a query on the bench store.
fn explain(store: &Path, query: &str, params: &[String]) -> Result<Value, String> {
    let store = Store::open_existing(store).map_err(|e| e.to_string())?;
    // `@file.sql`: a variant of a query being tried out (not product SQL).
    let text = match query.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?,
        None => sql::ALL.iter().find(|q| q.name == query).ok_or_else(|| format!("no query {query}"))?.sql.to_string(),
    };
    use kdrift_store::test_support::RawValue;
    let values: Vec<RawValue> =
        params.iter().map(|p| p.parse::<i64>().map_or_else(|_| RawValue::Text(p.clone()), RawValue::BigInt)).collect();
    let mut stmt = store.conn().prepare(&format!("EXPLAIN ANALYZE {text}")).map_err(|e| e.to_string())?;
    let rows: Vec<String> = stmt
        .query_map(kdrift_store::test_support::values(&values), |r| r.get::<_, String>(1))
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    for r in &rows {
        eprintln!("{r}");
    }
    Ok(json!({ "query": query }))
}

/// Runs the statements of a SQL file on the store opened read-write (no
/// schema check or migration): for trying out a derived table on a copy of
/// the bench store (not product SQL). Prints the elapsed time.
fn exec(store: &Path, file: &Path) -> Result<Value, String> {
    let conn = kdrift_store::test_support::RawConnection::open(store).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let t = Instant::now();
    conn.execute_batch(&text).map_err(|e| e.to_string())?;
    Ok(json!({ "exec_ms": t.elapsed().as_secs_f64() * 1e3 }))
}
