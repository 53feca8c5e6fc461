//! Store benchmarks of issue 6 (`cargo bench --bench store`; BENCHMARKS.md):
//!
//! - ingest of the 1M-event VictoriaLogs NDJSON export by `kdrift ingest
//!   file` (its library function), side by side with DuckDB's own
//!   `read_json` loading the same file (queries/bench/), each in a fresh
//!   child process: seconds, events/s, peak RSS (VmHWM), the ratio;
//! - a VictoriaLogs pull from the fake server on loopback (child process),
//!   then `read_json` loading the same rows from a local file: the ceiling
//!   of any pull that stores them, and the ratio to it;
//! - `why-pending`, `timeline drains` and `skew --at` on the largest store
//!   (10M events when generated, else 1M): median of warm runs;
//! - measured usage (issue 37, [`usage`]): a Prometheus pull of 30 days ×
//!   5,000 nodes of 30 s samples against `read_json`, and the readings at
//!   an instant on that store.
//!
//! The commands a user runs on issue 39's inputs (kubectl Events and pod
//! Lists, the real VictoriaLogs, the recorder, `report --html`) are the
//! `kdrift` package's `commands` bench, which shares these data sets.
//!
//! Data sets are generated on first use under `$KDRIFT_BENCH_DATA`
//! (default `$HOME/.cache/kdrift/bench-data`). Arguments after `--`:
//! `[ingest|pull|usage|queries]…` to run only those; `gen --events N [--nodes N]
//! [--pods N] [--days N] [--seed N] [--failures N] --out DIR [--no-ndjson] [--no-kubectl]
//! [--no-store]` to generate a data set. `KDRIFT_BENCH_10M=0` skips the
//! 10M store; `KDRIFT_BENCH_PULL_ROWS` sets the pull size (default 300000);
//! `KDRIFT_BENCH_EVENTS=N` replaces the 1M data set by one of N events (a
//! quick check that everything runs, e.g. in the dev profile);
//! `KDRIFT_BENCH_RUNS=N` times N runs of each analysis instead of 20/5/20
//! (each case's warm-up time is printed on stderr as it ends).

mod child;
mod data;
mod usage;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use kdrift_scenario::ScaleConfig;
use kdrift_tests::fake_vlogs::FakeVlogs;
use serde_json::Value;

/// The allocator of the `kdrift` binary (cli/src/main.rs), so that the
/// figures are those of the command.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use data::DataSet;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    // `KDRIFT_BENCH_LOG=kdrift_analyze=debug`: the analyses' step timings on stderr.
    if let Ok(filter) = std::env::var("KDRIFT_BENCH_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .init();
    }
    let result = match args.first().map(String::as_str) {
        Some("child") => child::run(&args[1..]),
        Some("gen") => gen(&args[1..]),
        _ => run_all(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("store bench: {e}");
            ExitCode::from(2)
        }
    }
}

fn gen(args: &[String]) -> Result<(), String> {
    let mut config = ScaleConfig::issue6(1_000_000);
    let (mut out, mut ndjson, mut kubectl, mut store) = (None, true, true, true);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut num = || -> Result<u64, String> {
            it.next().and_then(|v| v.replace('_', "").parse().ok()).ok_or_else(|| format!("{a} needs a number"))
        };
        match a.as_str() {
            "--events" => config.events = num()?,
            "--nodes" => config.nodes = num()? as u32,
            "--pods" => config.pods = num()? as u32,
            "--days" => config.days = num()? as u32,
            "--seed" => config.seed = num()?,
            "--failures" => config.failures = Some(num()? as u32),
            "--out" => out = it.next().map(PathBuf::from),
            "--no-ndjson" => ndjson = false,
            "--no-kubectl" => kubectl = false,
            "--no-store" => store = false,
            other => return Err(format!("gen: unknown argument {other}")),
        }
    }
    let out = out.ok_or("gen: --out DIR is required")?;
    let set = data::generate(&out, &config, ndjson, kubectl, store)?;
    println!("{}", serde_json::to_string_pretty(&set.facts).map_err(|e| e.to_string())?);
    Ok(())
}

/// The data set of `events` events, generated when missing.
fn data_set(name: &str, events: u64, ndjson: bool, kubectl: bool) -> Result<DataSet, String> {
    let dir = data::root().join(name);
    let config = ScaleConfig::issue6(events);
    match data::existing(&dir, &config) {
        Some(set) => Ok(set),
        None => data::generate(&dir, &config, ndjson, kubectl, true),
    }
}

/// Runs `store child ARGS…` and parses its result line.
fn child(args: &[&str]) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // Its stderr is the terminal's: the child's error, and its log lines
    // under `KDRIFT_BENCH_LOG`, show as they come.
    let out = Command::new(exe)
        .arg("child")
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("child {args:?} failed ({}; its stderr is above)", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap_or("")).map_err(|e| format!("child {args:?}: {e}: {text}"))
}

fn scratch() -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new().prefix("kdrift-bench-").tempdir_in(data::root()).map_err(|e| e.to_string())
}

fn f(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

fn mib(v: &Value) -> f64 {
    f(v, "vm_hwm_kib") / 1024.0
}

fn run_all(filter: &[String]) -> Result<(), String> {
    let wants = |case: &str| filter.is_empty() || filter.iter().any(|f| f == case);
    std::fs::create_dir_all(data::root()).map_err(|e| e.to_string())?;
    println!("machine: {} cores, {}", num_cpus(), cpu_model());
    if wants("usage") {
        usage::bench_usage()?;
    }
    if !["ingest", "pull", "queries"].iter().any(|c| wants(c)) {
        return Ok(());
    }
    // KDRIFT_BENCH_EVENTS: a smaller first data set, for a quick check that the benches run.
    let small = match std::env::var("KDRIFT_BENCH_EVENTS").ok().and_then(|v| v.replace('_', "").parse().ok()) {
        Some(n) => data_set(&format!("events-{n}"), n, true, true)?,
        None => data_set("1m", 1_000_000, true, true)?,
    };
    if wants("ingest") {
        bench_ingest(&small)?;
    }
    if wants("pull") {
        bench_pull(&small)?;
    }
    if wants("queries") {
        let large = match std::env::var("KDRIFT_BENCH_10M").as_deref() {
            Ok("0") => None,
            _ => Some(data_set("10m", 10_000_000, false, false)?),
        };
        bench_queries(large.as_ref().unwrap_or(&small))?;
    }
    Ok(())
}

fn bench_ingest(set: &DataSet) -> Result<(), String> {
    let file = set.ndjson();
    let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    println!(
        "\n== ingest: {} events, VictoriaLogs NDJSON export ({:.0} MiB), fresh child process each ==",
        set.facts.events,
        size as f64 / 1048576.0
    );
    let path = file.display().to_string();
    let mut results = Vec::new();
    for (label, case) in [("kdrift ingest file", "ingest-kdrift"), ("duckdb read_json", "ingest-duckdb")] {
        let dir = scratch()?;
        let r = child(&[case, &path, &dir.path().display().to_string()])?;
        println!(
            "{label:<20} {:>8.2} s {:>10.0} events/s  peak RSS {:>7.1} MiB  rows {}  errors {}",
            f(&r, "secs"),
            f(&r, "rows") / f(&r, "secs"),
            mib(&r),
            r["rows"],
            r["errors"]
        );
        results.push(r);
    }
    let ratio = f(&results[1], "secs") / f(&results[0], "secs");
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!("ratio kdrift/read_json (events/s): {ratio:.2}x  (target >= 1.0x: {})", verdict(ratio >= 1.0));
    println!(
        "kdrift peak RSS: {:.1} MiB (target <= 256 MiB: {})",
        mib(&results[0]),
        verdict(mib(&results[0]) <= 256.0)
    );
    Ok(())
}

fn bench_pull(set: &DataSet) -> Result<(), String> {
    let limit: usize = std::env::var("KDRIFT_BENCH_PULL_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(300_000);
    let rows = data::stored_rows(&set.ndjson(), limit)?;
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else { return Err("no rows to pull".into()) };
    let start = chrono::DateTime::from_timestamp_nanos(first.time_ns.min(last.time_ns));
    let end = chrono::DateTime::from_timestamp_nanos(rows.iter().map(|r| r.time_ns).max().unwrap_or(0) + 1);
    let n = rows.len();
    let vl = FakeVlogs::start();
    vl.insert_rows(rows);
    println!("\n== VictoriaLogs pull: {n} rows from the fake server on 127.0.0.1 (child process) ==");
    let dir = scratch()?;
    let (s, e) = (start.to_rfc3339(), end.to_rfc3339());
    let r = child(&["pull", &vl.url(), &s, &e, &dir.path().display().to_string()])?;
    let rate = f(&r, "rows") / f(&r, "secs");
    println!(
        "pull {:>8.2} s {:>10.0} events/s  peak RSS {:>7.1} MiB  rows {}  windows {}",
        f(&r, "secs"),
        rate,
        mib(&r),
        r["rows"],
        r["windows"]
    );
    println!("target >= 200000 events/s: {}", if rate >= 200_000.0 { "met" } else { "MISSED" });
    // The ceiling of any pull that stores what it fetches: DuckDB's own
    // loader on the same rows, from a local file, into a table of a new
    // database (fresh child process, the close included).
    let base = scratch()?;
    let lines = base.path().join("rows.ndjson");
    data::copy_first_lines(&set.ndjson(), limit, &lines)?;
    let b = child(&["ingest-duckdb", &lines.display().to_string(), &base.path().display().to_string()])?;
    let base_rate = f(&b, "rows") / f(&b, "secs");
    println!(
        "duckdb read_json of the same rows from a local file {:>8.2} s {:>10.0} events/s  peak RSS {:>7.1} MiB",
        f(&b, "secs"),
        base_rate,
        mib(&b)
    );
    println!(
        "ratio pull/read_json (events/s): {:.2}x; the target is {:.1}x read_json",
        rate / base_rate,
        200_000.0 / base_rate
    );
    Ok(())
}

fn bench_queries(set: &DataSet) -> Result<(), String> {
    let (ns, name) = set.facts.last_failed_pod.clone().ok_or("the data set has no failed pod")?;
    let store = set.store();
    let size = std::fs::metadata(&store).map(|m| m.len()).unwrap_or(0);
    println!(
        "\n== queries on the {}-event store ({:.0} MiB; {} pod/node versions), warm ==",
        set.facts.events,
        size as f64 / 1048576.0,
        set.facts.objects
    );
    let at = set.facts.middle.to_rfc3339();
    // First: the drain moves kept (schema v9), as `kdrift ingest` leaves them.
    let k = child(&["keep-moves", &store.display().to_string()])?;
    println!(
        "timeline drains, moves computed from the history: median {:.1} ms; keeping them ({} moves of {} \
         operations, what ingest adds): {:.1} ms; read back: median {:.1} ms",
        f(&k["timeline_from_history"], "median_ms"),
        k["moves"],
        k["operations"],
        f(&k, "keep_moves_ms"),
        f(&k["timeline_from_kept"], "median_ms")
    );
    let r = child(&["queries", &store.display().to_string(), &ns, &name, &at])?;
    let line = |label: &str, k: &str, target: f64| {
        let v = &r[k];
        let med = f(v, "median_ms");
        let verdict = if med <= target { "met" } else { "MISSED" };
        println!(
            "{label:<28} median {med:>9.1} ms  (min {:.1}, max {:.1}, {} runs)  target <= {target} ms: {verdict}",
            f(v, "min_ms"),
            f(v, "max_ms"),
            v["runs"]
        );
    };
    line(&format!("why-pending {ns}/{name}"), "why_pending", 250.0);
    line("timeline drains", "timeline", 1000.0);
    line(&format!("skew --at {at}"), "skew", 200.0);
    let end = (set.facts.end + chrono::Duration::hours(2)).to_rfc3339();
    let b = child(&["breakdown", &store.display().to_string(), &ns, &name, &at, &end])?;
    if let Some(m) = b.as_object() {
        println!("  where the time goes (each named query alone, median of 3, rows converted):");
        for (q, v) in m {
            println!("    {q:<20} {:>9.1} ms  {:>8} rows", f(v, "median_ms"), v["rows"]);
        }
    }
    println!(
        "store open {:.1} ms; operations {}; skew nodes {}; found {}; peak RSS {:.1} MiB",
        f(&r, "open_ms"),
        r["operations"],
        r["skew_nodes"],
        r["why_pending_found"],
        mib(&r)
    );
    Ok(())
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default()
}
