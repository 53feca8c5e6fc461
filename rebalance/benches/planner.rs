//! Planner benchmark (issue 6): the descheduler-compatible LowNodeUtilization
//! plan, the plan with `nodeFit`, and the landing simulation, on the
//! generated cluster of [`kdrift_scenario::bench_cluster`] at 500, 2,000 and
//! 5,000 nodes (30 pods per node); and (issue 36) `whole`: the whole-policy
//! plan — all ten v0.36 plugins, DefaultEvictor with nodeFit
//! (`examples/all-plugins-policy.yaml`) — on
//! [`kdrift_scenario::whole_policy_cluster`], where each plugin has
//! something to evict (target at 5,000 nodes: ≤ 1 s, ≤ 500 MiB).
//!
//! Run with `cargo bench --bench planner` (all benches: `cargo bench`).
//! Options after `--`: `--sizes 500,2000`, `--runs N` (timed runs per case,
//! default 7; the median is reported), `--cases plan,nodefit,simulate`,
//! `--seed S` (`--cases whole` for the whole policy alone).
//!
//! Every case runs in a fresh child process (this binary re-executed with
//! `--case`), so the peak RSS it reports (`VmHWM` of `/proc/self/status`)
//! belongs to that case alone. The child generates the cluster (not timed),
//! runs the case once to warm up, then `--runs` timed times, and prints one
//! `RESULT` line that the parent turns into the table.

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use kdrift_rebalance::{plan, simulate_plan, PlanOptions};
use kdrift_scenario::{all_plugins_policy, bench_cluster, bench_policy, whole_policy_cluster};

/// descheduler v0.36 figures from issue 6 (same machine class):
/// `(nodes, seconds, peak MiB)` for the plan, and the nodeFit run at 5,000.
const BASELINE_PLAN: [(usize, f64, f64); 3] = [(500, 0.40, 236.0), (2000, 1.47, 820.0), (5000, 4.5, 1.97 * 1024.0)];
/// descheduler with `nodeFit: true` at 5,000 nodes, seconds.
const BASELINE_NODEFIT_5000: f64 = 20.1;

/// The cases.
const CASES: [&str; 4] = ["plan", "nodefit", "simulate", "whole"];

struct Options {
    sizes: Vec<usize>,
    runs: usize,
    cases: Vec<String>,
    seed: u64,
    case: Option<(String, usize)>,
}

fn parse_args() -> Result<Options, String> {
    let mut o =
        Options { sizes: vec![500, 2000, 5000], runs: 7, cases: CASES.map(String::from).to_vec(), seed: 6, case: None };
    let mut args = std::env::args().skip(1);
    let mut case_name = None;
    let mut case_nodes = None;
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--sizes" => {
                o.sizes = value("--sizes")?
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|_| format!("--sizes: {s:?} is not a number")))
                    .collect::<Result<_, _>>()?
            }
            "--runs" => o.runs = value("--runs")?.parse().map_err(|_| "--runs: not a number".to_string())?,
            "--seed" => o.seed = value("--seed")?.parse().map_err(|_| "--seed: not a number".to_string())?,
            "--cases" => o.cases = value("--cases")?.split(',').map(str::to_string).collect(),
            "--case" => case_name = Some(value("--case")?),
            "--nodes" => case_nodes = Some(value("--nodes")?.parse().map_err(|_| "--nodes: not a number".to_string())?),
            // `cargo bench` passes `--bench`; a filter word may follow.
            _ => {}
        }
    }
    if let Some(c) = o.cases.iter().find(|c| !CASES.contains(&c.as_str())) {
        return Err(format!("unknown case {c:?} (known: {})", CASES.join(", ")));
    }
    o.case = case_name.zip(case_nodes);
    o.runs = o.runs.max(1);
    Ok(o)
}

/// `VmHWM` (peak resident set) of this process, in MiB.
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// Time this thread has spent on a CPU (`/proc/thread-self/schedstat`, first
/// field, nanoseconds): unlike wall time, it does not grow while other
/// processes hold the CPU.
fn cpu_time() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One case in this process; prints the `RESULT` line.
fn child(case: &str, nodes: usize, runs: usize, seed: u64) -> Result<(), String> {
    let start = Instant::now();
    let cluster = if case == "whole" { whole_policy_cluster(nodes, seed) } else { bench_cluster(nodes, seed) };
    let generated = start.elapsed();
    let rss_input = peak_rss_mib();
    let snapshot = &cluster.snapshot;
    let pol = if case == "whole" { all_plugins_policy() } else { bench_policy(case == "nodefit") }
        .map_err(|e| e.to_string())?;
    let options = PlanOptions::default();
    // For `simulate`, the plan is made once and only the simulation is timed.
    let base_plan = (case == "simulate").then(|| plan(snapshot, &pol, &options));
    let mut times = Vec::with_capacity(runs);
    let mut cpu_times = Vec::with_capacity(runs);
    let mut evictions = 0;
    let mut extra = String::new();
    for i in 0..=runs {
        let t = Instant::now();
        let c = cpu_time();
        match &base_plan {
            None => {
                let p = plan(snapshot, &pol, &options);
                evictions = p.evictions_total;
                if case == "whole" {
                    let per: Vec<String> = p
                        .runs
                        .iter()
                        .map(|r| format!("{}:{}", r.plugin.trim_start_matches("RemovePods"), r.evictions.len()))
                        .collect();
                    extra = format!("per_plugin={}", per.join(","));
                }
            }
            Some(p) => {
                let s = simulate_plan(snapshot, p);
                evictions = p.evictions_total;
                extra = format!(
                    "pending={} pile_up={} skew_before={:.1} skew_after={:.1}",
                    s.unschedulable(),
                    s.pile_up.as_ref().map_or("none".to_string(), |p| format!("{}/{}@{}", p.count, p.of, p.node)),
                    s.cpu_skew_before.unwrap_or(f64::NAN),
                    s.cpu_skew_after.unwrap_or(f64::NAN),
                );
            }
        }
        let (took, cpu) = (t.elapsed(), cpu_time().saturating_sub(c));
        if i > 0 {
            times.push(took);
            cpu_times.push(cpu);
        }
    }
    let min = times.iter().min().copied().unwrap_or_default();
    let max = times.iter().max().copied().unwrap_or_default();
    println!(
        "RESULT case={case} nodes={nodes} pods={} runs={runs} median_ms={:.1} min_ms={:.1} max_ms={:.1} \
         cpu_ms={:.1} peak_mib={:.0} input_mib={rss_input:.0} generate_ms={:.0} evictions={evictions} {extra}",
        snapshot.pods.len(),
        median(times).as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
        median(cpu_times).as_secs_f64() * 1e3,
        peak_rss_mib(),
        generated.as_secs_f64() * 1e3,
    );
    Ok(())
}

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace().find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=')).unwrap_or("?")
}

fn num(line: &str, key: &str) -> f64 {
    field(line, key).parse().unwrap_or(f64::NAN)
}

/// The target of a case at 5,000 nodes: `(seconds, MiB)`.
fn target(case: &str) -> (f64, Option<f64>) {
    match case {
        "plan" => (0.5, Some(500.0)),
        "whole" => (1.0, Some(500.0)),
        _ => (1.0, None),
    }
}

fn parent(o: &Options) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    println!("planner benchmark: median of {} warm runs per case, each case in its own process", o.runs);
    println!(
        "{:<9} {:>6} {:>7} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9}  {:<30} target (wall median)",
        "case",
        "nodes",
        "pods",
        "median",
        "min",
        "max",
        "cpu median",
        "peak RSS",
        "evicted",
        "descheduler v0.36 (ratio)"
    );
    for case in &o.cases {
        for &nodes in &o.sizes {
            let out = Command::new(&exe)
                .args(["--case", case, "--nodes", &nodes.to_string()])
                .args(["--runs", &o.runs.to_string(), "--seed", &o.seed.to_string()])
                .output()
                .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
            let stdout = String::from_utf8_lossy(&out.stdout);
            let Some(line) = stdout.lines().find(|l| l.starts_with("RESULT ")) else {
                return Err(format!("case {case} at {nodes} nodes failed: {}", String::from_utf8_lossy(&out.stderr)));
            };
            let secs = num(line, "median_ms") / 1e3;
            let mib = num(line, "peak_mib");
            let baseline = match case.as_str() {
                "plan" => BASELINE_PLAN.iter().find(|b| b.0 == nodes).map(|b| (b.1, Some(b.2))),
                "nodefit" if nodes == 5000 => Some((BASELINE_NODEFIT_5000, None)),
                _ => None,
            };
            let base = match baseline {
                Some((s, Some(m))) => format!("{s:.2} s {m:.0} MiB ({:.1}x, {:.1}x)", s / secs, m / mib),
                Some((s, None)) => format!("{s:.1} s ({:.1}x)", s / secs),
                None => "-".to_string(),
            };
            let verdict = if nodes == 5000 {
                let (t, m) = target(case);
                let ok = secs <= t && m.is_none_or(|m| mib <= m);
                let mem = m.map(|m| format!(", <= {m:.0} MiB")).unwrap_or_default();
                format!("<= {t} s{mem}: {}", if ok { "met" } else { "MISSED" })
            } else {
                String::new()
            };
            println!(
                "{case:<9} {nodes:>6} {:>7} {:>8.1}ms {:>8.1}ms {:>8.1}ms {:>8.1}ms {:>5.0} MiB {:>9}  {base:<30} {verdict}",
                field(line, "pods"),
                num(line, "median_ms"),
                num(line, "min_ms"),
                num(line, "max_ms"),
                num(line, "cpu_ms"),
                mib,
                field(line, "evictions"),
            );
            if case == "whole" {
                println!("{:<17} evictions per plugin: {}", "", field(line, "per_plugin"));
            }
            if case == "simulate" {
                println!(
                    "{:<17} pending={} pile_up={} cpu skew {} -> {} points",
                    "",
                    field(line, "pending"),
                    field(line, "pile_up"),
                    field(line, "skew_before"),
                    field(line, "skew_after")
                );
            }
        }
    }
    println!(
        "(wall and on-CPU time of the case's thread; on a busy machine wall > cpu. Peak RSS includes the generated \
         snapshot; `simulate` times the landing simulation of the plan alone)"
    );
    Ok(())
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|o| match &o.case {
        Some((case, nodes)) => child(case, *nodes, o.runs, o.seed),
        None => parent(&o),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("planner bench: {e}");
            ExitCode::from(2)
        }
    }
}
