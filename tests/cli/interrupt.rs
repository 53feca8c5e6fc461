//! Ctrl-C (SIGINT) and SIGTERM during `kdrift ingest …`, sent to the real
//! binary: the run in progress is closed as `failed` (not left `running`),
//! with a row in `ingest_errors` saying it was interrupted; what was
//! committed before stays; stderr ends with a `kdrift: error: interrupted …`
//! line and the exit status is 128 + the signal (130, 143).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use chrono::Duration as Minutes;
use kdrift_ingest::Layout;
use kdrift_ingest::INTERRUPTED_RUN_MESSAGE;
use kdrift_ingest::{BATCH, CHUNK, QUEUED};
use kdrift_store::Store;
use kdrift_tests::fake_vlogs::{FakeVlogs, Fault};
use kdrift_tests::shippers::{ship, Seen, Sighting};
use kdrift_tests::vl_pull::utc;
use serde_json::json;

const WAIT: Duration = Duration::from_secs(300);
const START: &str = "2026-11-27T00:00:00Z";
const END: &str = "2026-11-27T06:00:00Z";

fn kdrift(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kdrift"));
    c.arg("--db").arg(db).env_remove("KDRIFT_DB").env_remove("KDRIFT_LOG").env_remove("KDRIFT_VL_PASSWORD");
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

/// Polls `ready` every 20 ms until it holds, failing the test after [`WAIT`]
/// (or when the child ended first).
fn wait_until(child: &mut Child, what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !ready() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("kdrift ended ({status}) before {what}: {}", stderr_of(child));
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr_of(child: &mut Child) -> String {
    let mut text = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut text);
    }
    text
}

/// Reads `child`'s stderr on a thread of its own: at each line holding
/// `needle` it calls `on_match` then sends on the returned channel; the
/// thread gives back the whole text once the child's stderr ends.
fn tap_stderr(
    child: &mut Child,
    needle: &'static str,
    mut on_match: impl FnMut() + Send + 'static,
) -> (std::sync::mpsc::Receiver<()>, std::thread::JoinHandle<String>) {
    use std::io::BufRead;
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    let tap = std::thread::spawn(move || {
        let mut text = String::new();
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains(needle) {
                on_match();
                let _ = tx.send(());
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    (rx, tap)
}

/// Sends `signal` (`INT`, `TERM`) and waits for the process to end (killing
/// it and failing after [`WAIT`]).
fn signal_and_wait(child: Child, signal: &str) -> Output {
    let status = Command::new("kill").arg(format!("-{signal}")).arg(child.id().to_string()).status().expect("kill");
    assert!(status.success(), "kill -{signal}");
    wait_for_end(child)
}

/// Waits for a signalled process to end (killing it and failing after [`WAIT`]).
fn wait_for_end(mut child: Child) -> Output {
    let deadline = Instant::now() + WAIT;
    while child.try_wait().expect("try_wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("kdrift did not end after SIGINT; stderr: {}", stderr_of(&mut child));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// Each run's status, and the `ingest_errors` messages of each, in run order.
fn runs(db: &Path) -> Vec<(String, Vec<String>)> {
    let store = Store::open_existing(db).expect("store");
    let mut stmt = store
        .conn()
        .prepare(
            "SELECT r.status, string_agg(e.message, chr(10) ORDER BY e.message) \
             FROM ingest_runs r LEFT JOIN ingest_errors e USING (run_id) GROUP BY r.run_id, r.status ORDER BY r.run_id",
        )
        .expect("prepare");
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))).expect("query");
    rows.map(|row| {
        let (status, messages) = row.expect("row");
        (status, messages.map(|m| m.lines().map(str::to_string).collect()).unwrap_or_default())
    })
    .collect()
}

fn observations(db: &Path) -> i64 {
    Store::open_existing(db).expect("store").counts().expect("counts").observations
}

/// 60 events, one every 6 minutes from 00:00 (10 per hour window).
fn loaded_vlogs() -> FakeVlogs {
    let events: Vec<Sighting> = (0..60)
        .map(|i| {
            let t = utc(START) + Minutes::minutes(6 * i);
            let ts = t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            Sighting {
                observed_at: t,
                seen: Seen::Added,
                object: json!({"apiVersion": "v1", "kind": "Event",
                               "metadata": {"name": format!("web-{i}.1"), "namespace": "shop", "uid": format!("uid-{i}")},
                               "involvedObject": {"kind": "Pod", "namespace": "shop", "name": format!("web-{i}")},
                               "reason": "BackOff", "type": "Warning", "count": 1, "message": "Back-off",
                               "firstTimestamp": ts, "lastTimestamp": ts}),
            }
        })
        .collect();
    let vl = FakeVlogs::start();
    assert_eq!(ship(&vl.url(), Layout::Raw, &events, None), 60);
    vl
}

/// The time filter of the window `[h:00, h+1:00)` (not a prefix of the
/// layout probe's `[00:00, 06:00)`).
fn hour(h: u32) -> String {
    format!("_time:[2026-11-27T{h:02}:00:00Z, 2026-11-27T{:02}:00:00Z)", h + 1)
}

fn pull(db: &Path, url: &str, resume: bool) -> Command {
    let mut c = kdrift(db);
    c.args(["ingest", "victorialogs", "--url", url, "--start", START, "--end", END, "--window-rows", "10"]);
    c.args(["--retry-delay", "10ms"]);
    if resume {
        c.arg("--resume");
    }
    c
}

/// Starts a pull whose window `stalled_hour` never ends, and waits until
/// kdrift has committed the `before` windows ahead of it and is reading it
/// (the fetcher works ahead of the commits: the window it asks for is not
/// yet the one being staged). Returns the child and its stderr, read as it
/// comes (joined: the text).
fn start_stalled(
    vl: &FakeVlogs,
    db: &Path,
    stalled_hour: u32,
    resume: bool,
    before: usize,
) -> (Child, std::thread::JoinHandle<String>) {
    vl.clear_faults();
    vl.inject(Fault::Stall { lines: 4 }, None, Some(&hour(stalled_hour)));
    let mut child = pull(db, &vl.url(), resume)
        .env("KDRIFT_LOG", "kdrift_ingest::victorialogs::window=info")
        .spawn()
        .expect("start kdrift");
    let (rx, tap) = tap_stderr(&mut child, "window committed", || {});
    for i in 0..before {
        rx.recv_timeout(WAIT).unwrap_or_else(|_| panic!("window {i} committed"));
    }
    let asked = |h: u32| {
        vl.seen()
            .iter()
            .any(|s| s.path == "/select/logsql/query" && s.query.as_deref().is_some_and(|q| q.contains(&hour(h))))
    };
    wait_until(&mut child, "the stalled window's query", || asked(stalled_hour));
    std::thread::sleep(Duration::from_millis(200)); // its first rows arrive, its run begins
    (child, tap)
}

/// The stderr lines of a pull started by [`start_stalled`], without the log lines.
fn messages(tap: std::thread::JoinHandle<String>) -> String {
    let text = tap.join().expect("stderr reader");
    text.lines().filter(|l| !l.contains(" INFO ")).map(|l| format!("{l}\n")).collect()
}

#[test]
fn an_interrupted_victorialogs_pull_closes_the_window_in_progress_as_failed_and_keeps_the_windows_before() {
    let vl = loaded_vlogs();
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");

    // SIGINT while window 03:00 hangs: windows 00:00-03:00 (runs 1-3) are committed.
    let (child, tap) = start_stalled(&vl, &db, 3, false, 3);
    let out = signal_and_wait(child, "INT");
    let stderr = messages(tap);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some(
            "kdrift: error: interrupted by SIGINT: the pull was interrupted during window [2026-11-27T03:00:00Z, \
             2026-11-27T04:00:00Z) (its run 4 is closed as failed, nothing of it kept); the 3 window(s) it \
             committed stay (rerun with --resume to continue after them)"
        ),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("in 3 windows: 30 new"), "the committed windows are summed up: {stdout}");
    let interrupted = vec![INTERRUPTED_RUN_MESSAGE.to_string()];
    let ok = || ("ok".to_string(), Vec::new());
    assert_eq!(runs(&db), vec![ok(), ok(), ok(), ("failed".to_string(), interrupted.clone())]);
    assert_eq!(observations(&db), 30, "the three committed windows, nothing of the fourth");

    // SIGTERM while the resumed pull's window 04:00 hangs: 143, window 03:00 kept.
    let (child, tap) = start_stalled(&vl, &db, 4, true, 1);
    let out = signal_and_wait(child, "TERM");
    let stderr = messages(tap);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(
        stderr.ends_with(
            "kdrift: error: interrupted by SIGTERM: the pull was interrupted during window \
             [2026-11-27T04:00:00Z, 2026-11-27T05:00:00Z) (its run 6 is closed as failed, nothing of it kept); the \
             1 window(s) it committed stay (rerun with --resume to continue after them)\n"
        ),
        "{stderr}"
    );
    let failed = ("failed".to_string(), interrupted);
    assert_eq!(runs(&db), vec![ok(), ok(), ok(), failed.clone(), ok(), failed.clone()]);
    assert_eq!(observations(&db), 40);

    // Nothing was left `running`: the next pull opens the store without a
    // warning and --resume completes the range.
    vl.clear_faults();
    let out = pull(&db, &vl.url(), true).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(observations(&db), 60);

    // SIGINT in a new store's first window: nothing was committed, and the
    // message does not say that windows stay. (A new server: this one has
    // seen the first window's query already.)
    let vl = loaded_vlogs();
    let fresh = dir.path().join("fresh.duckdb");
    let (child, tap) = start_stalled(&vl, &fresh, 0, false, 0);
    let out = signal_and_wait(child, "INT");
    let stderr = messages(tap);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some(
            "kdrift: error: interrupted by SIGINT: the pull was interrupted during window [2026-11-27T00:00:00Z, \
             2026-11-27T01:00:00Z) (its run 1 is closed as failed, nothing of it kept); it committed no window \
             (rerun the same command to pull them)"
        ),
        "{stderr}"
    );
    assert_eq!(observations(&fresh), 0);
}

/// `lines` one-line Events; returns the byte offset where each line starts
/// (and the end of the file last).
fn write_events(path: &Path, lines: usize) -> Vec<u64> {
    write_events_with_bad(path, lines, &[])
}

/// [`write_events`], with the 0-based lines `bad` holding `not json <i>`
/// instead of an Event.
fn write_events_with_bad(path: &Path, lines: usize, bad: &[usize]) -> Vec<u64> {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let mut offsets = Vec::with_capacity(lines + 1);
    let mut at = 0u64;
    for i in 0..lines {
        offsets.push(at);
        let ts = format!("2026-11-27T{:02}:{:02}:{:02}Z", i / 3600 % 24, i / 60 % 60, i % 60);
        let line = json!({"apiVersion": "v1", "kind": "Event",
                          "metadata": {"name": format!("p-{i}.1"), "namespace": "ns", "uid": format!("u-{i}")},
                          "involvedObject": {"kind": "Pod", "namespace": "ns", "name": format!("p-{i}")},
                          "reason": "Pulled", "type": "Normal", "count": 1, "message": "pulled",
                          "firstTimestamp": ts, "lastTimestamp": ts})
        .to_string();
        let line = if bad.contains(&i) { format!("not json {i}") } else { line };
        writeln!(w, "{line}").expect("write");
        at += line.len() as u64 + 1;
    }
    offsets.push(at);
    w.flush().expect("flush");
    offsets
}

/// Where process `pid` is reading `file` (`pos` of its descriptor), if it has it open.
fn read_position(pid: u32, file: &Path) -> Option<u64> {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    for fd in fds.flatten() {
        if std::fs::read_link(fd.path()).ok().as_deref() == Some(file) {
            let info =
                std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_string_lossy())).ok()?;
            return info.lines().find_map(|l| l.strip_prefix("pos:")).and_then(|p| p.trim().parse().ok());
        }
    }
    None
}

#[test]
fn an_interrupted_file_ingest_keeps_its_committed_batch_and_closes_its_run_as_failed() {
    let dir = tempfile::tempdir().expect("tmp");
    let dir_path: PathBuf = std::fs::canonicalize(dir.path()).expect("canonical");
    let file = dir_path.join("events.ndjson");
    let lines = 4 * BATCH as usize;
    let offsets = write_events(&file, lines);
    let db = dir_path.join("k.duckdb");

    // --memory-limit 1GiB: batches end at 100,000 records, not at an
    // eighth of the default limit's bytes (16 MiB: 109,316 of these).
    let mut child =
        kdrift(&db).args(["--memory-limit", "1GiB", "ingest", "file"]).arg(&file).spawn().expect("start kdrift");
    // The reader runs at most QUEUED + 2 chunks and its 1 MiB buffer ahead
    // of the stager: past this offset, the first batch (BATCH records) has
    // been committed, or is being committed.
    let past_first_batch = offsets[BATCH as usize + (QUEUED + 2) * CHUNK] + (2 << 20);
    let pid = child.id();
    wait_until(&mut child, "the first batch", || read_position(pid, &file).is_some_and(|p| p > past_first_batch));
    let out = signal_and_wait(child, "INT");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "kdrift: error: interrupted by SIGINT: run 1 is closed as failed; the {BATCH} object versions it committed \
             before ({BATCH} new) stay in {}, what it read since is dropped (ingesting the same files again adds \
             only what is missing)\n",
            db.display()
        )
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "no summary of a run that did not finish");
    assert_eq!(runs(&db), vec![("failed".to_string(), vec![INTERRUPTED_RUN_MESSAGE.to_string()])]);
    assert_eq!(observations(&db), BATCH as i64, "the committed batch stays");
    // The run's counts are those of its committed batch.
    let store = Store::open_existing(&db).expect("store");
    let (read, finished): (i64, bool) = store
        .conn()
        .query_row("SELECT records_read, finished_at IS NOT NULL FROM ingest_runs WHERE run_id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("run 1");
    assert_eq!((read, finished), (BATCH as i64, true));
}

#[test]
fn a_store_killed_while_it_is_being_created_opens_again_and_the_ingest_completes() {
    // New-user trial: Ctrl-C half a second into a first `kdrift ingest file`
    // left tables without the schema-version row (or some tables and no
    // kdrift_meta): every later command failed on the file with "query
    // get_schema_version failed: Query returned no rows" or "not a kdrift
    // store". Killed at any of these instants (SIGKILL: no handler runs),
    // the store must open again and a second ingest complete.
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("events.ndjson");
    write_events(&file, 2_000);
    for (i, delay_ms) in [10u64, 40, 80, 120, 160, 220, 300, 400, 600].into_iter().enumerate() {
        let db = dir.path().join(format!("k{i}.duckdb"));
        let child = kdrift(&db).args(["ingest", "file"]).arg(&file).spawn().expect("start kdrift");
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = signal_and_wait(child, "KILL");
        let out = kdrift(&db).args(["ingest", "file"]).arg(&file).output().expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "killed after {delay_ms} ms: {stderr}");
        assert_eq!(observations(&db), 2_000, "killed after {delay_ms} ms: {stderr}");
    }
}

/// Break-it 41 G14: `--db s.duckdb` with `s.duckdb.wal` a FIFO blocked
/// opening the store for good, SIGTERM ignored; the next signal said a run
/// "stays `running`" that never started. Refused at once now, naming it.
#[cfg(unix)]
#[test]
fn a_fifo_where_the_store_keeps_its_write_ahead_log_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("events.ndjson");
    write_events(&file, 10);
    let db = dir.path().join("s.duckdb");
    let wal = dir.path().join("s.duckdb.wal");
    if !Command::new("mkfifo").arg(&wal).status().is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo failed");
        return;
    }
    let child = kdrift(&db).args(["ingest", "file"]).arg(&file).spawn().expect("start kdrift");
    let out = wait_for_end(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{} is a FIFO (named pipe), not a regular file, where DuckDB keeps the store's write-ahead log; remove \
             it, or name another --db",
            wal.display()
        )),
        "{stderr}"
    );
    assert!(!db.exists(), "no store was created");
}

/// The `ingest_errors` (line, message) rows of run 1 and its `errors` count.
fn run_one_errors(db: &Path) -> (Vec<(Option<i64>, String)>, i64) {
    let store = Store::open_existing(db).expect("store");
    let mut stmt = store
        .conn()
        .prepare("SELECT line, message FROM ingest_errors WHERE run_id = 1 ORDER BY line NULLS LAST, message")
        .expect("prepare");
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).expect("query");
    let rows = rows.map(|r| r.expect("row")).collect();
    let count =
        store.conn().query_row("SELECT errors FROM ingest_runs WHERE run_id = 1", [], |r| r.get(0)).expect("run");
    (rows, count)
}

/// Starts `kdrift ingest file` on `file` and waits until its first batch
/// is committed (or being committed; see the test above).
fn start_past_first_batch(db: &Path, file: &Path, offsets: &[u64]) -> Child {
    // --memory-limit 1GiB: the first batch ends at BATCH records, not at an
    // eighth of the default limit's bytes.
    let mut child =
        kdrift(db).args(["--memory-limit", "1GiB", "ingest", "file"]).arg(file).spawn().expect("start kdrift");
    let past_first_batch = offsets[BATCH as usize + (QUEUED + 2) * CHUNK] + (2 << 20);
    let pid = child.id();
    wait_until(&mut child, "the first batch", || read_position(pid, file).is_some_and(|p| p > past_first_batch));
    child
}

#[test]
fn an_interrupted_file_ingest_prints_and_keeps_the_input_errors_it_met() {
    // Break-it finding: the bad lines of an interrupted run were neither
    // printed nor stored (only the "interrupted" row was).
    let dir = tempfile::tempdir().expect("tmp");
    let dir_path: PathBuf = std::fs::canonicalize(dir.path()).expect("canonical");
    let file = dir_path.join("events.ndjson");
    let offsets = write_events_with_bad(&file, 4 * BATCH as usize, &[10, 20]);
    let db = dir_path.join("k.duckdb");
    let child = start_past_first_batch(&db, &file, &offsets);
    let out = signal_and_wait(child, "INT");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let printed: Vec<&str> = stderr.lines().collect();
    assert_eq!(printed.len(), 3, "{stderr}");
    assert!(printed[0].starts_with(&format!("kdrift: {}:11:2: invalid JSON", file.display())), "{stderr}");
    assert!(printed[1].starts_with(&format!("kdrift: {}:21:2: invalid JSON", file.display())), "{stderr}");
    assert!(printed[2].starts_with("kdrift: error: interrupted by SIGINT: run 1 is closed as failed"), "{stderr}");
    let (rows, count) = run_one_errors(&db);
    let lines: Vec<Option<i64>> = rows.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, vec![Some(11), Some(21), None], "{rows:?}");
    assert_eq!(rows[2].1, INTERRUPTED_RUN_MESSAGE);
    assert_eq!(count, 3, "the run's error count is its rows");
    assert_eq!(observations(&db), BATCH as i64, "the committed batch (of records; the bad lines are none) stays");
}

#[test]
fn a_killed_file_ingest_keeps_the_input_errors_of_its_committed_batches() {
    // Break-it finding: after SIGKILL the run counted 4 errors and stored 1
    // row (the "abandoned" one): the bad lines of its committed batch were
    // written only at the final commit, which never came.
    let dir = tempfile::tempdir().expect("tmp");
    let dir_path: PathBuf = std::fs::canonicalize(dir.path()).expect("canonical");
    let file = dir_path.join("events.ndjson");
    write_events_with_bad(&file, 4 * BATCH as usize, &[10, 20, 30]);
    let db = dir_path.join("k.duckdb");
    // Killed once the writer logs its first batch committed.
    let mut child = kdrift(&db)
        .args(["ingest", "file"])
        .arg(&file)
        .env("KDRIFT_LOG", "kdrift_store::writer=debug")
        .spawn()
        .expect("start kdrift");
    let (rx, _tap) = tap_stderr(&mut child, "batch committed", || {});
    rx.recv_timeout(WAIT).expect("the first batch committed");
    let _ = signal_and_wait(child, "KILL");
    // The next writer closes the run as failed, adding one row and one error.
    let out = kdrift(&db).args(["ingest", "file"]).arg(&file).output().expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let (rows, count) = run_one_errors(&db);
    let lines: Vec<Option<i64>> = rows.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, vec![Some(11), Some(21), Some(31), None], "{rows:?}");
    assert_eq!(count, 4, "the run's error count is its rows: {rows:?}");
}

#[test]
fn sigint_during_the_final_commit_of_ingest_api_rolls_it_back_whole_and_closes_the_run_as_failed() {
    // The signal waited for the commit's end (11.6 s in the break-it pass),
    // and the run was kept (issue 34).
    use kdrift_tests::hostile_kube::{list_of, pod, Answer, HostileKube};
    use std::io::Write;
    let items: Vec<Vec<u8>> = (0..30_000).map(|i| pod(i, 10 + i).into_bytes()).collect();
    let body = list_of("PodList", &items);
    let kube = HostileKube::start(move |t| t.starts_with("/api/v1/pods?").then(|| Answer::Body(body.clone())));
    // The signal must land inside the commit: a race the test retries (a
    // signal after the commit rightly keeps the run), failing when it
    // never once stops the commit.
    let attempt = || -> bool {
        let dir = tempfile::tempdir().expect("tmp");
        let db = dir.path().join("k.duckdb");
        let mut child = kdrift(&db)
            .args(["-v", "ingest", "api", "-A", "--kubeconfig"])
            .arg(kube.write_kubeconfig(dir.path()))
            .env_remove("KUBECONFIG")
            .spawn()
            .expect("start kdrift ingest api");
        // A shell already waiting to send the signal: a `kill` started
        // only when the line is read came after the commit's interruptible
        // part on a fast machine (5 tries out of 5 in CI).
        let mut killer = Command::new("sh")
            .args(["-c", "read _ && kill -INT \"$1\"", "sh"])
            .arg(child.id().to_string())
            .stdin(Stdio::piped())
            .spawn()
            .expect("start the signalling shell");
        let mut fire = killer.stdin.take().expect("the shell's stdin");
        // The last resource listed: the final commit starts.
        let (rx, reader) = tap_stderr(&mut child, "listed resource=events.events.k8s.io", move || {
            let _ = fire.write_all(b"go\n");
            let _ = fire.flush();
        });
        rx.recv_timeout(WAIT).expect("every resource listed");
        assert!(killer.wait().expect("the signalling shell").success(), "kill -INT");
        let output = wait_for_end(child);
        let stderr = reader.join().expect("stderr reader");
        if output.status.code() == Some(0) && stderr.contains("during the final commit: the run completed and is kept")
        {
            // The signal came after DuckDB had begun writing the commit (or
            // after it): a kept run is right then. Try again.
            return false;
        }
        assert_eq!(output.status.code(), Some(130), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "kdrift: error: interrupted by SIGINT: the snapshot's run is closed as failed and nothing of it is kept in \
                 {} (a commit in progress is rolled back whole)",
                db.display()
            )),
            "{stderr}"
        );
        let runs = runs(&db);
        assert_eq!(runs.len(), 1, "{runs:?}");
        assert_eq!(runs[0].0, "failed", "{runs:?}");
        assert_eq!(observations(&db), 0, "nothing of the 30000 pods half-written");
        true
    };
    assert!((0..5).any(|_| attempt()), "SIGINT never stopped the final commit in 5 tries");
}

/// Events `first..first + n` of the `shop` namespace, at `at` plus `i % 60` seconds.
fn sightings(first: usize, n: usize, at: chrono::DateTime<chrono::Utc>) -> Vec<Sighting> {
    (first..first + n)
        .map(|i| {
            let t = at + chrono::Duration::seconds((i % 60) as i64);
            let ts = t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            Sighting {
                observed_at: t,
                seen: Seen::Added,
                object: json!({"apiVersion": "v1", "kind": "Event",
                               "metadata": {"name": format!("web-{i}.1"), "namespace": "shop", "uid": format!("uid-{i}")},
                               "involvedObject": {"kind": "Pod", "namespace": "shop", "name": format!("web-{i}")},
                               "reason": "BackOff", "type": "Warning", "count": 1, "message": "Back-off",
                               "firstTimestamp": ts, "lastTimestamp": ts}),
            }
        })
        .collect()
}

/// Break-it 36 F4b: `ingest victorialogs --max-batch-bytes 1` took 189 s
/// to stop after SIGTERM: each row moved a batch, and the interrupt was
/// seen only between chunks of 2,048 rows. It is seen between rows: the
/// pull stops within seconds, the window committed before stays whole and
/// nothing of the window in progress is kept.
#[test]
fn sigterm_while_a_window_stages_one_row_a_batch_stops_within_seconds() {
    let vl = FakeVlogs::start();
    // Window 1: 10 rows in [00:00, 00:10); window 2: 3,000 rows in the minute 01:00.
    let mut events = sightings(0, 10, utc(START));
    events.extend(sightings(10, 3_000, utc("2026-11-27T01:00:00Z")));
    assert_eq!(ship(&vl.url(), Layout::Raw, &events, None), 3_010);
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let mut child = kdrift(&db)
        .args(["ingest", "victorialogs", "--url", &vl.url(), "--start", START, "--end", END])
        .args(["--window-rows", "3000", "--max-batch-bytes", "1"])
        .env("KDRIFT_LOG", "kdrift_ingest::victorialogs::window=info")
        .spawn()
        .expect("start kdrift");
    let (rx, tap) = tap_stderr(&mut child, "window committed", || {});
    rx.recv_timeout(WAIT).expect("the first window committed");
    // The second window's rows are being staged, a batch each.
    std::thread::sleep(Duration::from_secs(2));
    let signalled = Instant::now();
    let out = signal_and_wait(child, "TERM");
    let took = signalled.elapsed();
    let stderr = messages(tap);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(took < Duration::from_secs(20), "stopped {took:?} after SIGTERM");
    assert!(
        stderr.ends_with(
            "kdrift: error: interrupted by SIGTERM: the pull was interrupted during window \
             [2026-11-27T01:00:00Z, 2026-11-27T06:00:00Z) (its run 2 is closed as failed, nothing of it kept); the \
             1 window(s) it committed stay (rerun with --resume to continue after them)\n"
        ),
        "{stderr}"
    );
    let ok = ("ok".to_string(), Vec::new());
    assert_eq!(runs(&db), vec![ok, ("failed".to_string(), vec![INTERRUPTED_RUN_MESSAGE.to_string()])]);
    assert_eq!(observations(&db), 10, "the first window whole, nothing of the second");
}

/// A kubeconfig whose user's exec plugin (`dir/hang`, bash) writes its pid
/// and its `sleep`'s to `dir/pids` and never exits.
fn hanging_plugin_kubeconfig(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let pids = dir.join("pids");
    let plugin = dir.join("hang");
    std::fs::write(
        &plugin,
        format!("#!/bin/bash\nsleep 3600 &\necho $$ $! > {}.tmp\nmv {0}.tmp {0}\nwait\n", pids.display()),
    )
    .expect("plugin");
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let kubeconfig = dir.join("kc.yaml");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: {{server: 'http://127.0.0.1:1'}}\n\
             contexts:\n- name: c\n  context: {{cluster: c, user: u}}\nusers:\n- name: u\n  user:\n    exec:\n      \
             apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never\n",
            plugin.display()
        ),
    )
    .expect("kubeconfig");
    kubeconfig
}

/// Whether every pid of `dir/pids` is gone (no process, or a zombie),
/// waiting up to 5 s (SIGKILL takes a moment).
fn plugin_gone(dir: &Path) -> bool {
    let pids = std::fs::read_to_string(dir.join("pids")).expect("the plugin ran");
    let gone = |pid: &str| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        matches!(stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next()), None | Some('Z'))
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pids.split_whitespace().all(gone) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

#[test]
fn an_exec_plugin_that_never_exits_is_killed_by_the_first_sigint_and_by_exec_timeout() {
    // Break-it 43 M-exec: kdrift waited for it without end or message; the
    // first SIGINT was ignored; the plugin was left running.
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = hanging_plugin_kubeconfig(dir.path());
    let mut child = kdrift(&dir.path().join("k.duckdb"))
        .args(["ingest", "api", "-A", "--kubeconfig"])
        .arg(&kubeconfig)
        .spawn()
        .expect("spawn");
    let pids = dir.path().join("pids");
    wait_until(&mut child, "the plugin started", || pids.exists());
    let out = signal_and_wait(child, "INT");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "kubeconfig user u: the exec credential plugin {} was stopped by SIGINT or SIGTERM before it exited: it \
             was killed",
            dir.path().join("hang").display()
        )),
        "{stderr}"
    );
    assert!(!out.status.success());
    assert!(plugin_gone(dir.path()), "the plugin still runs");

    std::fs::remove_file(&pids).expect("rm");
    let started = Instant::now();
    let out = kdrift(&dir.path().join("k.duckdb"))
        .args(["ingest", "api", "-A", "--exec-timeout", "2s", "--kubeconfig"])
        .arg(&kubeconfig)
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("did not exit within 2 s (an interactive login waiting for a browser"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
    assert!(plugin_gone(dir.path()), "the plugin still runs");
}
