//! The `record` case: `kdrift record -A` (its defaults: batches of 1,000
//! versions or 5 s) against the fake API server holding the bench cluster
//! (`KDRIFT_BENCH_RECORD_NODES`, default 5,000 nodes = 150,000 pods),
//! then a stream of pod changes (a label rewritten, MODIFIED on the watch)
//! at `KDRIFT_BENCH_RECORD_RATE` changes/s (default 1,000) for
//! `KDRIFT_BENCH_RECORD_SECS` (default 60). The recorder says each commit
//! on stderr (`-v`: `committed: N versions received`); the bench notes when
//! each came and when each change was made:
//!
//! - the first lists: time from start until every listed object is committed;
//! - lag at each commit during the stream: how long ago the newest committed
//!   change was made (seconds), and how many changes made were not yet
//!   committed; median and max;
//! - catch-up: from the stream's end until every change is committed;
//! - peak RSS of the recorder (`VmHWM`, read every tick while it runs, up
//!   to its exit on SIGTERM), against the 256 MiB target.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use kdrift_tests::fake_kube::FakeKube;
use serde_json::{json, Value};

use crate::{env_number, path, verdict, vm_hwm_kib, KDRIFT};

/// One `committed:` line: when it came, the versions received in the run.
type Commit = (Instant, u64);

/// The items of a List written one per line.
fn items(list: &[u8]) -> Result<Vec<Value>, String> {
    let text = std::str::from_utf8(list).map_err(|e| e.to_string())?;
    text.lines()
        .skip(1)
        .map(|l| l.trim_end_matches(','))
        .filter(|l| l.starts_with('{') && !l.starts_with("{\"apiVersion\":\"v1\",\"kind\":\"List\""))
        .map(|l| serde_json::from_str(l).map_err(|e| format!("a List item: {e}")))
        .collect()
}

/// Parses the recorder's stderr: commits to the receiver, warnings echoed.
fn watch_stderr(stderr: std::process::ChildStderr) -> Receiver<Commit> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("committed: ").nth(1) {
                let n = rest.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0);
                if tx.send((Instant::now(), n)).is_err() {
                    break;
                }
            } else if line.contains("warning") || line.contains("error") {
                eprintln!("  recorder: {line}");
            }
        }
    });
    rx
}

/// The recorder process and what is seen of it.
struct Recorder {
    child: std::process::Child,
    commits: Receiver<Commit>,
    seen: Vec<Commit>,
    peak_kib: u64,
}

impl Recorder {
    /// Reads its peak RSS and the commits that came.
    fn poll(&mut self) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()));
        if let Some(hwm) = status.ok().as_deref().and_then(vm_hwm_kib) {
            self.peak_kib = self.peak_kib.max(hwm);
        }
        self.seen.extend(self.commits.try_iter());
    }

    fn committed(&self) -> u64 {
        self.seen.last().map_or(0, |c| c.1)
    }

    /// Polls until `committed() >= n`; false at `deadline` or its exit.
    fn wait_committed(&mut self, n: u64, deadline: Instant) -> Result<bool, String> {
        while self.committed() < n {
            if Instant::now() >= deadline {
                return Ok(false);
            }
            if let Some(status) = self.child.try_wait().map_err(|e| e.to_string())? {
                return Err(format!("kdrift record ended ({status}; its warnings are above)"));
            }
            std::thread::sleep(Duration::from_millis(20));
            self.poll();
        }
        Ok(true)
    }
}

/// Median and max of `v` (NaN when empty).
fn median_max(mut v: Vec<f64>) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[v.len() - 1])
}

/// Runs the case; prints its figures.
pub fn bench_record() -> Result<(), String> {
    let nodes = env_number("KDRIFT_BENCH_RECORD_NODES", 5000)? as usize;
    let rate = env_number("KDRIFT_BENCH_RECORD_RATE", 1000)?.max(1);
    let secs = env_number("KDRIFT_BENCH_RECORD_SECS", 60)?.max(1);
    let t = Instant::now();
    let cluster = kdrift_scenario::bench_cluster(nodes, 6);
    let (mut node_list, mut pod_list) = (Vec::new(), Vec::new());
    kdrift_scenario::write_bench_cluster_lists(&cluster, &mut node_list, &mut pod_list).map_err(|e| e.to_string())?;
    drop(cluster);
    let kube = FakeKube::start();
    let node_items = items(&node_list)?;
    let mut pods = items(&pod_list)?;
    drop((node_list, pod_list));
    let total = (node_items.len() + pods.len()) as u64;
    for object in node_items.into_iter().chain(pods.iter().cloned()) {
        kube.create(object).map_err(|e| format!("loading the fake API server: {e:?}"))?;
    }
    kube.compact(); // its change history: not what the recorder lists
    println!(
        "\n== record: kdrift record -A against the fake API server, {nodes} nodes / {} pods (loaded in {:.1} s), \
         then {rate} pod changes/s for {secs} s ==",
        pods.len(),
        t.elapsed().as_secs_f64()
    );
    let dir = crate::scratch()?;
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("store.duckdb");
    let started = Instant::now();
    let mut child = Command::new(KDRIFT)
        .args(["--db", path(&db), "-v", "record", "-A", "--metrics-interval", "off", "--kubeconfig"])
        .arg(&kubeconfig)
        .env_remove("KDRIFT_LOG")
        .env_remove("KUBECONFIG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{KDRIFT}: {e}"))?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let mut rec = Recorder { child, commits: watch_stderr(stderr), seen: Vec::new(), peak_kib: 0 };
    if !rec.wait_committed(total, started + Duration::from_secs(1800))? {
        return Err(format!("the recorder did not commit the {total} listed objects in 30 min"));
    }
    let listed_secs = started.elapsed().as_secs_f64();
    let listed_peak = rec.peak_kib;
    let base = rec.committed();
    // The stream: every 10 ms, the changes due by then (the schedule, not
    // the ticks, sets the rate); `made[k]` = when change k+1 was made.
    let stream_start = Instant::now();
    let mut made: Vec<Instant> = Vec::with_capacity((rate * secs) as usize);
    let due_total = rate * secs;
    let mut seq = 0u64;
    while (made.len() as u64) < due_total {
        let due = ((stream_start.elapsed().as_secs_f64() * rate as f64) as u64).min(due_total);
        while (made.len() as u64) < due {
            let i = (seq as usize) % pods.len();
            seq += 1;
            let pod = &mut pods[i];
            pod["metadata"]["labels"]["bench-seq"] = json!(seq.to_string());
            kube.update(pod.clone()).map_err(|e| format!("a pod change: {e:?}"))?;
            made.push(Instant::now());
        }
        rec.poll();
        std::thread::sleep(Duration::from_millis(10));
    }
    let stream_secs = stream_start.elapsed().as_secs_f64();
    let stream_end = Instant::now();
    let caught_up = rec.wait_committed(base + due_total, stream_end + Duration::from_secs(600))?;
    let catch_up = stream_end.elapsed().as_secs_f64();
    // Lag at each commit during the stream.
    let (mut lag_secs, mut behind) = (Vec::new(), Vec::new());
    for &(at, n) in rec.seen.iter().filter(|(at, n)| *at > stream_start && *at <= stream_end && *n > base) {
        let k = (n - base).min(made.len() as u64) as usize;
        lag_secs.push(at.saturating_duration_since(made[k - 1]).as_secs_f64());
        let made_by_then = made.partition_point(|m| *m <= at);
        behind.push(made_by_then.saturating_sub(k) as f64);
    }
    let commits = lag_secs.len();
    let (lag_med, lag_max) = median_max(lag_secs);
    let (behind_med, behind_max) = median_max(behind);
    // SIGTERM: it commits, closes its run and exits.
    let _ = Command::new("kill").args(["-TERM", &rec.child.id().to_string()]).status();
    let stop = Instant::now();
    let status = loop {
        rec.poll();
        if let Some(status) = rec.child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if stop.elapsed() > Duration::from_secs(120) {
            let _ = rec.child.kill();
            return Err("kdrift record did not exit within 120 s of SIGTERM".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stop_secs = stop.elapsed().as_secs_f64();
    let peak = rec.peak_kib as f64 / 1024.0;
    println!(
        "first lists: {total} objects committed {listed_secs:.1} s after start (peak RSS by then {:.1} MiB)",
        listed_peak as f64 / 1024.0
    );
    println!(
        "stream: {due_total} changes in {stream_secs:.1} s ({:.0}/s); {commits} commits during it",
        due_total as f64 / stream_secs
    );
    println!(
        "lag at each commit: newest committed change made {lag_med:.2} s before (median), {lag_max:.2} s (max); \
         changes made and not yet committed: {behind_med:.0} (median), {behind_max:.0} (max)"
    );
    println!(
        "caught up {catch_up:.2} s after the stream ended{}; exited ({status}) {stop_secs:.2} s after SIGTERM",
        if caught_up { "" } else { " (NOT within 600 s)" }
    );
    println!("recorder peak RSS: {peak:.1} MiB (target <= 256 MiB: {})", verdict(peak <= 256.0));
    Ok(())
}
