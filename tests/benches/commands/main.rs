//! Command benchmarks of issue 39 item 5 (`cargo bench -p kdrift --bench
//! commands`; BENCHMARKS.md "Running them"): the `kdrift` binary as a user
//! runs it, each command its own process, wall time (process start to
//! exit) and peak RSS (`VmHWM` read from `/proc/PID/status` while it runs),
//! against issue 39's targets, and DuckDB's own `read_json` on the same
//! input in a fresh child process (this binary re-executed) for the ratio.
//!
//! Cases (arguments after `--` select some; none: all):
//!
//! - `events`: `kdrift ingest file` of NDJSON of kubectl-shaped core/v1
//!   Events (one per line, `kubectl get events -o json`'s item shape, every
//!   Event version of the scale generator's history: distinct lines)
//!   against `read_json` of the same file: seconds, events/s, peak RSS,
//!   ratio (targets ≥ 1.0×, ≤ 256 MiB);
//! - `lists`: a `kubectl get pods -A -o json` List of the bench cluster
//!   ([`kdrift_scenario::bench_cluster`], 30 pods a node) and the same List
//!   as YAML (`-o yaml`): `kdrift ingest file` wall and peak RSS (target ≤
//!   256 MiB), and `read_json` of the JSON List for the ratio;
//! - `vlogs-real`: the real VictoriaLogs binary (`../shared/tools`, on
//!   127.0.0.1) loaded with the first rows of the VictoriaLogs export of the
//!   events data set, `kdrift ingest victorialogs` pulling them into a new
//!   store, against `read_json` of the same rows from a local file (target
//!   ≥ 0.8×);
//! - `record`: `kdrift record -A` against the fake API server
//!   (`kdrift_tests::fake_kube`) holding the bench cluster's nodes and
//!   pods, while the bench changes pods at a fixed rate: peak RSS (target
//!   ≤ 256 MiB) and lag (how far the committed store is behind the stream);
//! - `html`: `kdrift report --html` on the events data set's ready store
//!   (the store bench's `queries` store; `--bench store` and this one share
//!   `$KDRIFT_BENCH_DATA`): wall and peak RSS (targets ≤ 5 s, ≤ 256 MiB).
//!
//! Sizes (environment; the defaults are the issue's):
//! `KDRIFT_BENCH_EVENTS` (1,000,000: the events data set, as the store
//! bench's), `KDRIFT_BENCH_EVENT_NODES` (its cluster, 5,000 nodes; fewer
//! for a quick check: the generator's time is the cluster's),
//! `KDRIFT_BENCH_LIST_NODES` (5,000 nodes = 150,000 pods),
//! `KDRIFT_BENCH_PULL_ROWS` (300,000 rows loaded into VictoriaLogs),
//! `KDRIFT_BENCH_RECORD_NODES` (5,000), `KDRIFT_BENCH_RECORD_RATE`
//! (1,000 changes/s), `KDRIFT_BENCH_RECORD_SECS` (60 s of stream). A quick
//! check in the dev profile: `KDRIFT_BENCH_EVENTS=20000
//! KDRIFT_BENCH_EVENT_NODES=200 KDRIFT_BENCH_LIST_NODES=100 KDRIFT_BENCH_PULL_ROWS=5000
//! KDRIFT_BENCH_RECORD_NODES=100 KDRIFT_BENCH_RECORD_SECS=5 cargo bench
//! --profile dev -p kdrift --bench commands`.
//!
//! Inputs are generated once under `$KDRIFT_BENCH_DATA` (default
//! `$HOME/.cache/kdrift/bench-data`): `1m/` (or `events-N/`) as the store
//! bench makes it plus `kubectl-events.ndjson`, and `lists-N/`.

#[path = "../process.rs"]
mod process;

mod inputs;
mod record;

// The store bench's data sets (the same directories, the same generator).
#[allow(dead_code)]
#[path = "../store/data.rs"]
mod data;

use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

pub use process::{run, vm_hwm_kib, Run, KDRIFT};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let result = match args.first().map(String::as_str) {
        Some("child") => child(&args[1..]),
        _ => bench(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("commands bench: {e}");
            ExitCode::from(2)
        }
    }
}

/// A number from the environment (underscores allowed), or `default`.
pub fn env_number(name: &str, default: u64) -> Result<u64, String> {
    match std::env::var(name) {
        Ok(v) => v.replace('_', "").parse().map_err(|_| format!("{name}={v:?} is not a number")),
        Err(_) => Ok(default),
    }
}

/// `met` or `MISSED`.
pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "MISSED"
    }
}

const CASES: [&str; 5] = ["events", "lists", "vlogs-real", "record", "html"];

fn bench(filter: &[String]) -> Result<(), String> {
    if let Some(unknown) = filter.iter().find(|f| !CASES.contains(&f.as_str())) {
        return Err(format!("unknown case {unknown}; the cases are {}", CASES.join(", ")));
    }
    let wants = |case: &str| filter.is_empty() || filter.iter().any(|f| f == case);
    std::fs::create_dir_all(data::root()).map_err(|e| format!("{}: {e}", data::root().display()))?;
    println!("machine: {} cores; kdrift {KDRIFT}", std::thread::available_parallelism().map_or(1, |n| n.get()));
    if wants("lists") {
        bench_lists()?;
    }
    if wants("record") {
        record::bench_record()?;
    }
    if ["events", "vlogs-real", "html"].iter().any(|c| wants(c)) {
        let (set, config) = inputs::events_set()?;
        if wants("events") {
            bench_events(&set, &config)?;
        }
        if wants("vlogs-real") {
            bench_vlogs_real(&set)?;
        }
        if wants("html") {
            bench_html(&set)?;
        }
    }
    Ok(())
}

fn scratch() -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new().prefix("kdrift-bench-").tempdir_in(data::root()).map_err(|e| e.to_string())
}

/// `p` as text (the data root is a UTF-8 path).
pub fn path(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

fn size(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

/// `kdrift --db DB ingest file FILE` into a new store: its run, and the
/// records the store then holds (`kdrift` prints its report as JSON).
fn ingest_file(file: &Path, dir: &Path) -> Result<(Run, Value), String> {
    let db = dir.join("store.duckdb");
    let out = dir.join("ingest.json");
    let r = run(&["--db", path(&db), "-o", "json", "ingest", "file", path(file)], &out)?;
    let report = std::fs::read_to_string(&out).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(Value::Null);
    Ok((r, report))
}

/// The number at `pointer` of the JSON `v`, or NaN.
fn num(v: &Value, pointer: &str) -> f64 {
    v.pointer(pointer).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// DuckDB's `read_json` of `file` into a table of a new database under
/// `dir`, in a fresh child process (`kind`: `ndjson` or `list`).
fn read_json(kind: &str, file: &Path, dir: &Path) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .args(["child", "read-json", kind, path(file), path(dir)])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("read_json of {} failed ({}; its stderr is above)", file.display(), out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap_or("")).map_err(|e| format!("read_json child: {e}: {text}"))
}

/// `child read-json KIND FILE DIR`: the baseline in this process; prints
/// one JSON line with `secs`, `rows`, `vm_hwm_kib`.
fn child(args: &[String]) -> Result<(), String> {
    let [case, kind, file, dir] = args else { return Err(format!("child {args:?}: expected read-json KIND FILE DIR")) };
    if case != "read-json" {
        return Err(format!("unknown child case {case}"));
    }
    let query = match kind.as_str() {
        "ndjson" => kdrift_store::sql::BENCH_READ_JSON_BASELINE,
        "list" => kdrift_store::sql::BENCH_READ_JSON_LIST_BASELINE,
        other => return Err(format!("read-json: unknown kind {other}")),
    };
    let conn = kdrift_store::test_support::RawConnection::open(Path::new(dir).join("baseline.duckdb"))
        .map_err(|e| e.to_string())?;
    let t = Instant::now();
    conn.execute(query.sql, [file]).map_err(|e| format!("read_json baseline: {e}"))?;
    let rows: i64 = conn
        .query_row(kdrift_store::sql::BENCH_BASELINE_COUNT.sql, [], |r| r.get(0))
        .map_err(|e| format!("baseline count: {e}"))?;
    drop(conn); // closed as kdrift's store is (a checkpoint of what the WAL holds)
    let secs = t.elapsed().as_secs_f64();
    let hwm = std::fs::read_to_string("/proc/self/status").ok().as_deref().and_then(vm_hwm_kib).unwrap_or(0);
    println!("{}", json!({ "secs": secs, "rows": rows, "vm_hwm_kib": hwm }));
    Ok(())
}

fn print_baseline(b: &Value) {
    println!(
        "{:<28} {:>8.2} s {:>10.0} rows/s  peak RSS {:>7.1} MiB  rows {}",
        "duckdb read_json",
        num(b, "/secs"),
        num(b, "/rows") / num(b, "/secs"),
        num(b, "/vm_hwm_kib") / 1024.0,
        b["rows"]
    );
}

fn bench_events(set: &data::DataSet, config: &kdrift_scenario::ScaleConfig) -> Result<(), String> {
    let file = inputs::kubectl_events(set, config)?;
    println!(
        "\n== events: {} kubectl-shaped core/v1 Events, NDJSON ({:.0} MiB), fresh process each ==",
        set.facts.events,
        size(&file) as f64 / 1048576.0
    );
    let dir = scratch()?;
    let (r, report) = ingest_file(&file, dir.path())?;
    let records = num(&report, "/counts/records");
    println!(
        "{:<28} {:>8.2} s {:>10.0} events/s  peak RSS {:>7.1} MiB  records {records}  status {}",
        "kdrift ingest file",
        r.secs,
        set.facts.events as f64 / r.secs,
        r.mib(),
        report["status"]
    );
    drop(dir);
    let dir = scratch()?;
    let b = read_json("ndjson", &file, dir.path())?;
    print_baseline(&b);
    let ratio = num(&b, "/secs") / r.secs;
    println!("ratio kdrift/read_json (events/s): {ratio:.2}x  (target >= 1.0x: {})", verdict(ratio >= 1.0));
    println!("kdrift peak RSS: {:.1} MiB (target <= 256 MiB: {})", r.mib(), verdict(r.mib() <= 256.0));
    Ok(())
}

fn bench_lists() -> Result<(), String> {
    let nodes = env_number("KDRIFT_BENCH_LIST_NODES", 5000)? as usize;
    let lists = inputs::pod_lists(nodes)?;
    let pods = nodes * kdrift_scenario::PODS_PER_NODE;
    println!(
        "\n== lists: `kubectl get pods -A` of {pods} pods: JSON ({:.0} MiB), YAML ({:.0} MiB), fresh process each ==",
        size(&lists.json) as f64 / 1048576.0,
        size(&lists.yaml) as f64 / 1048576.0
    );
    let mut runs = Vec::new();
    for (label, file) in [("kdrift ingest file (JSON)", &lists.json), ("kdrift ingest file (YAML)", &lists.yaml)] {
        let dir = scratch()?;
        let (r, report) = ingest_file(file, dir.path())?;
        println!(
            "{label:<28} {:>8.2} s {:>10.0} pods/s  peak RSS {:>7.1} MiB  records {}  (target <= 256 MiB: {})",
            r.secs,
            pods as f64 / r.secs,
            r.mib(),
            num(&report, "/counts/records"),
            verdict(r.mib() <= 256.0)
        );
        runs.push(r);
    }
    let dir = scratch()?;
    let b = read_json("list", &lists.json, dir.path())?;
    print_baseline(&b);
    let base = num(&b, "/secs");
    println!(
        "ratio kdrift/read_json of the JSON List: JSON {:.2}x, YAML {:.2}x",
        base / runs[0].secs,
        base / runs[1].secs
    );
    Ok(())
}

fn bench_vlogs_real(set: &data::DataSet) -> Result<(), String> {
    let limit = env_number("KDRIFT_BENCH_PULL_ROWS", 300_000)? as usize;
    let Some(vl) = kdrift_tests::real_vlogs::RealVlogs::start_or_skip("commands bench vlogs-real") else {
        return Ok(());
    };
    let dir = scratch()?;
    let rows = dir.path().join("rows.ndjson");
    data::copy_first_lines(&set.ndjson(), limit, &rows)?;
    let t = Instant::now();
    let (n, start, end) = inputs::load_vlogs(&vl, &rows)?;
    println!(
        "\n== VictoriaLogs pull: {n} rows from the real VictoriaLogs on 127.0.0.1 (loaded in {:.1} s), \
         fresh process each ==",
        t.elapsed().as_secs_f64()
    );
    let db = dir.path().join("store.duckdb");
    let out = dir.path().join("pull.json");
    let (s, e) = (start.to_rfc3339(), end.to_rfc3339());
    let args =
        ["--db", path(&db), "-o", "json", "ingest", "victorialogs", "--url", &vl.url(), "--start", &s, "--end", &e];
    let r = run(&args, &out)?;
    let report = std::fs::read_to_string(&out).ok().and_then(|t| serde_json::from_str::<Value>(&t).ok());
    let rate = n as f64 / r.secs;
    println!(
        "{:<28} {:>8.2} s {:>10.0} events/s  peak RSS {:>7.1} MiB",
        "kdrift ingest victorialogs",
        r.secs,
        rate,
        r.mib()
    );
    if let Some(report) = report {
        let windows = report["windows"].as_array().cloned().unwrap_or_default();
        let sum = |k: &str| windows.iter().map(|w| w[k].as_u64().unwrap_or(0)).sum::<u64>();
        println!(
            "  {} windows: {} rows pulled, {} added, {} duplicates; warnings {}",
            windows.len(),
            sum("rows"),
            sum("added"),
            sum("duplicates"),
            report["warnings"].as_array().map_or(0, Vec::len)
        );
    }
    let base = scratch()?;
    let b = read_json("ndjson", &rows, base.path())?;
    print_baseline(&b);
    let ratio = num(&b, "/secs") / r.secs;
    println!("ratio pull/read_json (events/s): {ratio:.2}x  (target >= 0.8x: {})", verdict(ratio >= 0.8));
    Ok(())
}

fn bench_html(set: &data::DataSet) -> Result<(), String> {
    let store = set.store();
    println!(
        "\n== report --html on the {}-event store ({:.0} MiB), fresh process ==",
        set.facts.events,
        size(&store) as f64 / 1048576.0
    );
    let dir = scratch()?;
    let html = dir.path().join("report.html");
    let r = run(&["--db", path(&store), "report", "--html", path(&html)], &dir.path().join("out"))?;
    println!(
        "{:<28} {:>8.2} s  peak RSS {:>7.1} MiB  output {:.1} MB  (targets <= 5 s: {}; <= 256 MiB: {})",
        "kdrift report --html",
        r.secs,
        r.mib(),
        size(&html) as f64 / 1e6,
        verdict(r.secs <= 5.0),
        verdict(r.mib() <= 256.0)
    );
    Ok(())
}
