//! A new user's first hour (issue 38 item 5): `ingest file -` from a pipe,
//! `kdrift version`, one time format everywhere, `query --list`, examples
//! in `--help`, tables that fit the terminal, the per-directory summary.

use assert_cmd::Command;

fn kdrift() -> Command {
    let mut cmd = Command::cargo_bin("kdrift").expect("binary");
    cmd.env_remove("KDRIFT_DB").env_remove("COLUMNS");
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// gzip of `bytes`.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).expect("gzip");
    enc.finish().expect("gzip")
}

const EVENT_LIST: &str = r#"{"kind":"EventList","items":[{"metadata":{"name":"p.1","namespace":"d"},"involvedObject":{"kind":"Pod","name":"p","namespace":"d"},"reason":"FailedScheduling","message":"0/2 nodes are available: 2 Too many pods.","count":3}]}"#;

#[test]
fn ingest_file_dash_reads_standard_input_in_every_format_and_names_it_stdin() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let ingest = |stdin: Vec<u8>, args: &[&str]| {
        let out = kdrift().arg("--db").arg(&db).args(["ingest", "file"]).args(args).write_stdin(stdin).output();
        let out = out.expect("runs");
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    // `kubectl get events -A -o json | kdrift ingest file -`
    let (code, stdout, stderr) = ingest(EVENT_LIST.as_bytes().to_vec(), &["-"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "{stdout}");
    let rows: Vec<&str> = stdout.lines().map(str::trim_end).collect();
    assert_eq!(
        rows[1], " <stdin>   json     1        0         1              0                0         0",
        "{stdout}"
    );
    // NDJSON with a bad line: the error names <stdin> and the line; the good line loads.
    let (code, stdout, stderr) =
        ingest(b"{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}\n{\"broken\n".to_vec(), &["-"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "kdrift: <stdin>:2:9: invalid JSON: control character (\\u0000-\\u001F) found while parsing a string; expected \
         one JSON object per line (a Kubernetes object or a log record)\n"
    );
    assert!(stdout.contains(" <stdin>   ndjson   0        1         1 "), "{stdout}");
    // gzip-compressed YAML, recognised by its magic bytes, next to a named file.
    let named = dir.path().join("node.json");
    std::fs::write(&named, r#"{"kind":"Node","metadata":{"name":"n3"}}"#).expect("write");
    let yaml = gzip(b"apiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n");
    let (code, stdout, stderr) = ingest(yaml, &[named.to_str().expect("utf-8"), "-"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "{stdout}");
    let row = stdout.lines().find(|l| l.contains("<stdin>")).map(|l| l.split_whitespace().collect::<Vec<_>>());
    assert_eq!(row, Some(vec!["<stdin>", "yaml", "0", "1", "1", "0", "0", "0"]), "{stdout}");
    // The runs are stored as read from <stdin>, never the spooled copy's path.
    let runs = kdrift().arg("--db").arg(&db).args(["query", "runs", "-o", "json"]).output().expect("runs");
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("json");
    let locations: Vec<&str> = runs.as_array().expect("rows").iter().filter_map(|r| r["location"].as_str()).collect();
    assert_eq!(locations, [format!("{} <stdin>", named.display()).as_str(), "<stdin>", "<stdin>"]);
    // Not a dump (a `kubectl get pods` table): refused, naming <stdin>; nothing loaded.
    let (code, _, stderr) = ingest(b"NAME   READY   STATUS\nweb-1  1/1     Running\n".to_vec(), &["-"]);
    assert_eq!(code, Some(2));
    assert!(stderr.starts_with("kdrift: error: <stdin>: neither JSON, NDJSON nor YAML;"), "{stderr}");
    // Standard input is read once.
    let (code, _, stderr) = ingest(Vec::new(), &["-", "-"]);
    assert_eq!(
        (code, stderr.as_str()),
        (Some(2), "kdrift: error: - (standard input) is given 2 times: it can be read once\n")
    );
}

#[test]
fn version_names_the_build_its_commit_duckdb_and_both_schema_versions() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| text(&o.stdout).trim().to_string());
    let commit_line = commit.clone().unwrap_or_else(|| "unknown (built outside a git checkout)".into());
    let duckdb = kdrift_store::duckdb_version().expect("duckdb");
    let version = |args: &[&str]| {
        let out = kdrift().arg("--db").arg(&db).arg("version").args(args).output().expect("runs");
        assert_eq!((out.status.code(), text(&out.stderr)), (Some(0), String::new()));
        text(&out.stdout)
    };
    assert_eq!(
        version(&[]),
        format!(
            "kdrift:         {}\ngit commit:     {commit_line}\nDuckDB:         {duckdb}\nstore schema:   18 (this build \
             reads and writes)\nstore:          {}: none yet (created at the first ingest)\n",
            env!("CARGO_PKG_VERSION"),
            db.display()
        )
    );
    assert!(!db.exists(), "version creates no store");
    drop(kdrift_store::Store::open(&db).expect("store"));
    let v: serde_json::Value = serde_json::from_str(&version(&["-o", "json"])).expect("json");
    assert_eq!(
        v,
        serde_json::json!({
            "kdrift": env!("CARGO_PKG_VERSION"),
            "git_commit": commit,
            "duckdb": duckdb,
            "schema_version": 18,
            "store": {"path": db.display().to_string(), "schema_version": 18},
        })
    );
}

/// Runs `kdrift --db DB ARGS` and returns its stdout (any exit status).
fn stdout_of(db: &std::path::Path, args: &[&str]) -> String {
    let out = kdrift().arg("--db").arg(db).args(args).output().expect("runs");
    text(&out.stdout)
}

#[test]
fn every_time_prints_as_rfc_3339_in_whole_seconds_in_every_output() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    kdrift().args(["demo", "--save"]).arg(&db).assert().success();
    let pod = "media/backup-29930640-5l8lp";
    let outputs: Vec<(String, String)> = [
        vec!["why-pending", "--all"],
        vec!["why-pending", pod],
        vec!["timeline", "drains"],
        vec!["skew"],
        vec!["skew", "--usage"],
        vec!["hotspots"],
        vec!["postmortem", "job", "media/backup"],
        vec!["rebalance", "plan"],
        vec!["rebalance", "backtest", "--schedule", "0 3 * * *"],
    ]
    .into_iter()
    .map(|args| (args.join(" "), stdout_of(&db, &args)))
    .collect();
    let all: String = outputs.iter().map(|(_, out)| out.as_str()).collect();
    // One format: date T time Z; times of day with their Z.
    for (cmd, out) in &outputs {
        assert!(!out.is_empty(), "{cmd}: no output");
        for line in out.lines() {
            let spaced = line.as_bytes().windows(13).any(|w| {
                let digits = |r: std::ops::Range<usize>| w[r].iter().all(u8::is_ascii_digit);
                digits(0..4)
                    && w[4] == b'-'
                    && digits(5..7)
                    && w[7] == b'-'
                    && digits(8..10)
                    && w[10] == b' '
                    && digits(11..13)
            });
            assert!(!spaced, "{cmd}: a date and time separated by a space: {line}");
            let micros = line.split(|c: char| !c.is_ascii_digit()).any(|run| run.len() >= 15);
            assert!(!micros, "{cmd}: raw microseconds: {line}");
        }
    }
    for needle in [
        " media/backup-29930640-5l8lp   1h 30m    2026-11-28T04:00:00Z   16         never (deleted 05:30:00Z)",
        "  failed to schedule 16 times in 1 event, from 2026-11-28T04:00:00Z to 2026-11-28T05:15:00Z",
        "19 pods landed on node-1 within 3 minutes after it came back (at 02:02:19Z) from drain #2 (2026-11-28T02:00:00Z)",
        "#2 rolling drain — 2026-11-28T02:00:00Z → 02:10:15Z (10m 15s)",
        " node-1   02:00:00Z   02:01:04Z   02:02:00Z   02:02:19Z   02:02:44Z    14             02:02:44Z",
        "Requested % of allocatable at 2026-11-28T05:30:01Z (thresholds: helm-chart-default)",
        "Hotspots from 2026-11-28T02:30:00Z to 2026-11-28T05:30:00Z:",
        "  created 2026-11-28T04:00:00Z",
        "Rebalance plan at 2026-11-28T05:30:01Z — policy helm-chart-default",
    ] {
        assert!(all.contains(needle), "missing {needle:?} in:\n{all}");
    }
}

#[test]
fn query_list_shows_the_user_facing_queries_and_all_adds_the_internal_ones() {
    let list = |args: &[&str]| {
        let out = kdrift().args(["query", "--list"]).args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let names = |json: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(json).expect("json");
        v.as_array().expect("list").iter().map(|q| q["name"].as_str().expect("name").to_string()).collect()
    };
    let user = names(&list(&["-o", "json"]));
    assert_eq!(
        user,
        [
            "store_counts",
            "memory_settings",
            "runs",
            "run_errors",
            "run_sources",
            "pending_pods",
            "pod_failures",
            "refused_pods",
            "refusal_loops",
            "pod_spans",
            "pods_at",
            "nodes_at",
            "objects_at",
            "event_list",
            "vl_windows",
            "usage_windows",
            "usage_samples",
            "rebalance_latest_runs",
            "node_signals",
            "pod_evictions",
            "time_span",
            "jobs",
            "job_events",
            "job_pods",
            "scale_ups",
            "move_causes",
            "pod_placements",
        ]
    );
    let all = names(&list(&["--all", "-o", "json"]));
    assert!(all.len() > user.len() && user.iter().all(|u| all.contains(u)), "{all:?}");
    for internal in ["has_meta", "pod_models", "drain_moves_fresh", "requested_since_checkpoint"] {
        assert!(all.iter().any(|n| n == internal) && !user.iter().any(|n| n == internal), "{internal}");
    }
    let table = list(&[]);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 1 + user.len() + 1, "the header, the queries, the footer");
    assert_eq!(
        rows.last().copied(),
        Some(
            format!(
                "{} more: the analyses' internal building blocks (`kdrift query --list --all`)",
                all.len() - user.len()
            )
            .as_str()
        )
    );
    let err = kdrift().args(["query", "--all"]).output().expect("runs");
    assert_eq!(err.status.code(), Some(2), "--all needs --list");
}

#[test]
fn every_subcommands_help_ends_with_an_example() {
    for (args, example) in [
        (vec!["ingest", "file"], "Examples:\n  kdrift ingest file events.json pods.json nodes.json\n"),
        (vec!["why-pending"], "Examples:\n  kdrift why-pending --all\n"),
        (vec!["rebalance", "plan"], "Examples:\n  kdrift rebalance plan --policy policy.yaml --simulate\n"),
        (vec!["version"], "Examples:\n  kdrift version\n  kdrift version -o json\n"),
    ] {
        let out = kdrift().args(&args).arg("--help").output().expect("runs");
        let help = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0));
        assert!(help.contains(example), "{args:?}:\n{help}");
    }
    // `kubectl get events -A -o json | kdrift ingest file -` is in the example too.
    let help = text(&kdrift().args(["ingest", "file", "--help"]).output().expect("runs").stdout);
    assert!(help.trim_end().ends_with("kubectl get events -A -o json | kdrift ingest file -"), "{help}");
}

#[test]
fn tables_fit_the_width_columns_gives_and_a_pipe_without_it_is_not_cut() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    kdrift().args(["demo", "--save"]).arg(&db).assert().success();
    let run = |columns: Option<&str>| {
        let mut cmd = kdrift();
        if let Some(c) = columns {
            cmd.env("COLUMNS", c);
        }
        text(&cmd.arg("--db").arg(&db).args(["why-pending", "--all"]).output().expect("runs").stdout)
    };
    // 165 characters whole: in a pipe without COLUMNS nothing is cut.
    let whole = run(None);
    assert!(whole.contains("1 Insufficient cpu, 4 node(s) didn't match pod affinity rules"), "{whole}");
    assert_eq!(whole.lines().map(|l| l.chars().count()).max(), Some(165));
    // COLUMNS=120: the reasons (the widest) are cut first, the pod and the times stay whole.
    let fit = run(Some("120"));
    let rows: Vec<&str> = fit.lines().map(str::trim_end).collect();
    assert_eq!(
        rows,
        [
            " POD                           PENDING   FIRST FAILURE          ATTEMPTS   SCHEDULED                   REASONS \
             (LATEST)",
            " media/backup-29930640-5l8lp   1h 30m    2026-11-28T04:00:00Z   16         never (deleted 05:30:00Z)   1 \
             Insufficient …",
            "1 pod had FailedScheduling",
        ]
    );
    assert!(fit.lines().all(|l| l.chars().count() <= 120), "{fit}");
    // JSON is never cut.
    let json = kdrift().env("COLUMNS", "60").arg("--db").arg(&db).args(["why-pending", "--all", "-o", "json"]).output();
    let v: serde_json::Value = serde_json::from_slice(&json.expect("runs").stdout).expect("json");
    assert_eq!(v[0]["reasons"], "1 Insufficient cpu, 4 node(s) didn't match pod affinity rules");
}

#[test]
fn ingest_file_dir_sums_each_directory_and_v_lists_every_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let dump = dir.path().join("dump");
    std::fs::create_dir_all(dump.join("media")).expect("mkdir");
    std::fs::create_dir_all(dump.join("web")).expect("mkdir");
    std::fs::write(dump.join("media/events.json"), EVENT_LIST.replace("\"d\"", "\"media\"")).expect("write");
    std::fs::write(dump.join("media/pods.json"), r#"{"kind":"PodList","items":[]}"#).expect("write");
    std::fs::write(dump.join("nodes.json"), r#"{"kind":"Node","metadata":{"name":"n1"}}"#).expect("write");
    std::fs::write(
        dump.join("web/pods.ndjson"),
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"w\",\"namespace\":\"web\"}}\n{\"bad\n",
    )
    .expect("write");
    let dump = std::fs::canonicalize(&dump).expect("canonical");
    let ingest = |db: &str, verbose: bool| {
        let mut cmd = kdrift();
        cmd.arg("--db").arg(dir.path().join(db)).args(["ingest", "file"]).arg(&dump);
        if verbose {
            cmd.arg("-v");
        }
        let out = cmd.output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "one bad line");
        text(&out.stdout)
    };
    let words = |out: &str| -> Vec<Vec<String>> {
        out.lines().map(|l| l.split_whitespace().map(String::from).collect()).collect()
    };
    let d = dump.display().to_string();
    let summed = words(&ingest("a.duckdb", false));
    assert_eq!(
        summed[0],
        [
            "DIRECTORY",
            "OR",
            "FILE",
            "FILES",
            "EVENTS",
            "OBJECTS",
            "NEW",
            "VERSIONS",
            "ALREADY",
            "STORED",
            "SKIPPED",
            "ERRORS"
        ]
    );
    assert_eq!(
        summed[1],
        [format!("{d}/media/"), "2".into(), "1".into(), "0".into(), "1".into(), "0".into(), "0".into(), "0".into()]
    );
    assert_eq!(
        summed[2],
        [format!("{d}/"), "1".into(), "0".into(), "1".into(), "1".into(), "0".into(), "0".into(), "0".into()]
    );
    assert_eq!(
        summed[3],
        [format!("{d}/web/"), "1".into(), "0".into(), "1".into(), "1".into(), "0".into(), "0".into(), "1".into()]
    );
    assert_eq!(summed.len(), 6, "three directories, the totals, the note");
    let listed = words(&ingest("b.duckdb", true));
    assert_eq!(listed[0][0], "FILE");
    let files: Vec<&str> = listed[1..5].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        files,
        [
            format!("{d}/media/events.json"),
            format!("{d}/media/pods.json"),
            format!("{d}/nodes.json"),
            format!("{d}/web/pods.ndjson")
        ]
    );
}

#[test]
fn the_simulated_nights_list_a_looping_pod_once_and_count_pods() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    kdrift().args(["demo", "--save"]).arg(&db).assert().success();
    let plan = stdout_of(&db, &["rebalance", "plan", "--rounds"]);
    let loops: Vec<&str> = plan.lines().skip_while(|l| !l.starts_with("  Loops:")).take(3).collect();
    assert_eq!(
        loops,
        [
            "  Loops: 2 pod(s) evicted again the night after",
            "    batch/queue-worker-99lqv4ktcz-zfccm: evicted night 1 by RemoveDuplicates, landed on node-3, evicted \
             again night 2 by RemoveDuplicates, landed on node-3, evicted again night 3 by RemoveDuplicates",
            "    batch/queue-worker-99lqv4ktcz-vsptm: evicted night 2 by RemoveDuplicates, landed on node-4, evicted \
             again night 3 by RemoveDuplicates",
        ],
        "{plan}"
    );
}

#[test]
fn recommend_says_no_pair_converges_when_its_table_shows_none_and_whose_evictions_it_counts() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    kdrift().args(["demo", "--save"]).arg(&db).assert().success();
    let out = kdrift().arg("--db").arg(&db).args(["rebalance", "recommend"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    // `recommend > recommended.yaml`: no policy, nothing on stdout; the
    // table and the reason on stderr, said once (it was on both).
    assert_eq!(text(&out.stdout), "");
    let stderr = text(&out.stderr);
    // Every row of the table is STALLED, and 60 → 100 % evicts 10 pods (RemoveDuplicates'):
    assert!(stderr.contains("    cpu/memory/pods 60 → 100 %   STALLED at night 3   -        10 "), "{stderr}");
    assert!(!stderr.contains("every pair that converges moves nothing"), "{stderr}");
    // No node stays above 100 % (final max cpu 88.35 %): the stall is
    // RemoveDuplicates' evictions coming back, not a node above the targets.
    assert_eq!(stderr.matches("o policy to recommend").count(), 1, "{stderr}");
    assert!(!stderr.contains("stays above the targets"), "{stderr}");
    assert!(
        stderr.ends_with(
            "\nNo policy to recommend: no threshold pair helps: none of the 12 pairs converges (with thresholds 60 → \
             100 %: round 3 finds every node in the same class with the same requests as round 2: the pods evicted \
             each night (RemoveDuplicates 2) land back where they were, descheduler would evict them night after \
             night); EVICTIONS counts every plugin of the policy each night, not only LowNodeUtilization's.\n"
        ),
        "{stderr}"
    );
}

#[test]
fn why_pendings_node_table_says_the_kubelets_free_amount_its_shortfall_line_says() {
    let Some(real) = kdrift_tests::real_fixtures_or_skip("why_pendings_node_table_says_the_kubelets_free_amount")
    else {
        return;
    };
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("r.duckdb");
    let dumps = real.join("dumps");
    let mut cmd = kdrift();
    cmd.arg("--db").arg(&db).args(["ingest", "file"]);
    for f in ["default__events.json", "kube-system__events.json", "kube-system__pods.json", "nodes.json"] {
        cmd.arg(dumps.join(format!("erwee402__multi-k8s__{f}")));
    }
    cmd.assert().success();
    let report = stdout_of(&db, &["why-pending", "default/server-deployment-56d5dd7646-qzjv8"]);
    let lines: Vec<&str> = report.lines().map(str::trim_end).collect();
    let at = lines.iter().position(|l| l.starts_with(" NODE ")).expect("the node table");
    assert_eq!(
        lines[at..at + 4],
        [
            " NODE       CPU REQUESTED           CPU FREE         MEMORY REQUESTED             PODS     OTHER   FAILS FOR \
             THIS POD",
            " minikube   ≥220m/2000m (≥11.0 %)   225m (kubelet)   ≥170 MiB/1.84 GiB (≥9.0 %)   ≥8/110           ?",
            "  (kubelet): free as the kubelet counted it when it refused the pod, exact; the requested amounts are the \
             store's pods",
            "  minikube cpu: the pod requests 500m, 225m free → 275m short (the kubelet's count at admission, \
             2019-03-08T08:48:48Z)",
        ],
        "{report}"
    );
}

/// The HTML report reads at a glance (issue 38 item 5). The demo's drain #2
/// (02:00:00Z → 02:10:15Z) in a 2-day report: on the overview's 914 units
/// for 2,880 minutes it was a frame 3.25 units wide; it is at least 12, and
/// links to the operation's own chart. The requested % chart has a point at
/// every change: 733 samples (the start and 732 changes), where it had the
/// last change of each of 399 slices (16 samples of 1,804 instants).
#[test]
fn the_report_shows_a_ten_minute_drain_and_a_point_at_every_change() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    kdrift().arg("demo").arg("--save").arg(&db).assert().success();
    let report = dir.path().join("r.html");
    let range = ["--since", "2026-11-26T06:00:00Z", "--until", "2026-11-28T06:00:00Z"];
    let out = kdrift().arg("--db").arg(&db).args(["report", "--html"]).arg(&report).args(range).output().expect("runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&report).expect("report");
    // x = 70 + 914 × 2,640 / 2,880 minutes (drain #2 starts 44 h into the range).
    let frame = r##"<a class="zoom" href="#operation-2">
<rect class="group" data-operation="2" x="907.83" y="30" width="12" height="134">"##;
    assert!(html.contains(frame), "{html}");
    assert!(html.contains(r#"<section class="operation" id="operation-2" data-operation="2">"#));
    // Drain #1 (17m 44s, 5.63 units; 20 h in: x = 70 + 914 × 1,200 / 2,880) is widened too.
    assert!(html.contains(r#"<rect class="group" data-operation="1" x="450.83" y="30" width="12""#), "{html}");

    let whole = dir.path().join("whole.html");
    let out = kdrift().arg("--db").arg(&db).args(["report", "--html"]).arg(&whole).output().expect("runs");
    assert!(
        text(&out.stdout).contains("5 nodes charted (733 requested % samples), 2 drains or outages"),
        "{}",
        text(&out.stdout)
    );
    let html = std::fs::read_to_string(&whole).expect("report");
    assert!(
        html.contains(
            "Sampled at 733 instants: the start of the range and every change (732 changes of requests, bindings, \
             stops or Node versions in the range)."
        ),
        "{html}"
    );
}
