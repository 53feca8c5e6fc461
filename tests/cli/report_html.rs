//! `kdrift report --html` end to end: the binary writes the report of the
//! demo store (and of a store of every real fixture), headless Chromium
//! renders it, and the rendered DOM is checked for values: one Gantt row per
//! node, both rolling drains labelled with their start times, a cordon band
//! per node and drain, the backup pod's chain (node-1, 58m free, 100m
//! requested, the first fix), no external reference, the same bytes twice.
//!
//! Chromium (Debian package `chromium`) must be installed; `.ci/run`
//! installs it. Without it the browser tests fail, unless
//! `KDRIFT_SKIP_BROWSER=1` is set, which skips them with a printed reason.

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;

fn kdrift() -> Command {
    let mut c = Command::cargo_bin("kdrift").expect("binary");
    c.env_remove("KDRIFT_DB");
    c
}

/// The Chromium binary on PATH, or `None` after printing why the calling
/// test skips (only with `KDRIFT_SKIP_BROWSER=1`); panics otherwise.
fn browser_or_skip(test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file());
    if found.is_none() {
        if std::env::var("KDRIFT_SKIP_BROWSER").is_ok_and(|v| v == "1") {
            eprintln!("{test}: SKIPPED: chromium is not installed and KDRIFT_SKIP_BROWSER=1");
            return None;
        }
        panic!(
            "{test}: chromium is not installed (no chromium, chromium-browser or google-chrome on PATH): \
             install it with `apt-get install -y chromium` (.ci/run does), or set KDRIFT_SKIP_BROWSER=1 to skip"
        );
    }
    found
}

/// Runs headless Chromium on a local file with a fresh profile and no
/// network features; returns its stdout. `extra` picks the output
/// (`--dump-dom`, `--screenshot=PATH`).
fn chromium(browser: &Path, page: &Path, extra: &[&str]) -> String {
    let profile = tempfile::tempdir().expect("profile dir");
    let url = format!("file://{}", page.canonicalize().expect("page path").display());
    let out_file = profile.path().join("stdout");
    let mut child = Process::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1100,2400",
        ])
        .arg(format!("--user-data-dir={}", profile.path().join("profile").display()))
        .args(extra)
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).expect("stdout file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    // A guard against a hung browser, not a timing assertion.
    let deadline = Instant::now() + Duration::from_secs(300);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish rendering {url} within 5 minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "chromium failed on {url}: {status}");
    std::fs::read_to_string(out_file).expect("chromium output")
}

/// Every `http://` / `https://` inside a tag (an attribute: a link, a
/// source, a style), and every other way to load something.
fn external_references(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for scheme in ["http://", "https://"] {
        for (i, _) in html.match_indices(scheme) {
            let before = &html[..i];
            if before.rfind('<') > before.rfind('>') {
                found.push(html[i.saturating_sub(60)..(i + 40).min(html.len())].to_string());
            }
        }
    }
    for loader in ["<link", "<img", "<iframe", "<object", "<embed", "@import", "src=", "@font-face"] {
        if html.contains(loader) {
            found.push(loader.to_string());
        }
    }
    for (i, _) in html.match_indices("url(") {
        if !html[i + 4..].starts_with('#') {
            found.push(html[i..(i + 40).min(html.len())].to_string());
        }
    }
    found
}

/// The text of the first element that starts with `open` (up to `close`).
fn element<'a>(dom: &'a str, open: &str, close: &str) -> &'a str {
    let start = dom.find(open).unwrap_or_else(|| panic!("no {open} in the DOM"));
    let end = dom[start..].find(close).map_or(dom.len(), |e| start + e + close.len());
    &dom[start..end]
}

/// The report with a script appended that measures what Chromium laid out
/// and writes it into the DOM as JSON (test instrumentation only).
const MEASURE: &str = r#"<script>
(function () {
  var m = {rows: [], bands: [], labels: [], fix: null};
  document.querySelectorAll('#gantt-overview .gantt-row').forEach(function (g) {
    var l = g.querySelector('.node-label').getBoundingClientRect();
    m.rows.push({node: g.getAttribute('data-node'), top: l.top, width: l.width});
  });
  document.querySelectorAll('.operation svg .band.cordoned').forEach(function (b) {
    var r = b.getBoundingClientRect();
    m.bands.push({node: b.getAttribute('data-node'), op: b.getAttribute('data-operation'), width: r.width, height: r.height});
  });
  document.querySelectorAll('#gantt-overview .group-label').forEach(function (t) {
    var r = t.getBoundingClientRect();
    m.labels.push({text: t.textContent, left: r.left, right: r.right});
  });
  var f = document.querySelector('.chain ol.fixes > li');
  m.fix = {text: f.textContent, height: f.getBoundingClientRect().height};
  var pre = document.createElement('pre');
  pre.id = 'kdrift-measure';
  pre.textContent = JSON.stringify(m);
  document.body.appendChild(pre);
})();
</script>"#;

fn measured(browser: &Path, report: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(report).expect("report");
    let copy = report.with_file_name("measured.html");
    std::fs::write(&copy, html.replace("</body>", &format!("{MEASURE}</body>"))).expect("write copy");
    let dom = chromium(browser, &copy, &["--dump-dom"]);
    let json = element(&dom, r#"<pre id="kdrift-measure">"#, "</pre>");
    let json = json.trim_start_matches(r#"<pre id="kdrift-measure">"#).trim_end_matches("</pre>");
    let json = json.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("measurements {json}: {e}"))
}

#[test]
fn a_report_range_after_the_history_is_said_to_be_outside_it() {
    // It exited 0 with a zero-length range showing the last state as 2027's.
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("demo.duckdb");
    kdrift().arg("demo").arg("--save").arg(&db).assert().success();
    let report = dir.path().join("report.html");
    let out = kdrift()
        .arg("--db")
        .arg(&db)
        .args(["report", "--html"])
        .arg(&report)
        .args(["--since", "2027-01-01T00:00:00Z"])
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "kdrift: the range 2027-01-01T00:00:00Z → the store's end is outside the history of {} (",
            db.display()
        )) && stderr.contains("): nothing in the store falls in it"),
        "{stderr}"
    );
    let html = std::fs::read_to_string(&report).expect("report");
    assert!(html.contains("is outside the store&#39;s history") || html.contains("is outside the store's history"));
    // New-user trial: the summary said "5 nodes charted" and the file charted
    // the last state at 2027 beside "nothing in the store falls in it".
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        format!("wrote {}: nothing charted or listed: the range is outside the store's history\n", report.display())
    );
    assert!(!html.contains(r#"class="gantt-row""#) && !html.contains(r#"<svg id="requested-cpu""#), "{html}");
    assert!(
        html.contains("The range is outside the store&#39;s history: no requested % to chart.")
            || html.contains("The range is outside the store's history: no requested % to chart."),
        "{html}"
    );
}

/// New-user trial: a store without nodes wrote "0 nodes charted, 4
/// requested % samples" of a file that charts nothing; the summary counts
/// what the file shows, in number.
#[test]
fn a_report_without_nodes_says_no_node_is_charted_and_counts_no_sample() {
    let dir = tempfile::tempdir().expect("temp dir");
    let events = dir.path().join("events.json");
    let event = serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "p.1", "namespace": "d", "uid": "e1"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "d"},
        "reason": "FailedScheduling", "message": "0/2 nodes are available: 2 Insufficient cpu.", "count": 3,
        "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T01:00:00Z"});
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "q", "namespace": "d", "uid": "pq", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"nodeName": "x", "containers": [{"name": "c"}]}, "status": {"phase": "Running"}});
    std::fs::write(&events, serde_json::json!({"kind": "List", "items": [event, pod]}).to_string()).expect("write");
    let db = dir.path().join("k.duckdb");
    kdrift().arg("--db").arg(&db).args(["ingest", "file"]).arg(&events).assert().success();
    let report = dir.path().join("r.html");
    let out = kdrift().arg("--db").arg(&db).args(["report", "--html"]).arg(&report).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "wrote {}: 2026-01-01T00:00:00Z → 2026-01-01T01:00:00Z, no node charted (no Node objects in the range), \
             0 drains or outages, 1 Pending pod, 1 chain\n",
            report.display()
        )
    );
    let out =
        kdrift().arg("--db").arg(&db).args(["report", "-o", "json", "--html"]).arg(&report).output().expect("run");
    let written: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!((&written["nodes"], &written["samples"], &written["pending"]), (&0.into(), &0.into(), &1.into()));
    let html = std::fs::read_to_string(&report).expect("report");
    assert!(html.contains("The store has no Node objects in the range: no requested % to chart."), "{html}");
}

/// New-user trial 46: on erwee402 the HTML said "Sampled at 54 instants
/// … (53 changes …)" and stdout and JSON "53 requested % samples": the
/// range starts at the first event, before the Node object, and that
/// instant charts nothing. One count, of the samples charted, in all three.
#[test]
fn a_report_whose_range_starts_before_the_first_node_counts_the_samples_charted_everywhere() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.json");
    let event = serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "p.1", "namespace": "d", "uid": "e1"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "d"},
        "reason": "FailedScheduling", "message": "0/1 nodes are available: 1 Insufficient cpu.", "count": 1,
        "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z"});
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "uid": "n1", "creationTimestamp": "2026-01-01T00:10:00Z"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}});
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "q", "namespace": "d", "uid": "pq", "creationTimestamp": "2026-01-01T00:20:00Z"},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]},
        "status": {"phase": "Running"}});
    let list = serde_json::json!({"kind": "List", "items": [event, node, pod]});
    std::fs::write(&input, list.to_string()).expect("write");
    let db = dir.path().join("k.duckdb");
    kdrift().arg("--db").arg(&db).args(["ingest", "file"]).arg(&input).assert().success();
    let report = dir.path().join("r.html");
    let out = kdrift().arg("--db").arg(&db).args(["report", "--html"]).arg(&report).output().expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let html = std::fs::read_to_string(&report).expect("report");
    let said = element(&html, "<p>Sampled at ", "</p>");
    let said = said.trim_start_matches("<p>Sampled at ").trim_end_matches("</p>");
    let instants: usize = said.split(' ').next().and_then(|n| n.parse().ok()).expect("a count");
    // The Node's creation (00:10) and the pod's binding (00:20): two changes, both charted.
    assert_eq!(instants, 2, "{said}");
    assert!(stdout.contains(&format!("1 node charted ({instants} requested % samples)")), "{stdout}\n{said}");
    assert!(
        said.ends_with(
            "; not at the start of the range (2026-01-01T00:00:00Z): the store has no Node object yet there. A \
             value holds until the next sample; shaded: the drain operations."
        ),
        "{said}"
    );
    assert!(said.starts_with(&format!("{instants} instants: every change (")), "{said}");
    let out =
        kdrift().arg("--db").arg(&db).args(["report", "-o", "json", "--html"]).arg(&report).output().expect("run");
    let written: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(written["samples"], instants);
}

/// A store with more Pending pods than the report lists (520, 500 listed):
/// the 500 longest-pending are rows of the list, a line counts the other
/// 20 and says how to list them all, and the counts (header, summary,
/// JSON) are of all 520 (kdrift issue 39: a report of 200,000 rows).
#[test]
fn a_report_lists_the_500_longest_pending_pods_and_counts_the_rest() {
    let dir = tempfile::tempdir().expect("dir");
    let events = dir.path().join("events.ndjson");
    // Pod p{i} waited i minutes: p519 is the longest-pending, p20 the 500th.
    let lines: Vec<String> = (0..520)
        .map(|i| {
            serde_json::json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("p{i}.1"), "namespace": "d"},
                "involvedObject": {"kind": "Pod", "name": format!("p{i}"), "namespace": "d", "uid": format!("u{i}")},
                "reason": "FailedScheduling", "message": "0/2 nodes are available: 2 Insufficient cpu.",
                "count": 1, "firstTimestamp": "2026-01-01T00:00:00Z",
                "lastTimestamp": (chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").expect("t")
                    + chrono::Duration::minutes(i)).to_rfc3339()})
            .to_string()
        })
        .collect();
    std::fs::write(&events, lines.join("\n")).expect("write");
    let db = dir.path().join("k.duckdb");
    kdrift().arg("--db").arg(&db).args(["ingest", "file"]).arg(&events).assert().success();
    let report = dir.path().join("r.html");
    let out =
        kdrift().arg("--db").arg(&db).args(["-o", "json", "report", "--html"]).arg(&report).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let written: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!((&written["pending"], &written["listed"], &written["chains"]), (&520.into(), &500.into(), &20.into()));
    let html = std::fs::read_to_string(&report).expect("report");
    let rows: Vec<&str> =
        html.match_indices(r#"<tr data-pod=""#).map(|(i, _)| html[i + 14..].split('"').next().expect("pod")).collect();
    assert_eq!(rows.len(), 500, "rows listed");
    assert_eq!((rows[0], rows[499]), ("d/p519", "d/p20"), "the longest-pending first");
    assert!(
        html.contains(r#"<p class="pending-more" data-listed="500" data-more="20">… and 20 more: <code>kdrift why-pending --all -o json</code> lists them all.</p>"#),
        "{html}"
    );
    assert!(html.contains(r#"data-pending="520">"#), "the header counts every Pending pod");
    assert!(html.contains("Chains are shown for the 20 longest-pending of the 520 pods that were Pending; the next 480 are listed without one: "));
}

/// With usage samples, each node's used % is a dotted line next to its
/// requested % line (node-3 ends at 37.5 % cpu used, 50 % requested), and
/// the legend adds the highest and last used step; the same report of the
/// store without samples has neither.
#[test]
fn a_report_of_a_store_with_usage_samples_draws_used_percent_next_to_requested() {
    let dir = tempfile::tempdir().expect("temp dir");
    let html_of = |samples: bool| {
        let db = dir.path().join(format!("hot-{samples}.duckdb"));
        let store = kdrift_store::Store::open(&db).expect("store");
        kdrift_tests::hot_node::load_objects(&store);
        if samples {
            kdrift_tests::hot_node::store_samples(&store);
        }
        drop(store);
        let report = dir.path().join(format!("hot-{samples}.html"));
        kdrift()
            .arg("--db")
            .arg(&db)
            .args(["report", "--since", "2026-11-13T00:00:00Z", "--until", "2026-11-13T04:00:00Z", "--html"])
            .arg(&report)
            .assert()
            .success();
        std::fs::read_to_string(&report).expect("report")
    };
    let html = html_of(true);
    assert!(
        html.contains(
            r##"<path class="line used" data-node="node-3" data-resource="cpu" data-last="37.5" stroke="#e15759" stroke-dasharray="2 3""##
        ),
        "{html}"
    );
    assert!(html.contains(r#"<path class="line" data-node="node-3" data-resource="cpu" data-last="50.0""#));
    assert!(
        html.contains(r#"<td>50.0 %</td><td>50.0 %</td><td>50.0 %</td><td>97.5 %</td><td>37.5 %</td></tr>"#),
        "{html}"
    );
    assert!(html.contains("Dotted: measured used % of allocatable, the mean of each 37s step"), "{html}");
    let without = html_of(false);
    assert!(!without.contains("line used") && !without.contains("used: highest") && !without.contains("Dotted"));
}

#[test]
fn demo_report_renders_in_chromium_with_the_drains_and_the_chain() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("demo.duckdb");
    kdrift().arg("demo").arg("--save").arg(&db).assert().success();
    let report = dir.path().join("report.html");
    let out = kdrift().arg("--db").arg(&db).args(["report", "--html"]).arg(&report).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        stdout.contains("5 nodes charted (733 requested % samples), 2 drains or outages, 1 Pending pod, 1 chain\n"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(&report).expect("report");
    // Nodes cordoned together are one step, as `timeline drains` says (new-user trial).
    assert!(html.contains("Order: node-1 → [node-2, node-3, node-4 together] → node-5;"), "{html}");
    // The episodes table has the CLI's REBOOTED column (new-user trial 43).
    let row = html.lines().find(|l| l.starts_with(r#"<tr data-node="node-1"><td>node-1</td>"#)).expect("node-1 row");
    assert!(row.contains("<td>02:01:04Z</td><td>02:01:59Z</td><td>02:02:19Z</td>"), "{row}");
    assert!(html.contains("<th>NotReady</th><th>rebooted</th><th>Ready</th>"), "header");

    // Self-contained and deterministic.
    assert_eq!(external_references(&html), Vec::<String>::new());
    assert!(!html.contains("<script"), "readable without script: there is none");
    let again = dir.path().join("again.html");
    kdrift().arg("--db").arg(&db).args(["report", "--html"]).arg(&again).assert().success();
    assert!(std::fs::read(&again).expect("again") == html.as_bytes(), "the same store gives the same bytes");

    let Some(browser) = browser_or_skip("demo_report_renders_in_chromium") else { return };
    let dom = chromium(&browser, &report, &["--dump-dom"]);
    // The browser parsed the whole document: as many chains, charts and rows as written.
    for marker in [r#"<section class="chain""#, "<svg ", r#"class="gantt-row""#, r#"class="band "#] {
        assert_eq!(dom.matches(marker).count(), html.matches(marker).count(), "{marker}");
    }

    // One Gantt row per node, in order.
    let overview = element(&dom, r#"<svg id="gantt-overview""#, "</svg>");
    let rows: Vec<&str> = overview
        .match_indices(r#"<g class="gantt-row" data-node=""#)
        .map(|(i, m)| {
            let rest = &overview[i + m.len()..];
            &rest[..rest.find('"').unwrap_or(0)]
        })
        .collect();
    assert_eq!(rows, ["node-1", "node-2", "node-3", "node-4", "node-5"]);
    // Both rolling drains labelled with their start times.
    assert!(overview.contains(r#"data-started-at="2026-11-27T02:00:00+00:00""#), "{overview}");
    assert!(overview.contains(">#1 · 11-27 02:00</text>") && overview.contains(">#2 · 11-28 02:00</text>"));
    assert!(dom.contains(">#1 rolling drain · 2026-11-27T02:00:00Z → 02:17:44Z</text>"));
    assert!(dom.contains(">#2 rolling drain · 2026-11-28T02:00:00Z → 02:10:15Z</text>"));
    // A cordon band for every node in each drain, in that drain's own chart.
    for op in [1, 2] {
        let chart = element(&dom, &format!(r#"<svg id="gantt-operation-{op}""#), "</svg>");
        for n in 1..=5 {
            let band = format!(r#"class="band cordoned" data-node="node-{n}" data-operation="{op}""#);
            assert!(chart.contains(&band), "drain #{op}: no cordon band for node-{n}");
        }
        assert!(chart.contains(r#"class="evict""#) && chart.contains(r#"class="landed""#));
    }
    // Drain #2 starts with node-1's cordon at 02:00:00 (the band's data).
    assert!(dom.contains(r#"data-node="node-1" data-operation="2" data-from="2026-11-28T02:00:00+00:00""#));
    // The requested % charts: one line per node; node-1 ends at 97.1 % cpu.
    let cpu = element(&dom, r#"<svg id="requested-cpu""#, "</svg>");
    assert_eq!(cpu.matches(r#"<path class="line""#).count(), 5);
    assert!(cpu.contains(r#"data-node="node-1" data-resource="cpu" data-last="97.1""#), "{cpu}");
    assert!(dom.contains(r#"<svg id="requested-memory""#));

    // The backup pod's chain: node-1 left, 100m requested, 58m free, the fix first.
    let chain = element(&dom, r#"<section class="chain" id="chain-media-backup-"#, "</section>");
    assert!(chain.contains(r#"<span class="node-left">node-1</span>"#), "{chain}");
    assert!(
        chain.contains(r#"data-node="node-1" data-resource="cpu" data-requested="100" data-free="58" data-short="42""#)
    );
    assert!(chain.contains("the pod requests <b>100m</b>, <b>58m</b> free → <b>42m</b> short"), "{chain}");
    assert!(chain.contains(r#"data-plugin="InterPodAffinity" data-nodes="4""#));
    assert!(chain.contains("node-2, node-3, node-4, node-5"));
    assert!(chain.contains("from drain #2"), "the burst that filled node-1");
    let first_fix = element(chain, r#"<li data-rank="1">"#, "</li>");
    assert!(
        first_fix.contains("lower the pod's cpu request from 100m to at most 58m (it fits node-1 then)"),
        "{first_fix}"
    );

    // Laid out: rows stacked top to bottom with visible labels, bands with
    // an area, overview labels apart, the first fix on screen.
    let m = measured(&browser, &report);
    let rows = m["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 5);
    let tops: Vec<f64> = rows.iter().map(|r| r["top"].as_f64().unwrap_or(0.0)).collect();
    assert!(tops.windows(2).all(|w| w[1] > w[0] + 10.0), "rows stacked: {tops:?}");
    assert!(rows.iter().all(|r| r["width"].as_f64().unwrap_or(0.0) > 20.0), "labels drawn: {rows:?}");
    let bands = m["bands"].as_array().expect("bands");
    assert_eq!(bands.len(), 10, "5 nodes × 2 drains");
    assert!(bands
        .iter()
        .all(|b| b["width"].as_f64().unwrap_or(0.0) >= 1.0 && b["height"].as_f64().unwrap_or(0.0) > 5.0));
    let labels = m["labels"].as_array().expect("labels");
    assert_eq!(labels.len(), 2);
    assert!(labels[0]["right"].as_f64() < labels[1]["left"].as_f64(), "labels do not overlap: {labels:?}");
    assert!(m["fix"]["height"].as_f64().unwrap_or(0.0) > 10.0);

    // A screenshot, kept for people to look at.
    let png = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kdrift-report-demo.png");
    let _ = std::fs::remove_file(&png);
    chromium(&browser, &report, &[&format!("--screenshot={}", png.display())]);
    let bytes = std::fs::read(&png).expect("screenshot");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]);
    assert_eq!(width, 1100);
    assert!(bytes.len() > 50_000, "a page with charts, not a blank one: {} bytes", bytes.len());
    eprintln!("screenshot: {}", png.display());
}

#[test]
fn a_window_keeps_drain_2_and_the_chain() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("demo.duckdb");
    kdrift().arg("demo").arg("--save").arg(&db).assert().success();
    let report = dir.path().join("r.html");
    kdrift()
        .arg("--db")
        .arg(&db)
        .args(["report", "--since", "2026-11-28T00:00:00Z", "--until", "2026-11-28T06:00:00Z", "--html"])
        .arg(&report)
        .assert()
        .success();
    let html = std::fs::read_to_string(&report).expect("report");
    assert!(html.contains(r#"data-from="2026-11-28T00:00:00+00:00" data-to="2026-11-28T06:00:00+00:00""#));
    assert!(!html.contains(r#"id="gantt-operation-1""#) && html.contains(r#"id="gantt-operation-2""#));
    assert!(html.contains(r#"<section class="chain" id="chain-media-backup-"#));
    kdrift()
        .arg("--db")
        .arg(&db)
        .args(["report", "--since", "2026-11-29T00:00:00Z", "--until", "2026-11-28T00:00:00Z", "--html"])
        .arg(&report)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--since"));
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn report_of_every_real_fixture_renders() {
    use kdrift_ingest::{ingest_files, ingest_records, NoProgress};
    use kdrift_store::Store;
    let Some(real) = kdrift_tests::real_fixtures_or_skip("report_of_every_real_fixture_renders") else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("real.duckdb");
    {
        // Every file kdrift reads (the dumps; the rest is listed as ignored),
        // then the node-event TSV extractions as the events they are.
        let store = Store::open(&db).expect("store");
        let r = ingest_files(&store, std::slice::from_ref(&real), &mut NoProgress).expect("ingest");
        assert_eq!(r.error_count(), 0);
        for entry in std::fs::read_dir(real.join("drains")).expect("drains").flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "tsv") {
                let records = kdrift_tests::tsv_node_events(&path).expect("tsv");
                ingest_records(&store, "file", &path.display().to_string(), records).expect("ingest tsv");
            }
        }
    }
    let report = dir.path().join("real.html");
    kdrift().arg("--db").arg(&db).args(["report", "--html"]).arg(&report).assert().success();
    let html = std::fs::read_to_string(&report).expect("report");
    assert_eq!(external_references(&html), Vec::<String>::new());
    for node in ["k8s-master1", "k8s-worker1", "minikube"] {
        assert!(html.contains(&format!(r#"<g class="gantt-row" data-node="{node}">"#)), "{node}");
    }
    assert!(html.contains(r#"<section class="chain""#), "erwee402's Insufficient cpu pods have chains");
    // It showed 20 chains of the 101 pods with no word on the others.
    assert_eq!(html.matches(r#"<section class="chain""#).count(), 20);
    assert!(
        html.contains(
            r#"<p class="chains-shown" data-shown="20" data-pending="101">Chains are shown for the 20 longest-pending of the 101 pods that were Pending; the other 81 are listed without one: <code>kdrift why-pending NAMESPACE/POD</code> explains any of them"#
        ),
        "{}",
        html.lines().find(|l| l.contains("chains-shown")).unwrap_or("no chains-shown line")
    );
    // erwee402's default-namespace pods were never dumped: minikube's amounts
    // are bounds in the chains' node tables too (free and pods were exact there).
    let row = html.lines().find(|l| l.starts_with(r#"<tr data-node="minikube"><td>minikube</td>"#)).expect("row");
    let cells: Vec<&str> = row.split("<td>").skip(2).map(|c| c.split("</td>").next().unwrap_or("")).collect();
    assert!(
        cells[0].starts_with('≥') && cells[1].starts_with('≤') && cells[3].starts_with('≥'),
        "requested, free, pods: {row}"
    );
    let Some(browser) = browser_or_skip("report_of_every_real_fixture_renders") else { return };
    let dom = chromium(&browser, &report, &["--dump-dom"]);
    for marker in [r#"<section class="chain""#, "<svg ", r#"class="gantt-row""#, r#"class="band "#, "<li"] {
        assert_eq!(dom.matches(marker).count(), html.matches(marker).count(), "{marker}");
    }
}

/// New-user trial: the charts' axes said `03:00` and `25 %` with no unit
/// (which clock, percent of what), and a tick's date was only on the first
/// one. Every time axis now has its unit as a title, every tick its full
/// instant as a tooltip, and each requested % chart its y unit.
#[test]
fn the_charts_axes_say_their_units_and_each_tick_its_full_instant() {
    let dir = tempfile::tempdir().expect("tmp");
    let (db, page) = (dir.path().join("demo.duckdb"), dir.path().join("r.html"));
    kdrift().args(["demo", "--save"]).arg(&db).assert().success();
    kdrift().arg("--db").arg(&db).args(["report", "--html"]).arg(&page).assert().success();
    let html = std::fs::read_to_string(&page).expect("report");
    // One title per time axis: the overview Gantt, the two zoomed drains, cpu and memory.
    assert_eq!(html.matches(r#"<text class="axis-title" x="984" y="#).count(), 5, "{html}");
    assert_eq!(html.matches(">time (UTC)</text>").count(), 5);
    assert!(
        html.contains(r#"<text class="tick" x="#)
            && html.contains(r#"data-at="2026-11-27T03:00:00Z">03:00<title>2026-11-27T03:00:00Z</title></text>"#),
        "{html}"
    );
    for resource in ["cpu", "memory"] {
        assert!(
            html.contains(&format!(r#"transform="rotate(-90)">{resource} requested, % of allocatable</text>"#)),
            "{resource}"
        );
    }
    // Node row labels: whole names here (the demo's are short), with their tooltip.
    assert!(html.contains(r#">node-1<title>node-1</title></text>"#));
}
